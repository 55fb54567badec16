/// A failure of live metrics: the listen address cannot be bound, a flag's value is not one.
package struct LiveMetricsError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    package enum Kind: Sendable {
        /// `--metrics-listen` names an address that is not `HOST:PORT` or cannot be bound.
        case cannotListen
        /// `--remote-write` is not an `http://` URL.
        case invalidRemoteWrite
    }

    package let kind: Kind
    package let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }
}
