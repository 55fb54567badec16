import HummingbirdTLS
import NIOSSL

/// The PEM certificate chain and private key `pagebench serve --tls-cert --tls-key` serves
/// HTTPS with (HummingbirdTLS, swift-nio-ssl).
public struct TLSFiles: Sendable, Hashable {
    public var certificateFile: String
    public var keyFile: String

    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    /// The server's TLS configuration.
    ///
    /// - Throws: swift-nio-ssl's error when a file is missing or not PEM.
    func configuration() throws -> TLSConfiguration {
        let chain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { NIOSSLCertificateSource.certificate($0) }
        let key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
    }

    /// Checks that both files load, so that `serve` fails before it binds.
    public func check() throws {
        _ = try configuration()
    }
}
