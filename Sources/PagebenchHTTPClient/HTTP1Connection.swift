import NIOCore
import NIOHTTP1
import NIOPosix
import NIOTLS
import PagebenchBase
import PagebenchTLS
import Synchronization

/// A request other than the store's plain GET (``HTTP1Connection/send(_:)``): any method,
/// extra headers and a body, for targets pagebench did not write.
struct HTTP1Request: Sendable {
    var method: HTTPMethod
    /// The request target: path and query.
    var target: String
    /// Extra headers (validated by the caller); `Host` and `Content-Length` are added.
    var headers: [(name: String, value: String)]
    var body: ByteBuffer?
}

/// TLS on a client connection: one ``TLSHandler`` at the front of the pipeline.
struct HTTP1TLS: Sendable {
    let context: TLSClientContext
    /// The host connected to: a name (sent as SNI, checked against the certificate's names)
    /// or an IP address (checked against its addresses).
    let serverHostname: String
}

/// One HTTP/1.x response as ``HTTP1Connection`` hands it over: the status and the whole
/// body (the bytes NIOHTTP1 delivered, not copied when they came in one read).
struct HTTP1Response: Sendable {
    var status: Int
    var body: ByteBuffer
    /// Whether the server will take another request on this connection (HTTP/1.1 without
    /// `Connection: close`, or HTTP/1.0 with `Connection: keep-alive`).
    var keepAlive: Bool
    /// The `Retry-After` header in whole seconds, when the server sent one (T3).
    var retryAfterSeconds: Int? = nil
}

/// A response that is not valid HTTP/1.1 (NIOHTTP1's parser refused it) or is larger than
/// the client accepts.
struct HTTP1ProtocolError: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Why a request on an ``HTTP1Connection`` got no response.
enum HTTP1ConnectionError: Error, Sendable, CustomStringConvertible {
    /// The connection was closed (by the server, or it broke) before any byte of the
    /// response arrived. `reused` says whether it had served a request before: a
    /// keep-alive connection the server closed while idle fails this way, and a GET may
    /// then be repeated on a new connection.
    case closedBeforeResponse(reused: Bool)
    /// The connection was already closed when the request was to be written: nothing was
    /// sent, so any request may go on a new connection. A server closes a connection whose
    /// first request is slow to come (its idle timeout), which happens when the task that
    /// opened it waits long for a thread of a saturated pool.
    case closedBeforeSending
    /// The connection was closed (or broke) part way through the response.
    case closedDuringResponse
    /// The response was not complete within the request timeout, counted from the start of
    /// the request (connecting included): a total deadline, not a gap between bytes (T5).
    case timedOut(Duration)
    /// The request was cancelled (the connection is closed).
    case cancelled
    /// The response was not valid HTTP/1.1.
    case malformed(HTTP1ProtocolError)
    /// The socket failed.
    case io(any Error)
    /// The TLS handshake or record layer failed (certificate not trusted, wrong host name,
    /// not a TLS server).
    case tls(any Error)

    var description: String {
        switch self {
        case .closedBeforeResponse:
            "the server closed the connection before answering"
        case .closedBeforeSending:
            "the server closed the connection before the request was sent on it"
        case .closedDuringResponse:
            "the server closed the connection part way through the response"
        case .timedOut(let timeout):
            "no complete response within \(timeout) (the request timeout bounds connecting, sending and the whole response)"
        case .cancelled:
            "the request was cancelled"
        case .malformed(let error):
            "malformed HTTP response: \(error)"
        case .io(let error):
            "\(error)"
        case .tls(let error):
            "TLS failed: \(error)"
        }
    }
}

/// One HTTP/1.1 keep-alive connection to the store server, used by one request at a time
/// (``HTTP1ConnectionPool`` lends it out).
///
/// A request costs one write (a reused request head through NIOHTTP1's encoder) and one
/// task resumption: the response is decoded on the channel's event loop by NIOHTTP1's
/// `HTTPResponseDecoder` (llhttp), gathered by ``HTTP1ClientHandler`` and handed over whole. Called from a task running on that event loop (see
/// ``EventLoopTaskExecutor``) there is no thread hop at all.
final class HTTP1Connection: Sendable {
    let channel: any Channel
    var eventLoop: any EventLoop { channel.eventLoop }
    private let handler: NIOLoopBound<HTTP1ClientHandler>
    private let open: Atomic<Bool>
    private let requestIDs = Atomic<UInt64>(0)

