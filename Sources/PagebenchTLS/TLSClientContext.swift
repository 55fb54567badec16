import NIOCore

/// The client side of TLS for one way of verifying servers, on the system's OpenSSL: a
/// ``TLSHandler`` per connection, made with ``makeHandler(serverHostname:on:)`` on the
/// connection's event loop.
package final class TLSClientContext: Sendable {
    /// How the server's certificate is checked.
    package enum Verification: Sendable, Hashable {
        /// Against the system's trusted certificates (OpenSSL's default paths), and the
        /// host name.
        case systemTrustStore
        /// Against the PEM certificates of this file only, and the host name.
        case caFile(String)
        /// Not at all: any certificate, any host name (self-signed test servers only).
        case none
    }

    package let verification: Verification
    private let contexts: PerLoopContexts

    /// Sets up TLS for connections on the loops of `group`.
    ///
    /// - Throws: ``TLSError`` when the CA file holds no PEM certificate (or the system's
    ///   trust store cannot be read).
    package init(verification: Verification, group: any EventLoopGroup) throws(TLSError) {
        self.verification = verification
        contexts = try PerLoopContexts(group: group) { () throws(TLSError) in try OpenSSLContext.client(verification) }
    }

    /// A handler for one connection on `eventLoop`, to put first in its pipeline; call on
    /// that loop.
    ///
    /// - Parameter serverHostname: the name the certificate must be valid for, also sent as
    ///   SNI; an IP address is checked against the certificate's IP addresses instead (and
    ///   sent as no SNI).
    package func makeHandler(serverHostname: String, on eventLoop: any EventLoop) throws(TLSError) -> TLSHandler {
        try TLSHandler(
            context: contexts.context(on: eventLoop),
            role: .client(serverHostname: serverHostname),
            verifiesPeer: verification != .none
        )
    }
}
