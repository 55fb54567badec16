import NIOCore

/// The server side of TLS with one certificate chain and key, on the system's OpenSSL: a
/// ``TLSHandler`` per accepted connection, made with ``makeHandler(on:)`` on its event loop.
/// Clients are not asked for certificates.
package final class TLSServerContext: Sendable {
    package let certificateChainFile: String
    package let keyFile: String
    /// How long a connection may take to complete its handshake before it is closed (a
    /// client that connects and sends nothing, or trickles its handshake, does not hold a
    /// connection for ever). Nil: as long as it takes.
    package let handshakeTimeout: Duration?
    private let contexts: PerLoopContexts

    /// Loads the PEM certificate chain (leaf first) and its PEM private key for the loops of
    /// `group`.
    ///
    /// - Throws: ``TLSError`` for a file that is not PEM, or a key that does not belong to
    ///   the certificate.
    package init(
        certificateChainFile: String,
        keyFile: String,
        handshakeTimeout: Duration? = .seconds(10),
        group: any EventLoopGroup
    ) throws(TLSError) {
        self.certificateChainFile = certificateChainFile
        self.keyFile = keyFile
        self.handshakeTimeout = handshakeTimeout
        contexts = try PerLoopContexts(group: group) { () throws(TLSError) in
            try OpenSSLContext.server(certificateChainFile: certificateChainFile, keyFile: keyFile)
        }
    }

    /// A handler for one accepted connection on `eventLoop`, to put first in its pipeline;
    /// call on that loop.
    package func makeHandler(on eventLoop: any EventLoop) throws(TLSError) -> TLSHandler {
        try TLSHandler(
            context: contexts.context(on: eventLoop),
            role: .server,
            verifiesPeer: false,
            handshakeTimeout: handshakeTimeout.map { TimeAmount($0) }
        )
    }
}
