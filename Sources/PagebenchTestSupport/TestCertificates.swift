import Foundation

/// A self-signed certificate for `localhost` and 127.0.0.1 (P-256), its key and an unrelated
/// key, made with the openssl command (Debian package openssl) in a temporary directory, for
/// the HTTPS tests.
package struct TestCertificates: Sendable {
    package let directory: String
    /// The certificate (PEM), its own CA.
    package var certificate: String { directory + "/cert.pem" }
    /// The certificate's private key (PEM).
    package var key: String { directory + "/key.pem" }
    /// A key that does not belong to the certificate (PEM).
    package var otherKey: String { directory + "/other-key.pem" }

    /// Made once per test process.
    package static let shared = Result { try TestCertificates() }

    private init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-tls-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            directory + "/key.pem",
            "-out", directory + "/cert.pem", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
        try Self.openssl([
            "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", directory + "/other-key.pem",
        ])
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CertificateError(
                description: "openssl \(arguments[0]) failed: the openssl command is needed (Debian package openssl)"
            )
        }
    }

    struct CertificateError: Error, CustomStringConvertible {
        let description: String
    }
}
