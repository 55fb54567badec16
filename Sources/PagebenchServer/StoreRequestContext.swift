import NIOCore

/// What a route handler of ``StoreServer`` gets beside the request: the connection's
/// channel, so that a request whose client has gone away stops waiting out its injected
/// service time (S20), and the `:name` parts of its route's path.
package struct StoreRequestContext: Sendable {
    /// The connection the request arrived on.
    package let channel: any Channel
    /// The route's path parameters (`/partitions/:partition/items`).
    package internal(set) var parameters = RouteParameters()

    package init(channel: any Channel) {
        self.channel = channel
    }
}