    /// Connects to `host:port` on `eventLoop`; `requestTimeout` is what a request's deadline
    /// is named by when it passes.
    ///
    /// Cancelling the calling task ends the wait at once with `CancellationError`: a connect
    /// to a server whose accept queue is full waits for SYN retransmissions (1 s, 3 s, 7 s…)
    /// up to `connectTimeout`, and a load whose duration is over must not wait that out. A
    /// connection that completes after its caller gave up is closed.
    static func connect(
        host: String,
        port: Int,
        hostHeader: String,
        on eventLoop: any EventLoop,
        connectTimeout: TimeAmount,
        requestTimeout: Duration,
        maximumBodyBytes: Int,
        tls: HTTP1TLS? = nil,
        validatesOutboundHeaders: Bool = true
    ) async throws -> HTTP1Connection {
        try Task.checkCancellation()
        // The handler is kept here rather than looked up in the pipeline afterwards: a TLS
        // handshake can fail (and the pipeline empty) before the lookup runs, and the handler
        // holds the reason for the request that finds the connection closed.
        let created = NIOLoopBoundBox.makeEmptyBox(valueType: HTTP1ClientHandler.self, eventLoop: eventLoop)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    created.value = try configure(
                        channel.pipeline.syncOperations,
                        hostHeader: hostHeader,
                        requestTimeout: requestTimeout,
                        maximumBodyBytes: maximumBodyBytes,
                        tls: tls,
                        validatesOutboundHeaders: validatesOutboundHeaders
                    )
                }
            }
        // An address needs no resolution: connecting to it directly skips a getaddrinfo call
        // (on a serial queue per event loop) and the Happy Eyeballs timers, which thousands
        // of connections at once queue up for seconds.
        let connecting =
            if let address = try? SocketAddress(ipAddress: host, port: port) {
                bootstrap.connect(to: address)
            } else {
                bootstrap.connect(host: host, port: port)
            }
        // The caller waits for `outcome`, which cancellation fails first (a promise takes
        // its first result only); the connection's own result then finds it failed and
        // closes the channel. Both callbacks run on the event loop, in this order.
        let outcome = eventLoop.makePromise(of: (any Channel).self)
        connecting.cascade(to: outcome)
        connecting.whenSuccess { channel in
            outcome.futureResult.whenFailure { _ in channel.close(mode: .all, promise: nil) }
        }
        let channel = try await withTaskCancellationHandler {
            try await outcome.futureResult.get()
        } onCancel: {
            outcome.fail(CancellationError())
        }
        return try await channel.eventLoop.submit {
            guard let handler = created.value else { throw ChannelPipelineError.notFound }
            let connection = HTTP1Connection(
                channel: channel,
                handler: NIOLoopBound(handler, eventLoop: channel.eventLoop)
            )
            if channel.isActive {
                handler.connection = connection
            } else {
                connection.markClosed()
            }
            return connection
        }.get()
    }

    /// The one place a connection's channel pipeline is set up: TLS (when asked) wrapping
    /// the byte stream, NIOHTTP1's request encoder (with its outbound header check unless
    /// `validatesOutboundHeaders` is false: see ``HTTP1ConnectionPool/Endpoint/onlyPlainGets``)
    /// and response decoder, then ``HTTP1ClientHandler``, which it returns.
    @discardableResult
    static func configure(
        _ pipeline: ChannelPipeline.SynchronousOperations,
        hostHeader: String,
        requestTimeout: Duration,
        maximumBodyBytes: Int,
        tls: HTTP1TLS? = nil,
        validatesOutboundHeaders: Bool = true
    ) throws -> HTTP1ClientHandler {
        if let tls {
            try pipeline.addHandler(tls.context.makeHandler(serverHostname: tls.serverHostname, on: pipeline.eventLoop))
        }
        try pipeline.addHTTPClientHandlers(enableOutboundHeaderValidation: validatesOutboundHeaders)
        let handler = HTTP1ClientHandler(
            hostHeader: hostHeader,
            requestTimeout: requestTimeout,
            maximumBodyBytes: maximumBodyBytes
        )
        handler.awaitsTLSHandshake = tls != nil
        try pipeline.addHandler(handler)
        return handler
    }

    private init(channel: any Channel, handler: NIOLoopBound<HTTP1ClientHandler>) {
        self.channel = channel
        self.handler = handler
        open = Atomic(true)
    }

    /// Whether the connection may take another request (not closed by either side, last
    /// response allowed keep-alive).
    var isReusable: Bool { open.load(ordering: .relaxed) }

    /// Called on the event loop once the connection must not be reused.
    fileprivate func markClosed() {
        open.store(false, ordering: .relaxed)
    }

    /// `GET target` on this connection, failing with `timedOut` once `deadline` passes
    /// without the whole response; cancelling the calling task closes the connection.
    nonisolated(nonsending) func get(
        _ target: String,
        deadline: NIODeadline
    ) async throws(HTTP1ConnectionError) -> HTTP1Response {
        try await send(target, nil, deadline)
    }

    /// `request` on this connection, failing with `timedOut` once `deadline` passes without
    /// the whole response; cancelling the calling task closes the connection.
    nonisolated(nonsending) func send(
        _ request: HTTP1Request,
        deadline: NIODeadline
    ) async throws(HTTP1ConnectionError) -> HTTP1Response {
        try await send(request.target, request, deadline)
    }

    /// Runs on the caller's executor (`nonisolated(nonsending)`, as do the pool's and the
    /// source's steps above it): a task on an event loop pays no executor switch per step
    /// (each switch looks up the task's executor preference under a lock).
    private nonisolated(nonsending) func send(
        _ target: String,
        _ request: HTTP1Request?,
        _ deadline: NIODeadline
    ) async throws(HTTP1ConnectionError) -> HTTP1Response {
        let handler = self.handler
        let loop = channel.eventLoop
        // Numbers the request, so that a cancellation that reaches the event loop late
        // (after this request finished and the connection went to another task) is ignored.
        let id = requestIDs.add(1, ordering: .relaxed).newValue
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation {
                (continuation: UnsafeContinuation<Result<HTTP1Response, HTTP1ConnectionError>, Never>) in
                if loop.inEventLoop {
                    handler.value.start(id, target, request, deadline, continuation)
                } else {
                    loop.execute { handler.value.start(id, target, request, deadline, continuation) }
                }
            }
        } onCancel: {
            if loop.inEventLoop {
                handler.value.cancel(id)
            } else {
                loop.execute { handler.value.cancel(id) }
            }
        }
        return try result.get()
    }

    /// Closes the connection (idempotent).
    func close() {
        markClosed()
        channel.close(mode: .all, promise: nil)
    }
}

