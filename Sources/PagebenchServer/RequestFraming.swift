import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import PagebenchWire

/// Where one request ends and the connection's next begins, decided before Hummingbird
/// sees the request (it sees no HTTP version, and closes only on `Connection: close`
/// spelled in lower case):
///
/// - A request that does not keep the connection alive (HTTP/1.0 without `keep-alive`,
///   `Connection: close` in any case) is passed on with `connection: close`, so that its
///   answer closes the connection; whatever the client sent after it (another request in
///   the same write) is ignored, not answered with a 400 that could overtake the answer.
/// - CONNECT (the server is no proxy) is answered here with a 400 and the JSON error body,
///   with its length, and the connection closed: the parser would otherwise take everything
///   after it for a tunnel's bytes.
///
/// Sits right after NIOHTTP1's request decoder (``FramedHTTP1Channel``).
final class RequestFraming: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private enum State {
        /// Requests pass on.
        case open
        /// The current request is the connection's last: its parts pass on, nothing after.
        case lastRequest
        /// The last request has ended, or a CONNECT was answered: nothing more passes on.
        case done
    }

    private var state = State.open

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch (state, part) {
        case (.done, _):
            return
        case (.open, .head(var head)):
            if head.method == .CONNECT {
                state = .done
                refuseConnect(context: context)
                return
            }
            if !head.isKeepAlive {
                state = .lastRequest
                head.headers.replaceOrAdd(name: "connection", value: "close")
            }
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case (.lastRequest, .end):
            state = .done
            context.fireChannelRead(data)
        case (.open, _), (.lastRequest, _):
            context.fireChannelRead(data)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The parser's complaint about bytes after the connection's last request (llhttp:
        // "data after Connection: close"): they are not answered; the connection closes
        // after the last answer. A malformed last request itself is answered as any other.
        if case .done = state, error is HTTPParserError { return }
        context.fireErrorCaught(error)
    }

    private func refuseConnect(context: ChannelHandlerContext) {
        let body = ErrorBody(code: .invalidParameter, message: "CONNECT is not served: pagebench serve is not a proxy")
            .encoded()
        var response = ByteBuffer(
            string:
                "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: \(body.readableBytes)\r\n"
                + "connection: close\r\n\r\n"
        )
        response.writeImmutableBuffer(body)
        // Written below NIOHTTP1's response encoder, which frames every answer to CONNECT as
        // the body-less switch to a tunnel (a 2xx's framing) and would drop the length.
        let channel = context.channel
        let below = (try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)) ?? context
        below.writeAndFlush(NIOAny(response)).whenComplete { _ in channel.close(promise: nil) }
    }
}

@available(*, unavailable)
extension RequestFraming: Sendable {}

/// Hummingbird's HTTP/1.1 channel with ``RequestFraming`` right after its request decoder.
struct FramedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(RequestFraming(), position: .after(decoder.handler))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// How ``StoreListener`` sets up and handles each accepted connection: plain HTTP/1.1, or
/// HTTPS around it, answering with the responder.
struct ConnectionSetup: Sendable {
    let make: @Sendable (@escaping HTTPChannelHandler.Responder) -> any ServerChildChannel

    /// HTTP/1.1 with `configuration` and ``RequestFraming``.
    static func framedHTTP1(configuration: HTTP1Channel.Configuration) -> ConnectionSetup {
        ConnectionSetup { responder in
            FramedHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: configuration))
        }
    }
}
