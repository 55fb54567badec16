import Foundation

/// A minimal, strict JSON reader over raw bytes, for the page body on the client's hot
/// path: Foundation's `JSONDecoder` spends most of a page's decode time in generic
/// metadata lookups, which would make the client, not the server, the bottleneck of a
/// load test (figures: `results/design-measurements.md`).
///
/// Reads RFC 8259 JSON: whitespace anywhere between tokens, strings with every escape
/// (`\uXXXX` surrogate pairs included), integers, and skips any value it is not asked
/// for (numbers with fractions or exponents, booleans, nested containers). Never reads
/// past the buffer, never nests deeper than ``maximumDepth``; every malformed input is a
/// ``JSONReadError`` naming the offset.
///
/// pagebench's one JSON tokenizer (issue 28): the HTTP side reads page bodies, responses
/// and request bodies with it (PagebenchWire, PagebenchTargets), and the strict loader of
/// every file builds its tree with it (``StrictJSON/Node``), where the error is located as
/// `line L, column C: expected X, found Y` (``JSONReadError/located(in:)``). The members
/// the page decode calls are `@inlinable`, so that the decode in PagebenchWire compiles as
/// if the reader were its own (figures: `results/json-tokenizer.md`).
@usableFromInline
package struct JSONReader: ~Copyable {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    /// The offset of the next byte to read (set back only by ``rewind(to:)``).
    @usableFromInline package var offset = 0

    @inlinable
    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    // MARK: Structure

    /// Skips whitespace and returns the next byte without consuming it (`nil` at the end).
    @inlinable
    package mutating func peek() -> UInt8? {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return bytes[offset]
            }
        }
        return nil
    }

    /// Consumes `byte` (after whitespace) or fails.
    @inlinable
    package mutating func expect(_ byte: UInt8) throws(JSONReadError) {
        guard peek() == byte else { throw error("expected '\(Character(Unicode.Scalar(byte)))'") }
        offset += 1
    }

    /// Consumes the colon after an object key, or fails.
    @inlinable
    package mutating func expectColon() throws(JSONReadError) {
        guard peek() == UInt8(ascii: ":") else { throw error("expected ':'", expected: "':' after the key") }
        offset += 1
    }

    /// Consumes the `closing` byte of a container after one of its members (`}` or `]`), or
    /// fails: the text should have had a comma (another member) or the end of the container.
    @inlinable
    package mutating func expectClosing(_ closing: UInt8) throws(JSONReadError) {
        guard peek() == closing else {
            throw error(
                "expected '\(Character(Unicode.Scalar(closing)))'",
                expected: "',' or '\(Character(Unicode.Scalar(closing)))'"
            )
        }
        offset += 1
    }

    /// Consumes `byte` if it comes next.
    @inlinable
    package mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        offset += 1
        return true
    }

    /// Consumes `text` if the bytes at the current offset are exactly it (no whitespace
    /// skipped): the fast path for the canonical layout the server writes.
    @inlinable @inline(__always)
    package mutating func matchLiteral(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard offset + count <= bytes.count, let base = bytes.baseAddress,
            memcmp(base + offset, text.utf8Start, count) == 0
        else { return false }
        offset += count
        return true
    }

    /// Consumes a run of 1 to `maximumDigits` ASCII digits without a leading zero (no
    /// whitespace skipped, no sign) and returns its value; `nil`, with nothing consumed, for
    /// anything else. The fast path for the canonical layout: a `maximumDigits` below the
    /// type's width cannot overflow, and whatever follows is checked by the next
    /// ``matchLiteral(_:)`` (a fraction or exponent does not match it), so every number it
    /// declines goes to ``readInt()``/``readUInt64()``, which accept or reject it with a reason.
    @inlinable @inline(__always)
    package mutating func matchPlainDigits(maximumDigits: Int) -> UInt64? {
        var index = offset
        let end = min(bytes.count, offset + maximumDigits)
        var value: UInt64 = 0
        while index < end {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit <= 9 else { break }
            value = value &* 10 &+ UInt64(digit)
            index += 1
        }
        let count = index - offset
        guard count > 0, count == 1 || bytes[offset] != UInt8(ascii: "0"),
            index == bytes.count || bytes[index] &- UInt8(ascii: "0") > 9
        else { return nil }
        offset = index
        return value
    }

    /// Consumes `"` + exactly 16 hex digits + `"` (no whitespace skipped) and returns their
    /// value, as ``readHex64()`` would; `nil`, with nothing consumed, for anything else.
    @inlinable @inline(__always)
    package mutating func matchHex64String() -> UInt64? {
        guard offset + 18 <= bytes.count, bytes[offset] == UInt8(ascii: "\""), bytes[offset + 17] == UInt8(ascii: "\"")
        else { return nil }
        guard let value = Self.hexValue(bytes, offset + 1..<offset + 17) else { return nil }
        offset += 18
        return value
    }

    /// The hex digits at `range` of `bytes` (upper or lower case) as a number; nil at the
    /// first byte that is not one. At most 16 digits.
    @inlinable @inline(__always)
    static func hexValue(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> UInt64? {
        var value: UInt64 = 0
        for index in range {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// Moves back to an earlier offset (after a fast path did not match).
    @inlinable
    package mutating func rewind(to earlier: Int) {
        offset = earlier
    }

    /// The number of bytes being read.
    @inlinable
    package var byteCount: Int { bytes.count }

    /// Fails unless only whitespace is left.
    @inlinable
    package mutating func expectEnd() throws(JSONReadError) {
        guard peek() == nil else {
            throw error("unexpected bytes after the value", expected: "the end of the text after the value")
        }
    }

    /// Reads the members of an object, calling `member` with each key; `member` must read
    /// (or ``skipValue()``) the value.
    @inlinable
    package mutating func readObject(
        _ member: (inout JSONReader, _ key: Key) throws(JSONReadError) -> Void
    ) throws(JSONReadError) {
        try expect(UInt8(ascii: "{"))
        if consume(UInt8(ascii: "}")) { return }
        repeat {
            let key = try readKey()
            try expectColon()
            try member(&self, key)
        } while consume(UInt8(ascii: ","))
        try expectClosing(UInt8(ascii: "}"))
    }

    /// Reads the elements of an array, calling `element` for each.
    @inlinable
    package mutating func readArray(_ element: (inout JSONReader) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try expect(UInt8(ascii: "["))
        if consume(UInt8(ascii: "]")) { return }
        repeat {
            try element(&self)
        } while consume(UInt8(ascii: ","))
        try expectClosing(UInt8(ascii: "]"))
    }

    // MARK: Values

    /// An object key, compared without allocating.
    @usableFromInline
    package struct Key {
        @usableFromInline let text: String?
        @usableFromInline let start: UnsafeRawPointer?
        @usableFromInline let count: Int

        @inlinable
        init(text: String?, start: UnsafeRawPointer?, count: Int) {
            self.text = text
            self.start = start
            self.count = count
        }

        /// Whether the key is exactly `name` (ASCII).
        @inlinable @inline(__always)
        package func `is`(_ name: StaticString) -> Bool {
            guard let start else { return text == name.description }
            guard count == name.utf8CodeUnitCount else { return false }
            guard count > 0 else { return true }
            // The first byte settles most mismatches without a call.
            guard start.load(as: UInt8.self) == name.utf8Start.pointee else { return false }
            return memcmp(start, name.utf8Start, count) == 0
        }

        package var description: String {
            text ?? String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
        }
    }

    /// Reads an object key (not its colon).
    @inlinable
    package mutating func readKey() throws(JSONReadError) -> Key {
        guard peek() == UInt8(ascii: "\"") else {
            throw error("expected an object key", expected: "a key in double quotes")
        }
        let (range, escaped) = try scanString()
        if escaped { return Key(text: try decodeString(range), start: nil, count: 0) }
        return Key(text: nil, start: bytes.baseAddress.map { $0 + range.lowerBound }, count: range.count)
    }

    /// Reads a string.
    @inlinable
    package mutating func readString() throws(JSONReadError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw error("expected a string") }
        let (range, escaped) = try scanString()
        if escaped { return try decodeString(range) }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Reads a string of exactly 16 hex digits as a `UInt64` (an item fingerprint),
    /// without building a `String`.
    @inlinable
    package mutating func readHex64() throws(JSONReadError) -> UInt64 {
        guard peek() == UInt8(ascii: "\"") else { throw error("expected a string of 16 hex digits") }
        let start = offset
        let (range, escaped) = try scanString()
        guard !escaped, range.count == 16 else {
            offset = start
            throw error("expected a string of 16 hex digits")
        }
        guard let value = Self.hexValue(bytes, range) else {
            offset = start
            throw error("expected a string of 16 hex digits")
        }
        return value
    }

    /// Reads a string or `null`.
    @inlinable
    package mutating func readOptionalString() throws(JSONReadError) -> String? {
        if try readNull() { return nil }
        return try readString()
    }

    /// Consumes `null` if it comes next.
    @inlinable
    package mutating func readNull() throws(JSONReadError) -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// Reads an integer that fits an `Int`.
    @inlinable
    package mutating func readInt() throws(JSONReadError) -> Int {
        guard peek() != nil else { throw error("expected a number") }
        let negative = consume(UInt8(ascii: "-"))
        let magnitude = try readDigits()
        if negative {
            guard magnitude <= UInt64(Int.max) + 1 else { throw error("number out of range") }
            return magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)
        }
        guard magnitude <= UInt64(Int.max) else { throw error("number out of range") }
        return Int(magnitude)
    }

    /// Reads a non-negative integer that fits a `UInt64`.
    @inlinable
    package mutating func readUInt64() throws(JSONReadError) -> UInt64 {
        guard peek() != nil else { throw error("expected a number") }
        return try readDigits()
    }

    /// Containers (objects and arrays) nest at most this deep in what the reader skips,
    /// reads or locates: a deeper body is a ``JSONReadError``, never a stack overflow
    /// (issue 24: a response nested 300,000 deep).
    package static let maximumDepth = 512

    /// Skips any value, without recursion: one bit per open container says whether it is
    /// an object or an array, so a hostile body costs no stack (``maximumDepth``).
    package mutating func skipValue() throws(JSONReadError) {
        // Bit `d % 64` of word `d / 64` is set when the container at depth `d` is an object.
        var objects: InlineArray<8, UInt64> = .init(repeating: 0)
        var depth = 0
        while true {
            // A value starts here.
            switch peek() {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < Self.maximumDepth else { throw tooDeep() }
                let isObject = bytes[offset] == UInt8(ascii: "{")
                offset += 1
                if consume(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) { break }  // empty: a whole value
                if isObject {
                    objects[depth >> 6] |= 1 << UInt64(depth & 63)
                    try skipKey()
                } else {
                    objects[depth >> 6] &= ~(1 << UInt64(depth & 63))
                }
                depth += 1
                continue
            case UInt8(ascii: "\""):
                _ = try scanString()
            case UInt8(ascii: "t"):
                try literal("true")
            case UInt8(ascii: "f"):
                try literal("false")
            case UInt8(ascii: "n"):
                try literal("null")
            case .some(let byte)
            where byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")):
                try skipNumber()
            default:
                throw valueError()
            }
            // A value ended: go on to the next member or element, or close containers.
            while true {
                guard depth > 0 else { return }
                let isObject = objects[(depth - 1) >> 6] & (1 << UInt64((depth - 1) & 63)) != 0
                if consume(UInt8(ascii: ",")) {
                    if isObject { try skipKey() }
                    break
                }
                try expectClosing(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                depth -= 1
            }
        }
    }

    /// An object key and its colon.
    private mutating func skipKey() throws(JSONReadError) {
        guard peek() == UInt8(ascii: "\"") else {
            throw error("expected an object key", expected: "a key in double quotes")
        }
        _ = try scanString()
        try expectColon()
    }

    /// The error for a container opened deeper than ``maximumDepth``.
    package func tooDeep() -> JSONReadError {
        error(
            "objects and arrays nest deeper than \(Self.maximumDepth) levels",
            expected: "objects and arrays nested at most \(Self.maximumDepth) deep"
        )
    }

    // MARK: Internals

    /// An error at the current offset.
    ///
    /// - Parameters:
    ///   - reason: the reader's short words (`expected '}'`), the error's `description`.
    ///   - expected: what a file should have here, for ``JSONReadError/located(in:)``; nil
    ///     when `reason` says it (`expected X`).
    ///   - found: what the text has here when more than its byte (a whole token).
    @inlinable
    package func error(_ reason: String, expected: String? = nil, found: String? = nil) -> JSONReadError {
        JSONReadError(reason: reason, offset: offset, expected: expected, found: found)
    }

    @inlinable
    mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count, let base = bytes.baseAddress,
            memcmp(base + offset, word.utf8Start, count) == 0
        else { throw error("expected \(word)", found: token(at: offset)) }
        offset += count
    }

    @inlinable
    mutating func readDigits() throws(JSONReadError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        while offset < bytes.count, bytes[offset] >= UInt8(ascii: "0"), bytes[offset] <= UInt8(ascii: "9") {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[offset] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw error("number out of range") }
            value = sum
            offset += 1
        }
        guard offset > start else { throw error("expected digits") }
        guard offset - start == 1 || bytes[start] != UInt8(ascii: "0") else { throw error("leading zero") }
        if offset < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[offset]) {
            throw error("expected a whole number")
        }
        return value
    }

    private mutating func skipNumber() throws(JSONReadError) {
        _ = consume(UInt8(ascii: "-"))
        let start = offset
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        guard offset > start else { throw error("expected digits") }
        guard offset - start == 1 || bytes[start] != UInt8(ascii: "0") else { throw error("leading zero") }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            let fraction = offset
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            guard offset > fraction else { throw error("expected digits after '.'") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            let exponent = offset
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            guard offset > exponent else { throw error("expected exponent digits") }
        }
    }

    /// Consumes a string; returns the range of its content and whether it has escapes.
    @inlinable
    mutating func scanString() throws(JSONReadError) -> (Range<Int>, escaped: Bool) {
        offset += 1  // the opening quote, checked by the caller
        let start = offset
        var escaped = false
        while offset < bytes.count {
            let byte = bytes[offset]
            // Most bytes: printable ASCII (0x20–0x7F, one comparison) other than the two that end
            // or escape.
            if byte &- 0x20 < 0x60, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                offset += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                offset += 1
                return (start..<offset - 1, escaped)
            }
            if byte == UInt8(ascii: "\\") {
                // Only RFC 8259's escapes, even in a string that is skipped: text with `\q`
                // is not JSON, and a page is never read from it (T2).
                escaped = true
                guard offset + 1 < bytes.count else {
                    throw error("unterminated string", expected: "the closing '\"' of a string")
                }
                switch bytes[offset + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    offset += 2
                case UInt8(ascii: "u"):
                    guard offset + 6 <= bytes.count, bytes[offset + 2..<offset + 6].allSatisfy(Self.isHexDigit) else {
                        throw error(
                            "bad \\u escape",
                            expected: "four hex digits after \\u",
                            found: escapeText(at: offset, count: 6)
                        )
                    }
                    offset += 6
                default:
                    throw error(
                        "bad escape",
                        expected: "an escape: \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u and four hex digits",
                        found: escapeText(at: offset, count: 2)
                    )
                }
                continue
            }
            guard byte >= 0x20 else {
                throw error(
                    "control character in a string",
                    expected: "a character of a string (control characters only as escapes, such as \\n or \\u0009)"
                )
            }
            // A byte of 0x80 or more. RFC 8259 8.1: the text is UTF-8. Outside strings JSON is
            // ASCII, so checking each string's bytes here refuses invalid UTF-8 anywhere in a
            // text, skipped values too, instead of `String(decoding:)` repairing it into U+FFFD.
            offset += try utf8SequenceLength(at: offset)
        }
        throw error("unterminated string", expected: "the closing '\"' of a string")
    }

    /// The length of the UTF-8 sequence of a scalar that starts at `index` (a byte of 0x80 or
    /// more), or an error naming the byte when it does not start one: a stray continuation
    /// byte, an overlong form, a surrogate, a scalar beyond U+10FFFF or a sequence cut short
    /// (RFC 3629 section 4).
    @inlinable
    func utf8SequenceLength(at index: Int) throws(JSONReadError) -> Int {
        let lead = bytes[index]
        func isContinuation(_ offset: Int) -> Bool { bytes[index + offset] & 0xC0 == 0x80 }
        if lead < 0xE0 {
            // C2–DF, then one continuation byte (80–C1 never start a scalar).
            guard lead >= 0xC2, index + 1 < bytes.count, isContinuation(1) else { throw invalidUTF8(at: index) }
            return 2
        }
        if lead < 0xF0 {
            // E0 A0–BF, ED 80–9F (no surrogates), else 80–BF; then one more continuation byte.
            guard index + 2 < bytes.count, isContinuation(1), isContinuation(2),
                lead != 0xE0 || bytes[index + 1] >= 0xA0, lead != 0xED || bytes[index + 1] < 0xA0
            else { throw invalidUTF8(at: index) }
            return 3
        }
        // F0 90–BF, F4 80–8F (nothing beyond U+10FFFF), F1–F3 80–BF; then two more.
        guard lead <= 0xF4, index + 3 < bytes.count, isContinuation(1), isContinuation(2), isContinuation(3),
            lead != 0xF0 || bytes[index + 1] >= 0x90, lead != 0xF4 || bytes[index + 1] < 0x90
        else { throw invalidUTF8(at: index) }
        return 4
    }

    /// Text that is not UTF-8 at `index`, in the words the strict loader uses for a file.
    @usableFromInline
    func invalidUTF8(at index: Int) -> JSONReadError {
        JSONReadError(
            reason: "invalid UTF-8",
            offset: index,
            expected: "UTF-8 text",
            found: "the byte 0x" + String(bytes[index], radix: 16, uppercase: true) + " (not UTF-8)"
        )
    }

    /// The escape at `index` (a backslash) as written, for an error: at most `count` bytes,
    /// up to the end of its string.
    @usableFromInline
    func escapeText(at index: Int, count: Int) -> String {
        var end = index + 1
        while end < min(bytes.count, index + count), bytes[end] != UInt8(ascii: "\""), bytes[end] >= 0x20 { end += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
    }

    /// Whether the string opening at `quote` ends before the text does, reading every
    /// backslash as escaping the next byte and nothing else: a string that never ends is
    /// located at the end of the text, whatever else is wrong inside it.
    package func stringCloses(from quote: Int) -> Bool {
        var index = quote + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return true
            default: index += 1
            }
        }
        return false
    }

    // MARK: Values as written (the strict loader's tree)

    /// Whether `byte` ends a token: whitespace, a comma or a container's end.
    @inlinable
    static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"): true
        default: false
        }
    }

    /// The token at `start` as written, up to the next delimiter (``isDelimiter(_:)``): what
    /// an error names as found (`01`, `tru`, `1e400`).
    @usableFromInline
    package func token(at start: Int) -> String {
        var end = start
        while end < bytes.count, !Self.isDelimiter(bytes[end]) { end += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// What a file should have where a number is.
    static let numberWords = "a number (digits without leading zeros, then an optional fraction and exponent)"

    /// Reads a number as written (`-0.5e3`), RFC 8259's grammar, with its value unread (a
    /// ``StrictJSON/Node`` keeps the text, so whether it fits a field is decided exactly).
    /// The whole token up to the next delimiter must be the number: `01`, `1.`, `1x` and
    /// `1"a"` are refused at the number's first byte, naming the token.
    package mutating func readNumberText() throws(JSONReadError) -> String {
        _ = peek()
        let start = offset
        do {
            try skipNumber()
        } catch {
            offset = start
            throw self.error("expected a number", expected: Self.numberWords, found: token(at: start))
        }
        guard offset == bytes.count || Self.isDelimiter(bytes[offset]) else {
            offset = start
            throw self.error("expected a number", expected: Self.numberWords, found: token(at: start))
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
    }

    /// Consumes `word` (`true`, `false` or `null`) when the token up to the next delimiter
    /// is exactly it; anything else (`tru`, `nulls`) is not a value, named as found.
    package mutating func readLiteral(_ word: StaticString) throws(JSONReadError) {
        _ = peek()
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count, let base = bytes.baseAddress,
            memcmp(base + offset, word.utf8Start, count) == 0,
            offset + count == bytes.count || Self.isDelimiter(bytes[offset + count])
        else { throw valueError() }
        offset += count
    }

    /// The error for something that is not a value where one goes: what is there, a whole
    /// token (`x`, `tru`), or the byte when it is punctuation (`}`) or the end of the text.
    package mutating func valueError() -> JSONReadError {
        switch peek() {
        case nil, UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"):
            error("expected a value", expected: "a value")
        case .some:
            error("expected a value", expected: "a value", found: token(at: offset))
        }
    }

    @inlinable
    static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }

    /// A `\uD800`–`\uDFFF` escape that is not half of a surrogate pair.
    func surrogateError(at index: Int) -> JSONReadError {
        JSONReadError(
            reason: "unpaired surrogate",
            offset: index,
            expected: "a \\uDC00-\\uDFFF escape right after a \\uD800-\\uDBFF one (a surrogate pair)"
        )
    }

    /// The text of a string with escapes.
    @usableFromInline
    func decodeString(_ range: Range<Int>) throws(JSONReadError) -> String {
        var scalars = String.UnicodeScalarView()
        var utf8: [UInt8] = []
        var index = range.lowerBound
        func flush() {
            scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
            utf8.removeAll(keepingCapacity: true)
        }
        func hex4(_ at: Int) throws(JSONReadError) -> UInt32 {
            guard at + 4 <= range.upperBound else { throw JSONReadError(reason: "short \\u escape", offset: at) }
            var value: UInt32 = 0
            for byte in bytes[at..<at + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw JSONReadError(reason: "bad \\u escape", offset: at)
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while index < range.upperBound {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            guard index + 1 < range.upperBound else { throw JSONReadError(reason: "bad escape", offset: index) }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4(index)
                index += 4
                if code >= 0xD800, code < 0xDC00 {
                    guard index + 6 <= range.upperBound, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw surrogateError(at: index) }
                    let low = try hex4(index + 2)
                    guard low >= 0xDC00, low < 0xE000 else { throw surrogateError(at: index) }
                    code = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
                    index += 6
                }
                guard let scalar = Unicode.Scalar(code) else { throw surrogateError(at: index) }
                flush()
                scalars.append(scalar)
            default:
                throw JSONReadError(reason: "bad escape", offset: index - 1)
            }
        }
        flush()
        return String(scalars)
    }
}

/// Malformed JSON: what was expected and at which byte offset.
///
/// Worded two ways: `description`, the reader's short reason and the offset (`expected '}'
/// at byte 12`), as the HTTP side reports a body; ``located(in:)``, for a file a person edits:
/// `line 2, column 3: expected ',' or '}', found '"'`.
@usableFromInline
package struct JSONReadError: Error, CustomStringConvertible {
    @usableFromInline package let reason: String
    /// The byte offset where the text stops being JSON.
    @usableFromInline package let offset: Int
    @usableFromInline let expectedWords: String?
    /// What the text has at ``offset`` when more than its byte there (a whole token, `01`);
    /// nil: the byte, or the end of the text.
    @usableFromInline package let found: String?

    @inlinable
    package init(reason: String, offset: Int, expected: String? = nil, found: String? = nil) {
        self.reason = reason
        self.offset = offset
        self.expectedWords = expected
        self.found = found
    }

    @usableFromInline package var description: String { "\(reason) at byte \(offset)" }

    /// What the text should have at ``offset``, in a file's words (`',' or '}'`).
    package var expected: String {
        expectedWords ?? (reason.hasPrefix("expected ") ? String(reason.dropFirst("expected ".count)) : reason)
    }

    /// This error with `suffix` after what was found (` at 'a.b'`, the value's path).
    package func found(suffix: String) -> JSONReadError {
        JSONReadError(reason: reason, offset: offset, expected: expectedWords, found: found.map { $0 + suffix })
    }

    /// Where in `bytes` (the text read) and why it stops being JSON:
    /// `line L, column C: expected X, found Y`. Lines and columns count from 1, columns in
    /// bytes; Y is the token found, the byte in quotes when printable (`'}'`), else `the byte
    /// 0x1F`, or `the end of the text`.
    package func located(in bytes: UnsafeRawBufferPointer) -> String {
        let end = min(offset, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<end where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        let foundWords: String
        if let found {
            foundWords = found
        } else if offset >= bytes.count {
            foundWords = "the end of the text"
        } else if (0x21..<0x7F).contains(bytes[offset]) {
            foundWords = "'\(Character(UnicodeScalar(bytes[offset])))'"
        } else {
            foundWords = "the byte 0x" + String(bytes[offset], radix: 16, uppercase: true)
        }
        return "line \(line), column \(end - lineStart + 1): expected \(expected), found \(foundWords)"
    }

    /// ``located(in:)`` for text in an array.
    package func located(in bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { located(in: $0) }
    }
}
