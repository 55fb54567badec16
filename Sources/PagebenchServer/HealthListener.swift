import NIOCore
import NIOHTTP1
import NIOPosix
import PagebenchWire
import ServiceLifecycle

/// `serve --health-port`: `GET /health` (and `HEAD`) on a listener of its own, answered on an
/// event loop thread of its own, as an admin port is (Envoy's admin listener, a Kubernetes
/// probe port).
///
/// On the store's port a `/health` request waits for the crowd's round: the same event loops
/// and cooperative pool serve every connection, and with 10,000 busy connections on 2 cores it
/// was answered after 0.57–1.03 s at the median, 2.7 s at most (issue 38, results/crowd.md).
/// Here the answer is written by a channel handler on this listener's own thread from a body
/// built once: no task, no router, no shared queue, no other listener's backlog; in the same 25 s
/// runs 766 probes of 766 were answered, in 25.5 ms at most. The body is the store listener's
/// `/health` body, byte for byte.
package struct HealthListener: Service, Sendable {
    /// The bound port (the one asked for, or the one the kernel picked for 0).
    package let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup

    /// Binds `host:port` (0: a free port) on a new one-thread event loop group, with the
    /// store listener's backlog; answers with `body` until ``run()`` sees a graceful shutdown
    /// or is cancelled, or ``close()``.
    package static func bind(
        host: String,
        port: Int,
        body: ByteBuffer,
        serverName: String,
        idleTimeout: Duration?
    ) async throws -> HealthListener {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let idle = idleTimeout.map { TimeAmount($0) }
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.backlog, value: Int32(StoreServer.listenBacklog))
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        if let idle { try pipeline.addHandler(IdleStateHandler(readTimeout: idle)) }
                        try pipeline.configureHTTPServerPipeline()
                        try pipeline.addHandler(HealthHandler(body: body, serverName: serverName))
                    }
                }
                .bind(host: host, port: port)
                .get()
            return HealthListener(port: channel.localAddress?.port ?? port, channel: channel, group: group)
        } catch {
            try? await group.shutdownGracefully()
            throw BindError(host: host, port: port, underlying: error)
        }
    }

    /// The health listener could not listen (the port taken, the address not local).
    package struct BindError: Error, CustomStringConvertible {
        package var host: String
        package var port: Int
        package var underlying: any Error

        package var description: String {
            "cannot listen for /health on \(host):\(port) (--health-port): \(underlying)"
        }
    }

    /// Serves until a graceful shutdown (SIGINT, SIGTERM in `serve`) or cancellation, then
    /// closes the listener and its thread.
    package func run() async throws {
        try? await gracefulShutdown()
        await close()
    }

    /// Closes the listener and its connections, and stops its thread.
    package func close() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// Answers `GET /health` and `HEAD /health` with the health body, other methods on it with
/// 405, other paths with 404 (JSON error bodies, as the store listener's); keeps the
/// connection open unless the request asks otherwise. Closes a connection idle past the
/// idle timeout.
final class HealthHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let body: ByteBuffer
    private let serverName: String
    private var request: HTTPRequestHead?

    init(body: ByteBuffer, serverName: String) {
        self.body = body
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): request = head
        case .body: break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(to: head, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Server", value: serverName)
        let status: HTTPResponseStatus
        let content: ByteBuffer
        if path != "/health" {
            status = .notFound
            content = ErrorBody(
                code: .notFound,
                message: "no endpoint \(head.method) \(path) on the health port; it answers GET /health only"
            ).encoded()
        } else if head.method != .GET, head.method != .HEAD {
            status = .methodNotAllowed
            headers.add(name: "Allow", value: "GET, HEAD")
            content = ErrorBody(
                code: .invalidParameter,
                message: "\(head.method) is not allowed on /health; use GET or HEAD"
            ).encoded()
        } else {
            status = .ok
            content = body
        }
        headers.add(name: "Content-Length", value: String(content.readableBytes))
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
            promise: nil
        )
        if head.method != .HEAD { context.write(wrapOutboundOut(.body(.byteBuffer(content))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
