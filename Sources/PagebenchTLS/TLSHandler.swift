import COpenSSL
import NIOCore
import NIOTLS

/// TLS on one connection with the system's OpenSSL, as the first handler of its pipeline:
/// the socket's bytes go into OpenSSL through a memory BIO and the plaintext comes out to the
/// next handler; plaintext written goes in and the TLS records come out to the socket.
///
/// - The handshake starts when the connection is active. Writes made before it completes
///   wait and go out after it; `TLSUserEvent.handshakeCompleted` announces it.
/// - A failed handshake fires a ``TLSError`` (`certificate verify failed: …` with OpenSSL's
///   verification reason, or `handshake failed: …`) and closes the connection; so does a
///   handshake not complete within the handshake timeout, when there is one.
/// - Renegotiation is refused (the context's `SSL_OP_NO_RENEGOTIATION`). A write that
///   OpenSSL cannot encrypt until the peer's handshake records arrive (`SSL_write` wanting a
///   read) waits for the next read instead of failing.
/// - Closing sends close_notify first. A close_notify from the peer is answered and the
///   connection closed; a connection that ends without one fires
///   ``TLSError/uncleanShutdown`` (a response delimited by the close may be cut short).
///
/// Everything runs on the channel's event loop; the OpenSSL connection is this handler's
/// alone and is freed once, in `deinit`.
package final class TLSHandler: ChannelDuplexHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    enum Role {
        /// Connects to `serverHostname` (a name or an IP address).
        case client(serverHostname: String)
        case server
    }

    private enum State {
        /// The connection is not active yet.
        case idle
        case handshaking
        case open
        /// Closed, failed or closing: nothing more goes through OpenSSL.
        case closed
    }

    /// Plaintext is read from OpenSSL in steps of at least one full record.
    private static let recordBytes = 16 * 1024

    /// The OpenSSL connection (internal for the tests that start a renegotiation on it).
    let ssl: OpaquePointer
    /// The socket's bytes, for OpenSSL to read (owned by `ssl`).
    private let networkIn: OpaquePointer
    /// OpenSSL's bytes for the socket (owned by `ssl`).
    private let networkOut: OpaquePointer
    private let role: Role
    private let verifiesPeer: Bool
    /// How long the handshake may take from the connection's start; nil: as long as it takes.
    private let handshakeTimeout: TimeAmount?
    private var handshakeDeadline: Scheduled<Void>?
    private var state = State.idle
    /// Plaintext written and not yet encrypted (until a flush, or the handshake's end).
    private var bufferedWrites = CircularBuffer<(data: ByteBuffer, promise: EventLoopPromise<Void>?)>()
    /// A flush that came during the handshake.
    private var flushAfterHandshake = false
    /// `SSL_write` wanted the peer's records first: the writes buffered go on after the next read.
    private var writesWaitForRead = false
    /// close_notify was sent (writes are refused after it).
    private var sentCloseNotify = false
    /// close_notify came from the peer.
    private var receivedCloseNotify = false
    private var receivedBytes = false
    /// A read the next handlers asked for and no plaintext has answered yet.
    private var readPending = false

    init(context: OpenSSLContext, role: Role, verifiesPeer: Bool, handshakeTimeout: TimeAmount? = nil) throws(TLSError)
    {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.pointer) else {
            throw .configuration("cannot create a TLS connection: \(OpenSSLErrorQueue.drain())")
        }
        guard let networkIn = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .configuration("cannot create a TLS connection's buffers: \(OpenSSLErrorQueue.drain())")
        }
        guard let networkOut = BIO_new(BIO_s_mem()) else {
            BIO_free(networkIn)  // not yet owned by `ssl`
            SSL_free(ssl)
            throw .configuration("cannot create a TLS connection's buffers: \(OpenSSLErrorQueue.drain())")
        }
        SSL_set_bio(ssl, networkIn, networkOut)
        switch role {
        case .client(let serverHostname):
            SSL_set_connect_state(ssl)
            // An IP address is matched against the certificate's IP addresses; a name is
            // sent as SNI and matched against its DNS names, where a wildcard stands for a
            // whole label only (`*.example.com`, never `w*.example.com`, as curl and
            // browsers decide).
            SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            if X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverHostname) != 1 {
                OpenSSLErrorQueue.clear()
                guard pagebench_SSL_set_tlsext_host_name(ssl, serverHostname) == 1,
                    SSL_set1_host(ssl, serverHostname) == 1
                else {
                    SSL_free(ssl)
                    throw .configuration(
                        "'\(serverHostname)' is not a host name TLS can verify: \(OpenSSLErrorQueue.drain())"
                    )
                }
            }
        case .server:
            SSL_set_accept_state(ssl)
        }
        self.ssl = ssl
        self.networkIn = networkIn
        self.networkOut = networkOut
        self.role = role
        self.verifiesPeer = verifiesPeer
        self.handshakeTimeout = handshakeTimeout
    }

    deinit {
        SSL_free(ssl)  // frees both BIOs too
    }

    // MARK: Lifecycle

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startHandshake(context: context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        failBufferedWrites(ChannelError.ioOnClosedChannel)
    }

    package func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        startHandshake(context: context)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        let previous = state
        state = .closed
        cancelHandshakeDeadline()
        failBufferedWrites(ChannelError.ioOnClosedChannel)
        switch previous {
        case .handshaking:
            context.fireErrorCaught(TLSError.handshake("the peer closed the connection during the handshake"))
        case .open where !receivedCloseNotify:
            context.fireErrorCaught(TLSError.uncleanShutdown)
        case .idle, .open, .closed:
            break
        }
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard case .handshaking = state else {
            context.fireErrorCaught(error)
            return
        }
        // A socket error (a reset) during the handshake is the handshake's failure.
        fail(context: context, .handshake("the connection broke during the handshake (\(error))"))
    }

    private func startHandshake(context: ChannelHandlerContext) {
        guard case .idle = state else { return }
        state = .handshaking
        if let handshakeTimeout {
            handshakeDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: handshakeTimeout) { [self] in
                guard case .handshaking = state else { return }
                let milliseconds = handshakeTimeout.nanoseconds / 1_000_000
                let limit = milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
                fail(context: context, .handshake("no handshake within \(limit)"))
            }
        }
        advanceHandshake(context: context)
    }

    private func cancelHandshakeDeadline() {
        handshakeDeadline?.cancel()
        handshakeDeadline = nil
    }

    /// One step of the handshake with what has arrived; on completion, announces it and
    /// sends the writes that waited.
    private func advanceHandshake(context: ChannelHandlerContext) {
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else {
            if SSL_get_error(ssl, result) == SSL_ERROR_WANT_READ {
                sendNetworkBytes(context: context, promise: nil)
                context.read()
            } else {
                fail(context: context, handshakeError())
            }
            return
        }
        state = .open
        cancelHandshakeDeadline()
        sendNetworkBytes(context: context, promise: nil)
        context.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: nil))
        if flushAfterHandshake, case .open = state {
            flushAfterHandshake = false
            encryptBufferedWrites(context: context)
        }
    }

    /// Why the handshake failed: the certificate's verification result when it was checked
    /// and refused, OpenSSL's reasons otherwise.
    private func handshakeError() -> TLSError {
        let verification = SSL_get_verify_result(ssl)
        guard verifiesPeer, verification != Int(X509_V_OK) else {
            return .handshake(OpenSSLErrorQueue.drain())
        }
        OpenSSLErrorQueue.clear()
        var reason = String(cString: X509_verify_cert_error_string(verification))
        if case .client(let name) = role,
            verification == Int(X509_V_ERR_HOSTNAME_MISMATCH) || verification == Int(X509_V_ERR_IP_ADDRESS_MISMATCH)
        {
            reason += " (the certificate is not valid for '\(name)')"
        }
        return .certificate(reason)
    }

    // MARK: Inbound

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .handshaking, .open: break
        case .idle, .closed: return
        }
        let bytes = unwrapInboundIn(data)
        if !receivedBytes {
            receivedBytes = true
            if case .client = role, bytes.readableBytesView.starts(with: "HTTP/".utf8) {
                fail(
                    context: context,
                    .handshake("the server answered in plain HTTP, not TLS (is the URL's scheme right?)")
                )
                return
            }
        }
        let written = bytes.withUnsafeReadableBytes { BIO_write(networkIn, $0.baseAddress, Int32($0.count)) }
        guard written == bytes.readableBytes || bytes.readableBytes == 0 else {
            fail(context: context, .record("OpenSSL did not take \(bytes.readableBytes) bytes from the network"))
            return
        }
        if case .handshaking = state {
            advanceHandshake(context: context)
            guard case .open = state else { return }
        }
        readPlaintext(context: context)
    }

    /// Decrypts every complete record that has arrived and passes the plaintext on as one
    /// buffer.
    private func readPlaintext(context: ChannelHandlerContext) {
        var plaintext: ByteBuffer?
        var failure: TLSError?
        reading: while true {
            OpenSSLErrorQueue.clear()
            var result: Int32 = 0
            var buffer = plaintext ?? context.channel.allocator.buffer(capacity: Self.recordBytes)
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.recordBytes) { space in
                result = SSL_read(ssl, space.baseAddress, Int32(clamping: space.count))
                return max(0, Int(result))
            }
            plaintext = buffer
            if result > 0 { continue }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ:
                break reading
            case SSL_ERROR_ZERO_RETURN:
                receivedCloseNotify = true
                break reading
            default:
                failure = .record(OpenSSLErrorQueue.drain())
                break reading
            }
        }
        if let plaintext, plaintext.readableBytes > 0 {
            readPending = false
            context.fireChannelRead(wrapInboundOut(plaintext))
        }
        if case .open = state {
            // What reading produced (an answer to a key update).
            sendNetworkBytes(context: context, promise: nil)
        }
        if let failure {
            fail(context: context, failure)
        } else if writesWaitForRead, case .open = state {
            encryptBufferedWrites(context: context)
        }
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
        guard case .open = state else { return }
        if receivedCloseNotify {
            // The peer is done: answer with close_notify and close (RFC 8446 6.1).
            context.channel.close(mode: .all, promise: nil)
        } else if readPending {
            // The bytes read were all handshake or session records: read on for the
            // plaintext asked for.
            context.read()
        }
    }

    // MARK: Outbound

    package func read(context: ChannelHandlerContext) {
        readPending = true
        context.read()
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !sentCloseNotify, !isClosed else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        bufferedWrites.append((unwrapOutboundIn(data), promise))
    }

    package func flush(context: ChannelHandlerContext) {
        switch state {
        case .open: encryptBufferedWrites(context: context)
        case .idle, .handshaking: flushAfterHandshake = true
        case .closed: break
        }
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode != .input, case .open = state, !sentCloseNotify {
            // close_notify before the TCP close, so that the peer can tell the end from a cut.
            sentCloseNotify = true
            OpenSSLErrorQueue.clear()
            _ = SSL_shutdown(ssl)
            OpenSSLErrorQueue.clear()
            sendNetworkBytes(context: context, promise: nil)
        }
        if mode == .all { state = .closed }
        if mode != .input { failBufferedWrites(ChannelError.ioOnClosedChannel) }
        context.close(mode: mode, promise: promise)
    }

    private var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Encrypts the writes buffered so far and sends the records; small writes (a request's
    /// head and body) go into one record. What OpenSSL cannot encrypt before the peer's
    /// handshake records arrive stays buffered, in order, until the next read.
    private func encryptBufferedWrites(context: ChannelHandlerContext) {
        guard !bufferedWrites.isEmpty else {
            context.flush()
            return
        }
        writesWaitForRead = false
        var writes = Array(bufferedWrites)
        bufferedWrites.removeAll(keepingCapacity: true)
        let totalBytes = writes.reduce(0) { $0 + $1.data.readableBytes }
        if writes.count > 1, totalBytes <= Self.recordBytes {
            var joined = context.channel.allocator.buffer(capacity: totalBytes)
            for write in writes { joined.writeImmutableBuffer(write.data) }
            writes = [(joined, Self.combined(writes.map(\.promise)))]
        }
        var encrypted = 0
        var outcome = Encryption.done
        while encrypted < writes.count {
            outcome = encrypt(writes[encrypted].data)
            guard case .done = outcome else { break }
            encrypted += 1
        }
        switch outcome {
        case .done:
            break
        case .failed(let failure):
            Self.combined(writes.map(\.promise))?.fail(failure)
            fail(context: context, failure)
            return
        case .waitingForRead(let remaining):
            writesWaitForRead = true
            bufferedWrites.append((remaining, writes[encrypted].promise))
            for write in writes[(encrypted + 1)...] { bufferedWrites.append(write) }
            context.read()
        }
        sendNetworkBytes(context: context, promise: Self.combined(writes[..<encrypted].map(\.promise)))
    }

    /// One promise standing for all of `promises` (nil when there are none).
    private static func combined(_ promises: [EventLoopPromise<Void>?]) -> EventLoopPromise<Void>? {
        var first: EventLoopPromise<Void>?
        for case let next? in promises {
            if let first { first.futureResult.cascade(to: next) } else { first = next }
        }
        return first
    }

    private enum Encryption {
        case done
        /// OpenSSL needs the peer's handshake records (a renegotiation in progress) before it
        /// encrypts the rest, `remaining`.
        case waitingForRead(remaining: ByteBuffer)
        case failed(TLSError)
    }

    private func encrypt(_ plaintext: ByteBuffer) -> Encryption {
        var remaining = plaintext
        while remaining.readableBytes > 0 {
            OpenSSLErrorQueue.clear()
            let result = remaining.withUnsafeReadableBytes { SSL_write(ssl, $0.baseAddress, Int32(clamping: $0.count)) }
            guard result > 0 else {
                if SSL_get_error(ssl, result) == SSL_ERROR_WANT_READ {
                    OpenSSLErrorQueue.clear()
                    return .waitingForRead(remaining: remaining)
                }
                return .failed(.record(OpenSSLErrorQueue.drain()))
            }
            remaining.moveReaderIndex(forwardBy: Int(result))
        }
        return .done
    }

    /// Sends what OpenSSL wrote for the network, if anything, and flushes.
    private func sendNetworkBytes(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        let pending = Int(BIO_ctrl_pending(networkOut))
        guard pending > 0 else {
            promise?.succeed()
            return
        }
        var bytes = context.channel.allocator.buffer(capacity: pending)
        bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: pending) { space in
            max(0, Int(BIO_read(networkOut, space.baseAddress, Int32(pending))))
        }
        context.writeAndFlush(wrapOutboundOut(bytes), promise: promise)
    }

    /// Fires `error`, then closes the connection (sending the alert OpenSSL queued, if any).
    private func fail(context: ChannelHandlerContext, _ error: TLSError) {
        guard !isClosed else { return }
        state = .closed
        cancelHandshakeDeadline()
        sendNetworkBytes(context: context, promise: nil)
        failBufferedWrites(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func failBufferedWrites(_ error: any Error) {
        guard !bufferedWrites.isEmpty else { return }
        let writes = bufferedWrites
        bufferedWrites.removeAll()
        for write in writes { write.promise?.fail(error) }
    }
}

@available(*, unavailable)
extension TLSHandler: Sendable {}
