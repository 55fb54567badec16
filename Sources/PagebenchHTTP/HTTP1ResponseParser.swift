import NIOCore

/// One HTTP/1.x response as ``HTTP1Connection`` hands it over: the status and the whole
/// body (a slice of the bytes read, not a copy, when the body arrived with a
/// `Content-Length`).
struct HTTP1Response: Sendable {
    var status: Int
    var body: ByteBuffer
    /// Whether the server will take another request on this connection (HTTP/1.1 without
    /// `Connection: close`, or HTTP/1.0 with `Connection: keep-alive`, and a delimited body).
    var keepAlive: Bool
    /// The `Retry-After` header in whole seconds, when the server sent one (T3).
    var retryAfterSeconds: Int? = nil
}

/// A response that is not valid HTTP/1.1 (or is larger than the client accepts).
struct HTTP1ProtocolError: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// An incremental, strict parser of HTTP/1.0 and 1.1 responses, just what a store client
/// needs: status line, headers (`Content-Length`, `Transfer-Encoding: chunked`,
/// `Connection`), a body delimited by its length, by chunks or by the end of the
/// connection. Interim 1xx responses are skipped. Anything else — a malformed status line
/// or header, conflicting lengths, an unsupported transfer coding, a head over
/// ``maximumHeadBytes`` or a body over the client's limit — is an ``HTTP1ProtocolError``
/// naming what was wrong; the connection is not reusable afterwards.
struct HTTP1ResponseParser {
    /// The largest response head (status line and headers) accepted.
    static let maximumHeadBytes = 16 * 1024

    private enum State {
        /// Looking for the end of the head; bytes before `scanned` hold no `\r\n\r\n`.
        case head(scanned: Int)
        case fixedBody(status: Int, keepAlive: Bool, length: Int)
        case chunkSize(status: Int, keepAlive: Bool, body: ByteBuffer)
        case chunkData(status: Int, keepAlive: Bool, body: ByteBuffer, remaining: Int)
        case trailers(status: Int, keepAlive: Bool, body: ByteBuffer)
        case untilClose(status: Int, body: ByteBuffer)
    }

    private var state = State.head(scanned: 0)
    let maximumBodyBytes: Int
    /// The `Retry-After` seconds of the last response head parsed (nil without one).
    private(set) var retryAfterSeconds: Int?

