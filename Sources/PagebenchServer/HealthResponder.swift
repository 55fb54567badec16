import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `GET /health` and `HEAD /health` on the store's port from the connection's event
/// loop, as soon as the request has been read, when no other request of the connection is
/// in progress (so answers stay in request order): no task, no router, no turn on the
/// cooperative pool, which slow requests can hold (W8). Every other request, and a `/health`
/// that follows a request still in progress, passes on to the router, which answers the same.
///
/// It does not make `/health` prompt under every load: with 10,000 busy connections on 2 cores
/// the event loops are as busy as the pool, and the answer waits for their round (0.57–1.03 s
/// at the median, against 0.87–0.96 s from the router; results/crowd.md). Probes that must not
/// wait behind the load ask ``HealthListener`` (`serve --health-port`).
///
/// Sits after the HTTP codec and ``RequestFraming`` (which marks a connection's last request
/// with `connection: close`); the answer closes such a connection once written.
final class HealthResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let body: ByteBuffer
    private let serverName: String
    private let dates: HTTPDateCache
    /// Requests passed on whose response has not ended yet.
    private var inProgress = 0
    /// The `/health` request being read, answered at its end.
    private var answering: HTTPRequest?

    init(body: ByteBuffer, serverName: String, dates: HTTPDateCache) {
        self.body = body
        self.serverName = serverName
        self.dates = dates
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if inProgress == 0, Self.isHealth(request) {
                answering = request
                return
            }
            inProgress += 1
        case .body:
            if answering != nil { return }
        case .end:
            if let request = answering {
                answering = nil
                respond(to: request, context: context)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { inProgress = max(0, inProgress - 1) }
        context.write(data, promise: promise)
    }

    /// `GET` or `HEAD` of `/health` (any query: the router's route ignores it too).
    static func isHealth(_ request: HTTPRequest) -> Bool {
        guard request.method == .get || request.method == .head, let path = request.path else { return false }
        return path == "/health" || path.hasPrefix("/health?")
    }

    private func respond(to request: HTTPRequest, context: ChannelHandlerContext) {
        let close = request.headerFields[.connection].map { $0.lowercased().contains("close") } ?? false
        var fields: HTTPFields = [
            .contentType: "application/json",
            .contentLength: String(body.readableBytes),
            .date: dates.now(),
            .server: serverName,
        ]
        if close { fields[.connection] = "close" }
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .ok, headerFields: fields))), promise: nil)
        if request.method != .head { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if close { channel.close(promise: nil) }
        }
    }
}

@available(*, unavailable)
extension HealthResponder: Sendable {}
