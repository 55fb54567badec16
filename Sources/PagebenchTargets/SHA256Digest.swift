import COpenSSL
import Foundation

/// SHA-256 and HMAC-SHA256 through the system's libcrypto (EVP), for SigV4 and the target
/// hash. Pure functions of their input: 32 bytes out.
enum SHA256Digest {
    /// The SHA-256 digest of `bytes`, gathered region by region (no copy of the input).
    static func hash(_ bytes: some DataProtocol) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { fatalError("libcrypto could not allocate a digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { fatalError("libcrypto has no SHA-256") }
        for region in bytes.regions {
            region.withUnsafeBytes { buffer in
                _ = EVP_DigestUpdate(context, buffer.baseAddress, buffer.count)
            }
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return Array(digest.prefix(Int(length)))
    }

    /// HMAC-SHA256 of `message` under `key` (RFC 2104).
    static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { data in
                HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), data.baseAddress, data.count, &digest, &length)
            }
        }
        guard result != nil else { fatalError("libcrypto could not compute HMAC-SHA256") }
        return Array(digest.prefix(Int(length)))
    }
}
