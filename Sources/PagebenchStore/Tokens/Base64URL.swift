/// Unpadded, canonical URL-safe base64 (RFC 4648 §5) for the fixed 40-byte token, computed
/// in registers: eight characters are 48 bits, so the 40 bytes (five little-endian words)
/// are cut into six 48-bit chunks and one 32-bit tail (six characters, the last four bits
/// zero) with shifts and masks, without an intermediate byte buffer.
enum Base64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8
    )

    /// Maps an ASCII byte to its 6-bit value, or 0xFF when it is not in the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// Four decode tables of 256 entries, one per character position in a group of four:
    /// entry `256·k + byte` is the byte's 6-bit value shifted to its place in the group's 24
    /// bits (`value << (18 − 6k)`), or `invalidBits` when the byte is not in the alphabet.
    /// A group is the OR of four lookups.
    private static let placedValues: [UInt32] = (0..<1024).map { entry in
        let value = values[entry & 0xFF]
        return value == 0xFF ? invalidBits : UInt32(value) << UInt32(18 - 6 * (entry >> 8))
    }

    /// Set in a decode-table entry for a byte outside the alphabet; no value reaches these bits.
    private static let invalidBits: UInt32 = 0xFF00_0000

    /// Two characters for every 12-bit value (the first character in the low byte): half the
    /// lookups, and one 8-byte store per eight characters.
    private static let pairs: [UInt16] = (0..<4096).map { value in
        UInt16(alphabet[value >> 6]) | UInt16(alphabet[value & 63]) << 8
    }

    /// Encodes five little-endian words (40 bytes) as 54 characters.
    static func encode40(_ w0: UInt64, _ w1: UInt64, _ w2: UInt64, _ w3: UInt64, _ w4: UInt64) -> String {
        // Base64 reads the bytes most significant bit first: byte 0 of the little-endian
        // word is the top byte of its big-endian value.
        let b0 = w0.byteSwapped
        let b1 = w1.byteSwapped
        let b2 = w2.byteSwapped
        let b3 = w3.byteSwapped
        let b4 = w4.byteSwapped
        return pairs.withUnsafeBufferPointer { pairs in
            String(unsafeUninitializedCapacity: PageToken.textCount) { output in
                let out = UnsafeMutableRawPointer(output.baseAddress!)
                @inline(__always)
                func characters(_ chunk: UInt64) -> UInt64 {  // 48 bits → 8 characters
                    UInt64(pairs[Int(truncatingIfNeeded: chunk >> 36)])
                        | UInt64(pairs[Int(truncatingIfNeeded: (chunk >> 24) & 0xFFF)]) << 16
                        | UInt64(pairs[Int(truncatingIfNeeded: (chunk >> 12) & 0xFFF)]) << 32
                        | UInt64(pairs[Int(truncatingIfNeeded: chunk & 0xFFF)]) << 48
                }
                @inline(__always)
                func store(_ chunk: UInt64, at offset: Int) {
                    out.storeBytes(of: characters(chunk).littleEndian, toByteOffset: offset, as: UInt64.self)
                }
                store(b0 >> 16, at: 0)
                store((b0 & 0xFFFF) << 32 | b1 >> 32, at: 8)
                store((b1 & 0xFFFF_FFFF) << 16 | b2 >> 48, at: 16)
                store(b2 & 0xFFFF_FFFF_FFFF, at: 24)
                store(b3 >> 16, at: 32)
                store((b3 & 0xFFFF) << 32 | b4 >> 32, at: 40)
                // The last 32 bits, padded with four zero bits to 36: six characters.
                let tail = characters((b4 & 0xFFFF_FFFF) << 16)
                out.storeBytes(of: UInt32(truncatingIfNeeded: tail).littleEndian, toByteOffset: 48, as: UInt32.self)
                out.storeBytes(
                    of: UInt16(truncatingIfNeeded: tail >> 32).littleEndian,
                    toByteOffset: 52,
                    as: UInt16.self
                )
                return PageToken.textCount
            }
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
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        let status: DecodeStatus
        if let fast = text.utf8.withContiguousStorageIfAvailable({ decodeWords($0, into: &words) }) {
            status = fast
        } else {  // a bridged or otherwise non-contiguous string
            status = Array(text.utf8).withUnsafeBufferPointer { decodeWords($0, into: &words) }
        }
        switch status {
        case .ok:
            return words
        case .badLength(let count):
            let hint = count < PageToken.textCount ? "truncated?" : "extra characters?"
            throw .invalidToken("it has \(count) characters where a token has \(PageToken.textCount) (\(hint))")
        case .badCharacter(let index, let byte):
            let shown = byte < 0x80 ? "'\(Character(Unicode.Scalar(byte)))'" : "a non-ASCII byte"
            throw .invalidToken(
                "character \(index + 1) is \(shown), which is not URL-safe base64 (A–Z, a–z, 0–9, '-', '_', no padding)"
            )
        case .nonCanonical:
            throw .invalidToken("its last character is not canonical base64 (altered?)")
        }
    }

    /// Four characters from `input + start` as 24 bits (plus ``invalidBits`` when one of
    /// them is not in the alphabet).
    @inline(__always)
    private static func group(_ input: UnsafePointer<UInt8>, _ start: Int, _ table: UnsafePointer<UInt32>) -> UInt32 {
        table[Int(input[start])] | table[256 &+ Int(input[start &+ 1])]
            | table[512 &+ Int(input[start &+ 2])] | table[768 &+ Int(input[start &+ 3])]
    }

    /// The hot path: four characters (24 bits) per group, one validity check at the end.
    @inline(__always)
    private static func decodeWords(
        _ utf8: UnsafeBufferPointer<UInt8>,
        into words: inout (UInt64, UInt64, UInt64, UInt64, UInt64)
    ) -> DecodeStatus {
        guard utf8.count == PageToken.textCount, let input = utf8.baseAddress else { return .badLength(utf8.count) }
        return placedValues.withUnsafeBufferPointer { buffer in
            let table = buffer.baseAddress!
            let g0 = group(input, 0, table)
            let g1 = group(input, 4, table)
            let g2 = group(input, 8, table)
            let g3 = group(input, 12, table)
            let g4 = group(input, 16, table)
            let g5 = group(input, 20, table)
            let g6 = group(input, 24, table)
            let g7 = group(input, 28, table)
            let g8 = group(input, 32, table)
            let g9 = group(input, 36, table)
            let g10 = group(input, 40, table)
            let g11 = group(input, 44, table)
            let g12 = group(input, 48, table)
            // The last two characters: 12 bits, of which the low four must be zero.
            let g13 = table[512 &+ Int(input[52])] | table[768 &+ Int(input[53])]
            let check = (g0 | g1 | g2 | g3) | (g4 | g5 | g6 | g7) | (g8 | g9 | g10 | g11) | (g12 | g13)
            if check & invalidBits != 0 {
                let index = utf8.firstIndex { values[Int($0)] == 0xFF } ?? 0
                return .badCharacter(index: index, byte: utf8[index])
            }
            if g13 & 0xF != 0 { return .nonCanonical }
            // 48-bit chunks of eight characters, then the big-endian 64-bit values of bytes
            // 0–7, 8–15, …, byte-swapped to the little-endian words.
            @inline(__always) func chunk(_ high: UInt32, _ low: UInt32) -> UInt64 { UInt64(high) << 24 | UInt64(low) }
            let c0 = chunk(g0, g1)
            let c1 = chunk(g2, g3)
            let c2 = chunk(g4, g5)
            let c3 = chunk(g6, g7)
            let c4 = chunk(g8, g9)
            let c5 = chunk(g10, g11)
            let tail = UInt64(g12) << 12 | UInt64(g13)  // 36 bits, the low four zero
            let b0 = c0 << 16 | c1 >> 32
            let b1 = (c1 & 0xFFFF_FFFF) << 32 | c2 >> 16
            let b2 = (c2 & 0xFFFF) << 48 | c3
            let b3 = c4 << 16 | c5 >> 32
            let b4 = (c5 & 0xFFFF_FFFF) << 32 | tail >> 4
            words = (b0.byteSwapped, b1.byteSwapped, b2.byteSwapped, b3.byteSwapped, b4.byteSwapped)
            return .ok
        }
    }
}
