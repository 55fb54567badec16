import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import PagebenchWire

/// Answers a request NIOHTTP1 could not parse with `400` and the JSON error body every
/// other error has (``ErrorBody``), then closes the connection. Hummingbird would answer
/// an empty 400; this handler sits after the HTTP codec, sees the parser's error first,
/// and does not pass it on.
final class ParseErrorResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private var answered = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        let body = ErrorBody(code: .invalidParameter, message: "malformed HTTP request: \(parseError)").encoded()
        let head = HTTPResponse(
            status: .badRequest,
            headerFields: [
                .contentType: "application/json", .connection: "close", .contentLength: String(body.readableBytes),
            ]
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

@available(*, unavailable)
extension ParseErrorResponder: Sendable {}
