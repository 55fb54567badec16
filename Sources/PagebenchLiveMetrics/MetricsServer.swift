import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// `--metrics-listen HOST:PORT`: serves `GET /metrics` (``MetricsExposition``, negotiated by
/// `Accept`) on one SwiftNIO event-loop thread of its own, so that a scrape never runs on the
/// pagers' threads; reading the metrics takes their lock only to copy the values.
///
/// Bounded against slow or hostile clients (docs/live-metrics.md): at most
/// ``Limits/connections`` connections (more are closed as they are accepted), at most
/// ``Limits/requestBytes`` bytes read per connection (a larger request is answered 431 and
/// closed), one request per connection (`Connection: close`), and every connection closed
/// ``Limits/connectionSeconds`` after it was accepted, whatever it sent (slowloris). Memory is
/// therefore bounded by connections × request bytes plus one exposition per answer.
package final class MetricsServer: Sendable {
    /// The bounds on clients.
    package struct Limits: Sendable {
        /// Connections open at once.
        package var connections = 64
        /// Bytes a connection may send (its request line and headers; a body is refused).
        package var requestBytes = 16 * 1024
        /// Seconds from accepting a connection to closing it.
        package var connectionSeconds: Int64 = 10

        package init() {}
    }

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let connections: ConnectionCount
    /// The address bound (its port, when 0 was asked for).
    package let host: String
    package let port: Int

    /// Binds `host:port` and starts serving `metrics`.
    ///
    /// - Throws: ``LiveMetricsError`` when the address cannot be bound.
    package init(
        host: String,
        port: Int,
        metrics: LiveMetrics,
        limits: Limits = Limits()
    ) async throws(LiveMetricsError) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connections = ConnectionCount()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 4)
            .childChannelInitializer { channel in
                guard connections.open(limit: limits.connections) else {
                    return channel.close()
                }
                channel.closeFuture.whenComplete { _ in connections.close() }
                // Whatever it sends or does not send, the connection ends.
                let deadline = channel.eventLoop.scheduleTask(in: .seconds(limits.connectionSeconds)) {
                    channel.close(promise: nil)
                }
                channel.closeFuture.whenComplete { _ in deadline.cancel() }
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(RequestSizeLimit(limit: limits.requestBytes))
                    try sync.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
                    try sync.addHandler(ScrapeHandler(metrics: metrics))
                }
            }
        do {
            channel = try await bootstrap.bind(host: host, port: port).get()
        } catch {
            try? await group.shutdownGracefully()
            throw LiveMetricsError(.cannotListen, "--metrics-listen \(host):\(port): cannot listen there (\(error))")
        }
        self.group = group
        self.connections = connections
        self.host = host
        self.port = channel.localAddress?.port ?? port
    }

    /// Connections open now.
    package var openConnections: Int { connections.count }

    /// Stops listening and closes every connection.
    package func shutdown() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// The open connections, counted against the limit.
final class ConnectionCount: Sendable {
    private let value = Atomic<Int>(0)

    var count: Int { value.load(ordering: .relaxed) }

    /// Counts a new connection; false (and not counted) when `limit` are open.
    func open(limit: Int) -> Bool {
        var current = value.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = value.compareExchange(
                expected: current,
                desired: current + 1,
                ordering: .relaxed
            )
            if exchanged { return true }
            current = original
        }
        return false
    }

    func close() {
        value.subtract(1, ordering: .relaxed)
    }
}

/// Closes a connection that sends more than `limit` bytes, answering 431 first.
final class RequestSizeLimit: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let limit: Int
    private var received = 0
    private var refused = false

    init(limit: Int) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let buffer = unwrapInboundIn(data)
        received += buffer.readableBytes
        guard received <= limit else {
            refused = true
            var answer = context.channel.allocator.buffer(capacity: 128)
            answer.writeString(
                "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            let channel = context.channel
            context.writeAndFlush(NIOAny(answer)).whenComplete { _ in channel.close(promise: nil) }
            return
        }
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension RequestSizeLimit: Sendable {}

/// Answers one request: `GET /metrics` (or `HEAD`) with the exposition, anything else 404 or
/// 405; then closes.
final class ScrapeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let metrics: LiveMetrics
    private var head: HTTPRequestHead?
    private var answered = false

    init(metrics: LiveMetrics) {
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            // A scrape has no body; it counts against the request size limit only.
            break
        case .end:
            guard let head, !answered else { return }
            answered = true
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        var status = HTTPResponseStatus.ok
        var contentType = "text/plain; charset=utf-8"
        var body = ""
        var headers = HTTPHeaders()
        if path != "/metrics" {
            status = .notFound
            body = "pagebench serves only /metrics\n"
        } else if head.method != .GET && head.method != .HEAD {
            status = .methodNotAllowed
            headers.add(name: "Allow", value: "GET, HEAD")
            body = "GET /metrics\n"
        } else {
            let format = MetricsExposition.negotiated(accept: head.headers.first(name: "accept"))
            contentType = format.contentType
            body = format.render(metrics.families())
        }
        var buffer = context.channel.allocator.buffer(capacity: body.utf8.count)
        buffer.writeString(body)
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(buffer.readableBytes))
        headers.add(name: "Connection", value: "close")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil
        )
        if head.method != .HEAD { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

@available(*, unavailable)
extension ScrapeHandler: Sendable {}