    init(maximumBodyBytes: Int) {
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Whether no byte of a response has been consumed yet (between responses).
    var isIdle: Bool {
        if case .head(scanned: 0) = state { return true }
        return false
    }

    /// Starts over for the next response on the connection.
    mutating func reset() {
        state = .head(scanned: 0)
    }

    /// Consumes what it can of `buffer`; returns the response once complete (the bytes after
    /// it stay in `buffer`), `nil` when more bytes are needed.
    mutating func parse(_ buffer: inout ByteBuffer) throws(HTTP1ProtocolError) -> HTTP1Response? {
        while true {
            switch state {
            case .head(let scanned):
                guard let headLength = Self.endOfHead(in: buffer, from: scanned) else {
                    guard buffer.readableBytes <= Self.maximumHeadBytes else {
                        throw HTTP1ProtocolError("the response head is larger than \(Self.maximumHeadBytes) bytes")
                    }
                    state = .head(scanned: max(0, buffer.readableBytes - 3))
                    return nil
                }
                guard headLength <= Self.maximumHeadBytes else {
                    throw HTTP1ProtocolError("the response head is larger than \(Self.maximumHeadBytes) bytes")
                }
                let head = try buffer.withUnsafeReadableBytes { bytes throws(HTTP1ProtocolError) in
                    try Head(UnsafeRawBufferPointer(rebasing: bytes[..<headLength]))
                }
                buffer.moveReaderIndex(forwardBy: headLength)
                retryAfterSeconds = head.retryAfterSeconds
                if head.status < 200 {
                    guard head.status != 101 else { throw HTTP1ProtocolError("the server switched protocols (HTTP 101)") }
                    state = .head(scanned: 0)  // an interim response: the real one follows
                    continue
                }
                if head.status == 204 || head.status == 304 {
                    guard head.contentLength ?? 0 == 0, !head.chunked else {
                        throw HTTP1ProtocolError("HTTP \(head.status) must not carry a body")
                    }
                    state = .head(scanned: 0)
                    return HTTP1Response(status: head.status, body: ByteBuffer(), keepAlive: head.keepAlive)
                }
                if head.chunked {
                    state = .chunkSize(status: head.status, keepAlive: head.keepAlive, body: ByteBuffer())
                } else if let length = head.contentLength {
                    guard length <= maximumBodyBytes else { throw tooLarge(length) }
                    state = .fixedBody(status: head.status, keepAlive: head.keepAlive, length: length)
                } else {
                    state = .untilClose(status: head.status, body: ByteBuffer())
                }
            case .fixedBody(let status, let keepAlive, let length):
                guard let body = buffer.readSlice(length: length) else { return nil }
                state = .head(scanned: 0)
                return HTTP1Response(status: status, body: body, keepAlive: keepAlive)
            case .chunkSize(let status, let keepAlive, let body):
                guard let line = try Self.readLine(&buffer, what: "chunk size line") else { return nil }
                let size = try Self.chunkSize(line)
                guard body.readableBytes + size <= maximumBodyBytes else { throw tooLarge(body.readableBytes + size) }
                state = size == 0
                    ? .trailers(status: status, keepAlive: keepAlive, body: body)
                    : .chunkData(status: status, keepAlive: keepAlive, body: body, remaining: size)
            case .chunkData(let status, let keepAlive, var body, let remaining):
                // The chunk, then its CRLF, before moving on.
                guard buffer.readableBytes >= remaining + 2 else {
                    if buffer.readableBytes > 0, remaining > 0 {
                        let take = min(remaining, buffer.readableBytes)
                        var slice = buffer.readSlice(length: take)!
                        body.writeBuffer(&slice)
                        state = .chunkData(status: status, keepAlive: keepAlive, body: body, remaining: remaining - take)
                    }
                    return nil
                }
                var slice = buffer.readSlice(length: remaining)!
                body.writeBuffer(&slice)
                guard buffer.readInteger(as: UInt16.self) == 0x0D0A else {
                    throw HTTP1ProtocolError("a chunk is not followed by CRLF")
                }
                state = .chunkSize(status: status, keepAlive: keepAlive, body: body)
            case .trailers(let status, let keepAlive, let body):
                guard let line = try Self.readLine(&buffer, what: "trailer") else { return nil }
                if line.readableBytes == 0 {
                    state = .head(scanned: 0)
                    return HTTP1Response(status: status, body: body, keepAlive: keepAlive)
                }
            case .untilClose(let status, var body):
                guard body.readableBytes + buffer.readableBytes <= maximumBodyBytes else {
                    throw tooLarge(body.readableBytes + buffer.readableBytes)
                }
                body.writeBuffer(&buffer)
                state = .untilClose(status: status, body: body)
                return nil
            }
        }
    }

    /// The connection's input ended: the response if its body was delimited by the end,
    /// `nil` if no byte of a response had arrived.
    ///
    /// - Throws: ``HTTP1ProtocolError`` when a response was cut off part way.
    mutating func endOfInput() throws(HTTP1ProtocolError) -> HTTP1Response? {
        switch state {
        case .head(let scanned) where scanned == 0:
            return nil
        case .untilClose(let status, let body):
            state = .head(scanned: 0)
            return HTTP1Response(status: status, body: body, keepAlive: false)
        default:
            throw HTTP1ProtocolError("the server closed the connection part way through the response")
        }
    }

    private func tooLarge(_ bytes: Int) -> HTTP1ProtocolError {
        HTTP1ProtocolError("the response body (\(bytes) bytes) is larger than the \(maximumBodyBytes) bytes accepted")
    }

    /// The length of the head including its final CRLFCRLF, if it is all in `buffer`.
    private static func endOfHead(in buffer: ByteBuffer, from start: Int) -> Int? {
        buffer.withUnsafeReadableBytes { bytes -> Int? in
            guard bytes.count >= 4 else { return nil }
            var index = start
            while index + 3 < bytes.count {
                if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                    return index + 4
                }
                index += 1
            }
            return nil
        }
    }

