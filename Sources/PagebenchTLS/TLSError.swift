/// Why TLS failed: a context that could not be set up from its files, a handshake that
/// failed (the peer's certificate not trusted, not for the host name, not a TLS peer), a
/// record the peer sent that did not decrypt, or a connection closed without the TLS
/// close_notify alert (so what arrived may be cut short).
package struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case configuration
        case handshake
        case certificate
        case record
        case uncleanShutdown
    }

    private let code: Code
    /// What went wrong, in words (OpenSSL's reason included).
    package let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    /// Whether the peer's certificate was refused (not trusted, expired, not for the host name).
    package var isCertificateRefused: Bool { code == .certificate }

    /// Whether the peer closed the connection without close_notify after the handshake:
    /// the bytes received may be a truncated stream, though nothing was forged.
    package var isUncleanShutdown: Bool { code == .uncleanShutdown }

    /// A certificate, key or CA file that could not be used.
    static func configuration(_ message: String) -> TLSError { TLSError(.configuration, message) }

    /// The handshake failed for a reason other than the peer's certificate.
    static func handshake(_ reason: String) -> TLSError { TLSError(.handshake, "handshake failed: \(reason)") }

    /// The peer's certificate was refused (X509_verify_cert_error_string's reason).
    static func certificate(_ reason: String) -> TLSError {
        TLSError(.certificate, "certificate verify failed: \(reason)")
    }

    /// A record after the handshake could not be read or written.
    static func record(_ reason: String) -> TLSError { TLSError(.record, "TLS record failed: \(reason)") }

    static let uncleanShutdown = TLSError(
        .uncleanShutdown,
        "the peer closed the connection without a TLS close_notify (what it sent may be cut short)"
    )
}
