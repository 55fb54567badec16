/// Unpadded, canonical URL-safe base64 (RFC 4648 §5) for the fixed 40-byte token, written
/// and read a word at a time without intermediate arrays.
enum Base64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Maps an ASCII byte to its 6-bit value, or 0xFF when it is not in the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// Two characters for every 12-bit value (little-endian pairs): half the lookups and
    /// one 4-byte store per 3-byte group.
    private static let pairs: [UInt16] = (0..<4096).map { value in
        UInt16(alphabet[value >> 6]) | UInt16(alphabet[value & 63]) << 8
    }

    /// Encodes five little-endian words (40 bytes) as 54 characters.
    static func encode40(_ w0: UInt64, _ w1: UInt64, _ w2: UInt64, _ w3: UInt64, _ w4: UInt64) -> String {
        String(unsafeUninitializedCapacity: PageToken.textCount) { output in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 5) { words in
                words[0] = w0.littleEndian
                words[1] = w1.littleEndian
                words[2] = w2.littleEndian
                words[3] = w3.littleEndian
                words[4] = w4.littleEndian
                let bytes = UnsafeRawBufferPointer(words)
                let out = UnsafeMutableRawPointer(output.baseAddress!)
                pairs.withUnsafeBufferPointer { pairs in
                    var index = 0
                    var position = 0
                    while index < 39 {  // 13 full groups: bytes 0..<39 → characters 0..<52
                        let group =
                            Int(bytes[index]) << 16 | Int(bytes[index &+ 1]) << 8 | Int(bytes[index &+ 2])
                        let quad = UInt32(pairs[group >> 12]) | UInt32(pairs[group & 0xFFF]) << 16
                        out.storeBytes(of: quad.littleEndian, toByteOffset: position, as: UInt32.self)
                        position &+= 4
                        index &+= 3
                    }
                    // One byte left: two characters, the low four bits zero.
                    let last = pairs[Int(bytes[39]) << 4]
                    out.storeBytes(of: last.littleEndian, toByteOffset: 52, as: UInt16.self)
                }
            }
            return PageToken.textCount
        }
    }

    private enum DecodeStatus {
        case ok
        case badLength(Int)
        case badCharacter(index: Int, byte: UInt8)
        case nonCanonical
    }

    /// Decodes 54 characters into five words, rejecting anything else with a reason.
    static func decode40(_ text: String) throws(StoreError) -> (UInt64, UInt64, UInt64, UInt64, UInt64) {
        var text = text  // withUTF8 is mutating; a native string is not copied
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        let status = text.withUTF8 { utf8 in decodeWords(utf8, into: &words) }
        switch status {
        case .ok:
            return words
        case .badLength(let count):
            let hint = count < PageToken.textCount ? "truncated?" : "extra characters?"
            throw .invalidToken("it has \(count) characters where a token has \(PageToken.textCount) (\(hint))")
        case .badCharacter(let index, let byte):
            let shown = byte < 0x80 ? "'\(Character(Unicode.Scalar(byte)))'" : "a non-ASCII byte"
            throw .invalidToken(
                "character \(index + 1) is \(shown), which is not URL-safe base64 (A–Z, a–z, 0–9, '-', '_', no padding)")
        case .nonCanonical:
            throw .invalidToken("its last character is not canonical base64 (altered?)")
        }
    }

    /// The hot path: four characters (three bytes) at a time, one validity check at the end.
    @inline(__always)
    private static func decodeWords(
        _ utf8: UnsafeBufferPointer<UInt8>, into words: inout (UInt64, UInt64, UInt64, UInt64, UInt64)
    ) -> DecodeStatus {
        guard utf8.count == PageToken.textCount else { return .badLength(utf8.count) }
        return values.withUnsafeBufferPointer { table in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 5) { buffer in
                let bytes = UnsafeMutableRawBufferPointer(buffer)
                var invalid: UInt8 = 0
                var input = 0
                var output = 0
                while output < 39 {  // 13 groups of 4 characters → 39 bytes
                    let a = table[Int(utf8[input])]
                    let b = table[Int(utf8[input + 1])]
                    let c = table[Int(utf8[input + 2])]
                    let d = table[Int(utf8[input + 3])]
                    invalid |= a | b | c | d
                    let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    bytes[output] = UInt8(truncatingIfNeeded: group >> 16)
                    bytes[output + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    bytes[output + 2] = UInt8(truncatingIfNeeded: group)
                    input += 4
                    output += 3
                }
                let a = table[Int(utf8[52])]
                let b = table[Int(utf8[53])]
                invalid |= a | b
                if invalid & 0xC0 != 0 {  // only 0xFF (not in the alphabet) has these bits
                    let index = utf8.firstIndex { table[Int($0)] == 0xFF } ?? 0
                    return .badCharacter(index: index, byte: utf8[index])
                }
                // 54 = 13·4 + 2: the last two characters carry 12 bits, of which 8 are the final byte.
                if b & 0xF != 0 { return .nonCanonical }
                bytes[39] = a << 2 | b >> 4
                words = (
                    UInt64(littleEndian: buffer[0]), UInt64(littleEndian: buffer[1]), UInt64(littleEndian: buffer[2]),
                    UInt64(littleEndian: buffer[3]), UInt64(littleEndian: buffer[4])
                )
                return .ok
            }
        }
    }
}
