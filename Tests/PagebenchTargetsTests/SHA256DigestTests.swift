import Foundation
import Testing

@testable import PagebenchTargets

/// SHA-256 and HMAC-SHA256 on the system's libcrypto against published vectors (FIPS 180-2,
/// RFC 4231), and a digest of several regions equal to the digest of their bytes joined.
@Suite struct SHA256DigestTests {
    @Test func sha256MatchesFIPS180Vectors() {
        #expect(
            SigV4Signer.hex(SHA256Digest.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
        #expect(
            SigV4Signer.hex(SHA256Digest.hash([UInt8]()))
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
    }

    @Test func aDigestOverSeveralRegionsIsTheDigestOfTheirBytes() {
        var split = DispatchData.empty
        for part in ["abcdbcdecdefdefgefghfghighijhi", "jkijkljklmklmnlmnomnopnopq"] {
            Array(part.utf8).withUnsafeBytes { split.append(DispatchData(bytes: $0)) }
        }
        #expect(Array(split.regions).count == 2)
        #expect(
            SigV4Signer.hex(SHA256Digest.hash(split))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        )
    }

    @Test func hmacMatchesRFC4231TestCase2() {
        let mac = SHA256Digest.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(SigV4Signer.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
