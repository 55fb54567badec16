import HummingbirdCore
import Logging
import NIOCore
import PagebenchTLS

/// A Hummingbird child channel with TLS first: each accepted connection gets a
/// ``TLSHandler`` from `context` at the front of its pipeline, then `base` sets up the rest
/// (HTTP/1.1) and handles it.
struct TLSServerChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let context: TLSServerContext

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(context.makeHandler(on: channel.eventLoop))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension ConnectionSetup {
    /// HTTP/1.1 with `configuration` and ``RequestFraming``, inside TLS with `context`.
    static func tls(http1 configuration: HTTP1Channel.Configuration, context: TLSServerContext) -> ConnectionSetup {
        ConnectionSetup { responder in
            TLSServerChildChannel(
                base: FramedHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: configuration)),
                context: context
            )
        }
    }
}
