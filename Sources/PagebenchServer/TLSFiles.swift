import NIOCore
import NIOPosix
import PagebenchTLS

/// The PEM certificate chain and private key `pagebench serve --tls-cert --tls-key` serves
/// HTTPS with (PagebenchTLS, the system's OpenSSL).
package struct TLSFiles: Sendable, Hashable {
    package var certificateFile: String
    package var keyFile: String

    package init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    /// The server's TLS context on the loops of `group` (the server's).
    ///
    /// - Throws: ``TLSError`` when a file is not PEM or the key does not belong to the certificate.
    func context(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) throws(TLSError) -> TLSServerContext
    {
        try TLSServerContext(certificateChainFile: certificateFile, keyFile: keyFile, group: group)
    }

    /// Checks that both files load and belong together, so that `serve` fails before it binds.
    package func check() throws {
        _ = try context()
    }
}
