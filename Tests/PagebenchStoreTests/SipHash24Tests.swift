import Testing

@testable import PagebenchStore

@Suite struct SipHash24Tests {
    /// Key 00 01 … 0f, as in the reference implementation's test vectors.
    let key = SipHash24(keyBytes: Array(0..<16))

    @Test func referenceVectorsOfThePaper() {
        // vectors.h of the SipHash reference code: message = 00 01 … (len − 1).
        #expect(key.mac([UInt8]()) == 0x726F_DB47_DD0E_0E31)
        #expect(key.mac([UInt8(0)]) == 0x74F8_39C5_93DC_67FD)
        #expect(key.mac(Array(UInt8(0)..<8)) == 0x93F5_F579_9A93_2462)
        #expect(key.mac(Array(UInt8(0)..<15)) == 0xA129_CA61_49BE_45E5)
    }

    @Test func wordFormEqualsByteForm() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let words = (0..<4).map { _ in generator.next() }
            var bytes: [UInt8] = []
            for word in words { for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) } }
            #expect(key.mac(words[0], words[1], words[2], words[3]) == key.mac(bytes))
        }
    }

    @Test func differentKeysGiveDifferentMACs() {
        let other = SipHash24(k0: key.k0 ^ 1, k1: key.k1)
        #expect(key.mac(1, 2, 3, 4) != other.mac(1, 2, 3, 4))
    }
}
