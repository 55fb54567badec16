import COpenSSL
import Foundation

/// Where OpenSSL finds the system's trusted certificates.
enum SystemTrustStore {
    /// Whether the system's trust store can be read by subject hash from its certificate
    /// directory (`$SSL_CERT_DIR`, else OpenSSL's default: `/usr/lib/ssl/certs` →
    /// `/etc/ssl/certs` on Debian), which holds `HASH.0` links, and no `$SSL_CERT_FILE` asks
    /// for a bundle instead.
    static let hasHashedDirectory: Bool = {
        let environment = ProcessInfo.processInfo.environment
        if environment[String(cString: X509_get_default_cert_file_env())] != nil { return false }
        let directory =
            environment[String(cString: X509_get_default_cert_dir_env())]
            ?? String(cString: X509_get_default_cert_dir())
        // A directory list (SSL_CERT_DIR=a:b) is OpenSSL's to search; any hashed entry in the first will do.
        let first = String(directory.split(separator: ":").first ?? "")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: first) else { return false }
        return names.contains { name in
            let parts = name.split(separator: ".")
            return parts.count == 2 && parts[0].count == 8 && parts[0].allSatisfy(\.isHexDigit)
                && parts[1].allSatisfy(\.isNumber)
        }
    }()
}
