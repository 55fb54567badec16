public import Hummingbird
public import NIOCore

/// The request context of ``StoreServer``: Hummingbird's basics plus the connection's
/// channel, so that a request whose client has gone away stops waiting out its injected
/// service time (S20).
public struct StoreRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
