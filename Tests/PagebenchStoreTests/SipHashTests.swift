import PagebenchBase
import Testing

@testable import PagebenchStore

@Suite struct SipHashTests {
    /// Key 00 01 … 0f, as in the reference implementation's test vectors.
    let key = SipHash24(keyBytes: Array(0..<16))
    let key13 = SipHash13(keyBytes: Array(0..<16))

    @Test func referenceVectorsOfThePaper() {
        // vectors.h of the SipHash reference code: message = 00 01 … (len − 1).
        #expect(key.mac([UInt8]()) == 0x726F_DB47_DD0E_0E31)
        #expect(key.mac([UInt8(0)]) == 0x74F8_39C5_93DC_67FD)
        #expect(key.mac(Array(UInt8(0)..<8)) == 0x93F5_F579_9A93_2462)
        #expect(key.mac(Array(UInt8(0)..<15)) == 0xA129_CA61_49BE_45E5)
    }

    @Test func sipHash13ReferenceVectors() {
        // SipHash-1-3 under the same key and messages (the vectors Rust's `core::hash::sip`
        // tests use: message = 00 01 … (len − 1), outputs read little-endian).
        #expect(key13.mac([UInt8]()) == 0xABAC_0158_050F_C4DC)
        #expect(key13.mac([UInt8(0)]) == 0xC9F4_9BF3_7D57_CA93)
        #expect(key13.mac(Array(UInt8(0)..<8)) == 0x3690_9511_8D29_9A8E)
        #expect(key13.mac(Array(UInt8(0)..<15)) == 0xD320_D86D_2A51_9956)
        // An all-zero key and an ASCII message (the digest crate's sip_hash vectors).
        #expect(SipHash13(k0: 0, k1: 0).mac(Array("siphash".utf8)) == 0x8264_CEEC_CB16_BCBE)
        #expect(SipHash13(k0: 0, k1: 0).mac([UInt8]()) == 0xD1FB_A762_150C_532C)
    }

    @Test func wordFormEqualsByteForm() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let words = (0..<4).map { _ in generator.next() }
            var bytes: [UInt8] = []
            for word in words {
                for shift in stride(from: 0, to: 64, by: 8) {
                    bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
                }
            }
            #expect(key.mac(words[0], words[1], words[2], words[3]) == key.mac(bytes))
            #expect(key13.mac(words[0], words[1], words[2], words[3]) == key13.mac(bytes))
            // Finishing from the three-word prefix is the same MAC (the token hot path).
            #expect(SipHash13.mac(key13.prefix(words[0], words[1], words[2]), words[3]) == key13.mac(bytes))
        }
    }

    @Test func differentKeysGiveDifferentMACs() {
        let other = SipHash24(k0: key.k0 ^ 1, k1: key.k1)
        #expect(key.mac(1, 2, 3, 4) != other.mac(1, 2, 3, 4))
        let other13 = SipHash13(k0: key13.k0, k1: key13.k1 ^ 1)
        #expect(key13.mac(1, 2, 3, 4) != other13.mac(1, 2, 3, 4))
    }
}
