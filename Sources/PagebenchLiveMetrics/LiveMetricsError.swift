/// A failure of live metrics: the listen address cannot be bound, a flag's value is not one.
public struct LiveMetricsError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public enum Kind: Sendable {
        /// `--metrics-listen` names an address that is not `HOST:PORT` or cannot be bound.
        case cannotListen
        /// `--remote-write` is not an `http://` URL.
        case invalidRemoteWrite
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