    /// One CRLF-terminated line (without the CRLF), or nil if it is not complete yet.
    private static func readLine(_ buffer: inout ByteBuffer, what: String) throws(HTTP1ProtocolError) -> ByteBuffer? {
        let found = buffer.withUnsafeReadableBytes { bytes -> Int? in
            var index = 0
            while index + 1 < bytes.count {
                if bytes[index] == 13, bytes[index + 1] == 10 { return index }
                index += 1
            }
            return nil
        }
        guard let length = found else {
            guard buffer.readableBytes <= 4096 else { throw HTTP1ProtocolError("a \(what) is longer than 4096 bytes") }
            return nil
        }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 2)
        return line
    }

    /// The size of a chunk from its line (hex digits, optionally `;extensions`).
    private static func chunkSize(_ line: ByteBuffer) throws(HTTP1ProtocolError) -> Int {
        var size = 0
        var digits = 0
        for byte in line.readableBytesView {
            let value: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = Int(byte - UInt8(ascii: "A")) + 10
            case UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"):
                guard digits > 0 else { throw HTTP1ProtocolError("a chunk size line has no size: '\(String(buffer: line))'") }
                return size
            default:
                throw HTTP1ProtocolError("a chunk size is not hexadecimal: '\(String(buffer: line))'")
            }
            digits += 1
            guard digits <= 15 else { throw HTTP1ProtocolError("a chunk size is too large: '\(String(buffer: line))'") }
            size = size * 16 + value
        }
        guard digits > 0 else { throw HTTP1ProtocolError("a chunk size line is empty") }
        return size
    }

    /// A parsed status line and the headers the client acts on.
    private struct Head {
        var status = 0
        var contentLength: Int?
        var chunked = false
        var keepAlive = true
        var retryAfterSeconds: Int?

        /// Parses `bytes`: the status line and header lines, each ending in CRLF, then CRLF.
        init(_ bytes: UnsafeRawBufferPointer) throws(HTTP1ProtocolError) {
            var lines = LineCursor(bytes: bytes)
            guard let statusLine = lines.next(), statusLine.count >= 12,
                Self.hasPrefix(statusLine, "HTTP/1."), statusLine[8] == UInt8(ascii: " "),
                statusLine[7] == UInt8(ascii: "1") || statusLine[7] == UInt8(ascii: "0"),
                statusLine.count == 12 || statusLine[12] == UInt8(ascii: " ")
            else {
                throw HTTP1ProtocolError("the status line is not 'HTTP/1.x NNN reason': '\(Self.text(bytes.prefix(80)))'")
            }
            var status = 0
            for index in 9..<12 {
                let digit = statusLine[index]
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else {
                    throw HTTP1ProtocolError("the status code is not 3 digits: '\(Self.text(statusLine))'")
                }
                status = status * 10 + Int(digit - UInt8(ascii: "0"))
            }
            guard status >= 100 else { throw HTTP1ProtocolError("the status code \(status) is out of range") }
            self.status = status
            let http10 = statusLine[7] == UInt8(ascii: "0")
            var connectionClose = http10
            while let line = lines.next(), !line.isEmpty {
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                    throw HTTP1ProtocolError("a header line has no name: '\(Self.text(line))'")
                }
                let name = UnsafeRawBufferPointer(rebasing: line[..<colon])
                for byte in name where byte <= 32 || byte >= 127 {
                    throw HTTP1ProtocolError("a header name holds whitespace or a control byte: '\(Self.text(line))'")
                }
                let value = Self.trimmed(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
                if Self.equalsIgnoringCase(name, "content-length") {
                    guard !value.isEmpty, value.count <= 18,
                        value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
                    else {
                        throw HTTP1ProtocolError("Content-Length is not a number: '\(Self.text(value))'")
                    }
                    let length = value.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
                    if let contentLength, contentLength != length {
                        throw HTTP1ProtocolError("two Content-Length headers disagree (\(contentLength) and \(length))")
                    }
                    contentLength = length
                } else if Self.equalsIgnoringCase(name, "transfer-encoding") {
                    guard Self.equalsIgnoringCase(value, "chunked") else {
                        throw HTTP1ProtocolError("unsupported Transfer-Encoding '\(Self.text(value))' (only chunked is)")
                    }
                    chunked = true
                } else if Self.equalsIgnoringCase(name, "retry-after") {
                    // Delay-seconds only; an HTTP-date is ignored (the retry policy's back-off applies).
                    if !value.isEmpty, value.count <= 9, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                        retryAfterSeconds = value.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
                    }
                } else if Self.equalsIgnoringCase(name, "connection") {
                    for token in value.split(separator: UInt8(ascii: ",")) {
                        let token = Self.trimmed(UnsafeRawBufferPointer(rebasing: token))
                        if Self.equalsIgnoringCase(token, "close") { connectionClose = true }
                        if Self.equalsIgnoringCase(token, "keep-alive") { connectionClose = false }
                    }
                }
            }
            if chunked, contentLength != nil {
                throw HTTP1ProtocolError("the response has both Content-Length and Transfer-Encoding")
            }
            // A body delimited by the end of the connection leaves nothing to reuse.
            keepAlive = !connectionClose && (chunked || contentLength != nil || status == 204 || status == 304)
        }

        private static func hasPrefix(_ bytes: Slice<UnsafeRawBufferPointer>, _ prefix: StaticString) -> Bool {
            guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
            let start = bytes.startIndex
            for index in 0..<prefix.utf8CodeUnitCount where bytes[start + index] != prefix.utf8Start[index] {
                return false
            }
            return true
        }

        private static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
            guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
            for index in 0..<bytes.count where bytes[index] | 0x20 != lowercase.utf8Start[index] | 0x20 {
                return false
            }
            return true
        }

        private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
            var start = 0
            var end = bytes.count
            while start < end, bytes[start] == 32 || bytes[start] == 9 { start += 1 }
            while end > start, bytes[end - 1] == 32 || bytes[end - 1] == 9 { end -= 1 }
            return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        }

        private static func text<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
            String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Splits a head into its CRLF-terminated lines.
    private struct LineCursor {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        mutating func next() -> Slice<UnsafeRawBufferPointer>? {
            var index = position
            while index + 1 < bytes.count {
                if bytes[index] == 13, bytes[index + 1] == 10 {
                    let line = bytes[position..<index]
                    position = index + 2
                    return line
                }
                index += 1
            }
            return nil
        }
    }
}