/// The event-loop side of an ``HTTP1Connection``: writes the request, gathers the decoded
/// response, resumes the waiting task once, watches the request's deadline.
final class HTTP1ClientHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    fileprivate typealias Continuation = UnsafeContinuation<Result<HTTP1Response, HTTP1ConnectionError>, Never>

    /// What a passed deadline is named by in the error.
    private let requestTimeout: Duration
    private let maximumBodyBytes: Int
    private var context: ChannelHandlerContext?
    /// The task waiting for the response in flight, if any.
    private var pending: Continuation?
    /// Reused for every request: only the target changes.
    private var requestHead: HTTPRequestHead
    /// The response being gathered: its status once its head arrived, its body so far.
    private var status: Int?
    private var keepAlive = true
    private var body: ByteBuffer?
    private var requestsSent = 0
    /// The id of the request in flight or last finished.
    private var currentRequest: UInt64 = 0
    /// A request cancelled before it reached the event loop.
    private var cancelledBeforeStart: UInt64 = 0
    private var closed = false
    /// A TLS failure that closed the connection before a request started (the handshake
    /// runs on connect): the request that finds the connection closed reports it.
    private var tlsFailure: HTTP1ConnectionError?
    /// When the request in flight must be answered whole (T5: bytes arriving do not move it).
    private var deadline = NIODeadline.distantFuture
    private var timeoutCheck: Scheduled<Void>?
    /// When ``timeoutCheck`` fires.
    private var timeoutCheckAt = NIODeadline.distantFuture
    /// Set once the connection object exists (on the event loop, before any request).
    var connection: HTTP1Connection?
    /// Whether a TLS handshake is still to complete: any failure before it completes is a
    /// TLS failure (an untrusted certificate can surface as a lookup error of the trust store).
    var awaitsTLSHandshake = false
    private var retryAfterSeconds: Int?
    private let hostHeader: String

    init(hostHeader: String, requestTimeout: Duration, maximumBodyBytes: Int) {
        self.requestTimeout = requestTimeout
        self.maximumBodyBytes = maximumBodyBytes
        self.hostHeader = hostHeader
        requestHead = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: ["Host": hostHeader])
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        shut(.closedBeforeResponse(reused: requestsSent > 1))
        self.context = nil
        connection = nil  // the connection holds this handler: break the cycle
    }

    /// Sends request `id` (`GET target`, or `request`), and keeps `continuation` to resume
    /// with the response, or with `timedOut` at `deadline`.
    fileprivate func start(
        _ id: UInt64,
        _ target: String,
        _ request: HTTP1Request?,
        _ deadline: NIODeadline,
        _ continuation: Continuation
    ) {
        if cancelledBeforeStart == id {
            continuation.resume(returning: .failure(.cancelled))
            shut(.cancelled)
            return
        }
        guard !closed, pending == nil, let context else {
            continuation.resume(returning: .failure(tlsFailure ?? .closedBeforeSending))
            return
        }
        pending = continuation
        currentRequest = id
        requestsSent += 1
        self.deadline = deadline
        // One check per connection, moved only when a deadline comes before it (a request's
        // deadline is never earlier than its predecessor's with one timeout): under load the
        // timer is rescheduled rarely.
        if timeoutCheck == nil || timeoutCheckAt > deadline {
            timeoutCheck?.cancel()
            scheduleTimeoutCheck(at: deadline)
        }
        if let request {
            var head = HTTPRequestHead(version: .http1_1, method: request.method, uri: target)
            head.headers.add(name: "Host", value: hostHeader)
            for header in request.headers { head.headers.add(name: header.name, value: header.value) }
            if let body = request.body {
                head.headers.add(name: "Content-Length", value: String(body.readableBytes))
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            } else {
                context.write(wrapOutboundOut(.head(head)), promise: nil)
            }
        } else {
            requestHead.uri = target
            context.write(wrapOutboundOut(.head(requestHead)), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// The task waiting for request `id` was cancelled: close the connection (so the
    /// server stops working on the request) and let the task go. A cancellation that
    /// arrives before its request started fails the request when it starts; one for a
    /// request already finished is ignored (the connection may serve another task now).
    fileprivate func cancel(_ id: UInt64) {
        if id == currentRequest {
            if pending != nil { shut(.cancelled) }
        } else if id > currentRequest {
            cancelledBeforeStart = id
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closed else { return }
        guard pending != nil else {
            shut(.malformed(HTTP1ProtocolError("the server sent a response while no request was waiting")))
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if let length = head.headers.first(name: "content-length").flatMap({ Int($0) }), length > maximumBodyBytes {
                shut(.malformed(tooLarge(length)))
                return
            }
            status = Int(head.status.code)
            keepAlive = head.isKeepAlive
            retryAfterSeconds = head.headers.first(name: "retry-after").flatMap(Self.delaySeconds)
            body = nil
        case .body(var bytes):
            let size = (body?.readableBytes ?? 0) + bytes.readableBytes
            guard size <= maximumBodyBytes else {
                shut(.malformed(tooLarge(size)))
                return
            }
            if body == nil {
                body = bytes
            } else {
                body!.writeBuffer(&bytes)
            }
        case .end:
            guard let status else {
                shut(.malformed(HTTP1ProtocolError("a response ended before its head")))
                return
            }
            let response = HTTP1Response(
                status: status,
                body: body ?? ByteBuffer(),
                keepAlive: keepAlive,
                retryAfterSeconds: retryAfterSeconds
            )
            self.status = nil
            body = nil
            if !response.keepAlive {
                connection?.markClosed()
                finish(.success(response))
                shut(.closedBeforeResponse(reused: true))
                return
            }
            finish(.success(response))
        }
    }

    /// `Retry-After` as delay-seconds; an HTTP-date is ignored (the retry policy's back-off applies).
    private static func delaySeconds(_ value: String) -> Int? {
        guard !value.isEmpty, value.utf8.count <= 9,
            value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(value)
    }

    private func tooLarge(_ bytes: Int) -> HTTP1ProtocolError {
        HTTP1ProtocolError("the response body (\(bytes) bytes) is larger than the \(maximumBodyBytes) bytes accepted")
    }

    func channelInactive(context: ChannelHandlerContext) {
        // NIOHTTP1 has already delivered the end of a body delimited by the connection's
        // close; a response cut off part way arrived as an error.
        shut(.closedBeforeResponse(reused: requestsSent > 1))
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSUserEvent, case .handshakeCompleted = tls { awaitsTLSHandshake = false }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case _ where awaitsTLSHandshake:
            shut(.tls(error))
        case HTTPParserError.invalidEOFState:
            shut(.closedDuringResponse)
        case let error as HTTPParserError:
            shut(.malformed(HTTP1ProtocolError("\(error)")))
        case let error as TLSError where error.isUncleanShutdown:
            // An unclean TLS shutdown is just a closed connection.
            shut(.io(error))
        case is TLSError:
            shut(.tls(error))
        default:
            shut(.io(error))
        }
    }

    private func finish(_ result: Result<HTTP1Response, HTTP1ConnectionError>) {
        guard let continuation = pending else { return }
        pending = nil
        continuation.resume(returning: result)
    }

    /// Fails the request in flight (if any) with `error`, marks the connection closed and
    /// closes the channel.
    private func shut(_ error: HTTP1ConnectionError) {
        let hadResponseBytes = status != nil
        var error = error
        switch error {
        case .closedBeforeResponse where hadResponseBytes:
            error = .closedDuringResponse
        case .io where !hadResponseBytes && pending != nil:
            // A reset before any answer (a stale keep-alive connection) may be retried.
            error = .closedBeforeResponse(reused: requestsSent > 1)
        default:
            break
        }
        if case .tls = error, pending == nil { tlsFailure = error }
        // Marked closed before the waiting task is resumed: a task resumed on another thread
        // gives the connection back at once, and a connection still marked open went back to
        // the idle list, where the request's one repeat took it again and failed
        // (closedBeforeSending), a race that fewer hops per request made frequent.
        let wasClosed = closed
        closed = true
        connection?.markClosed()
        finish(.failure(error))
        guard !wasClosed else { return }
        timeoutCheck?.cancel()
        timeoutCheck = nil
        body = nil
        context?.close(mode: .all, promise: nil)
    }

    /// Arms the deadline check (one timer per connection, not per request).
    private func scheduleTimeoutCheck(at deadline: NIODeadline) {
        guard let context else { return }
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timeoutCheckAt = deadline
        timeoutCheck = context.eventLoop.scheduleTask(deadline: deadline) {
            loopBound.value.checkTimeout()
        }
    }

    private func checkTimeout() {
        timeoutCheck = nil
        timeoutCheckAt = .distantFuture
        guard pending != nil, !closed else { return }
        if deadline <= .now() {
            shut(.timedOut(requestTimeout))
        } else {
            scheduleTimeoutCheck(at: deadline)
        }
    }
}

@available(*, unavailable)
extension HTTP1ClientHandler: Sendable {}
