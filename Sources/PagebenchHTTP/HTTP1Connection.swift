import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// One HTTP/1.x response as ``HTTP1Connection`` hands it over: the status and the whole
/// body (the bytes NIOHTTP1 delivered, not copied when they came in one read).
struct HTTP1Response: Sendable {
    var status: Int
    var body: ByteBuffer
    /// Whether the server will take another request on this connection (HTTP/1.1 without
    /// `Connection: close`, or HTTP/1.0 with `Connection: keep-alive`).
    var keepAlive: Bool
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
    /// The connection was closed (or broke) part way through the response.
    case closedDuringResponse
    /// No byte arrived from the server for the read timeout.
    case readTimeout(Duration)
    /// The request was cancelled (the connection is closed).
    case cancelled
    /// The response was not valid HTTP/1.1.
    case malformed(HTTP1ProtocolError)
    /// The socket failed.
    case io(any Error)

    var description: String {
        switch self {
        case .closedBeforeResponse:
            "the server closed the connection before answering"
        case .closedDuringResponse:
            "the server closed the connection part way through the response"
        case .readTimeout(let timeout):
            "no response bytes from the server for \(timeout) (read timeout)"
        case .cancelled:
            "the request was cancelled"
        case .malformed(let error):
            "malformed HTTP response: \(error)"
        case .io(let error):
            "\(error)"
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

    /// Connects to `host:port` on `eventLoop`.
    static func connect(
        host: String, port: Int, hostHeader: String, on eventLoop: any EventLoop, connectTimeout: TimeAmount,
        readTimeout: Duration, maximumBodyBytes: Int
    ) async throws -> HTTP1Connection {
        let channel = try await ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try configure(
                        channel.pipeline.syncOperations, hostHeader: hostHeader, readTimeout: readTimeout,
                        maximumBodyBytes: maximumBodyBytes)
                }
            }
            .connect(host: host, port: port)
            .get()
        return try await channel.eventLoop.submit {
            let handler = try channel.pipeline.syncOperations.handler(type: HTTP1ClientHandler.self)
            let connection = HTTP1Connection(channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
            handler.connection = connection
            if !channel.isActive { connection.markClosed() }
            return connection
        }.get()
    }

    /// The one place a connection's channel pipeline is set up: NIOHTTP1's request encoder
    /// and response decoder, then ``HTTP1ClientHandler``. Anything that wraps the byte
    /// stream (TLS) goes in front of them, here.
    static func configure(
        _ pipeline: ChannelPipeline.SynchronousOperations, hostHeader: String, readTimeout: Duration,
        maximumBodyBytes: Int
    ) throws {
        try pipeline.addHTTPClientHandlers()
        try pipeline.addHandler(
            HTTP1ClientHandler(hostHeader: hostHeader, readTimeout: readTimeout, maximumBodyBytes: maximumBodyBytes))
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

    /// `GET target` on this connection; cancelling the calling task closes the connection.
    func get(_ target: String) async throws(HTTP1ConnectionError) -> HTTP1Response {
        let handler = self.handler
        let loop = channel.eventLoop
        // Numbers the request, so that a cancellation that reaches the event loop late
        // (after this request finished and the connection went to another task) is ignored.
        let id = requestIDs.add(1, ordering: .relaxed).newValue
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<HTTP1Response, HTTP1ConnectionError>, Never>) in
                if loop.inEventLoop {
                    handler.value.start(id, target, continuation)
                } else {
                    loop.execute { handler.value.start(id, target, continuation) }
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
/// response, resumes the waiting task once, watches the read timeout.
final class HTTP1ClientHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    fileprivate typealias Continuation = UnsafeContinuation<Result<HTTP1Response, HTTP1ConnectionError>, Never>

    private let readTimeout: Duration
    private let readTimeoutAmount: TimeAmount
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
    /// When the last byte arrived or the request was sent; the read-timeout check compares.
    private var lastActivity = NIODeadline.now()
    private var timeoutCheck: Scheduled<Void>?
    /// Set once the connection object exists (on the event loop, before any request).
    var connection: HTTP1Connection?

    init(hostHeader: String, readTimeout: Duration, maximumBodyBytes: Int) {
        self.readTimeout = readTimeout
        let nanoseconds = readTimeout.components.seconds * 1_000_000_000 + readTimeout.components.attoseconds / 1_000_000_000
        readTimeoutAmount = .nanoseconds(max(1, nanoseconds))
        self.maximumBodyBytes = maximumBodyBytes
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

    /// Sends request `id`, `GET target`, and keeps `continuation` to resume with the response.
    fileprivate func start(_ id: UInt64, _ target: String, _ continuation: Continuation) {
        if cancelledBeforeStart == id {
            continuation.resume(returning: .failure(.cancelled))
            shut(.cancelled)
            return
        }
        guard !closed, pending == nil, let context else {
            continuation.resume(returning: .failure(.closedBeforeResponse(reused: requestsSent > 0)))
            return
        }
        pending = continuation
        currentRequest = id
        requestsSent += 1
        requestHead.uri = target
        lastActivity = .now()
        if timeoutCheck == nil { scheduleTimeoutCheck(at: lastActivity + readTimeoutAmount) }
        context.write(wrapOutboundOut(.head(requestHead)), promise: nil)
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
        lastActivity = .now()
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
            let response = HTTP1Response(status: status, body: body ?? ByteBuffer(), keepAlive: keepAlive)
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

    private func tooLarge(_ bytes: Int) -> HTTP1ProtocolError {
        HTTP1ProtocolError("the response body (\(bytes) bytes) is larger than the \(maximumBodyBytes) bytes accepted")
    }

    func channelInactive(context: ChannelHandlerContext) {
        // NIOHTTP1 has already delivered the end of a body delimited by the connection's
        // close; a response cut off part way arrived as an error.
        shut(.closedBeforeResponse(reused: requestsSent > 1))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case HTTPParserError.invalidEOFState:
            shut(.closedDuringResponse)
        case let error as HTTPParserError:
            shut(.malformed(HTTP1ProtocolError("\(error)")))
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
        finish(.failure(error))
        guard !closed else { return }
        closed = true
        connection?.markClosed()
        timeoutCheck?.cancel()
        timeoutCheck = nil
        body = nil
        context?.close(mode: .all, promise: nil)
    }

    /// One check per read-timeout period, not one timer per request: under load the
    /// timer is rescheduled rarely.
    private func scheduleTimeoutCheck(at deadline: NIODeadline) {
        guard let context else { return }
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timeoutCheck = context.eventLoop.scheduleTask(deadline: deadline) {
            loopBound.value.checkTimeout()
        }
    }

    private func checkTimeout() {
        timeoutCheck = nil
        guard pending != nil, !closed else { return }
        let deadline = lastActivity + readTimeoutAmount
        if deadline <= .now() {
            shut(.readTimeout(readTimeout))
        } else {
            scheduleTimeoutCheck(at: deadline)
        }
    }
}

@available(*, unavailable)
extension HTTP1ClientHandler: Sendable {}
