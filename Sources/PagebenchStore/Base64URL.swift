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
                alphabet.withUnsafeBufferPointer { alphabet in
                    var out = 0
                    var index = 0
                    while index + 3 <= 39 {  // 13 full groups: bytes 0..<39
                        let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                        output[out] = alphabet[Int(group >> 18)]
                        output[out + 1] = alphabet[Int((group >> 12) & 63)]
                        output[out + 2] = alphabet[Int((group >> 6) & 63)]
                        output[out + 3] = alphabet[Int(group & 63)]
                        out += 4
                        index += 3
                    }
                    let last = UInt32(bytes[39]) << 16  // one byte left: two characters
                    output[out] = alphabet[Int(last >> 18)]
                    output[out + 1] = alphabet[Int((last >> 12) & 63)]
                }
            }
            return PageToken.textCount
        }
    }

    /// Decodes 54 characters into five words, rejecting anything else with a reason.
    static func decode40(_ text: String) throws(StoreError) -> (UInt64, UInt64, UInt64, UInt64, UInt64) {
        var text = text
        let result: Result<(UInt64, UInt64, UInt64, UInt64, UInt64), StoreError> = text.withUTF8 { utf8 in
            decode40(utf8)
        }
        return try result.get()
    }

    private static func decode40(
        _ utf8: UnsafeBufferPointer<UInt8>
    ) -> Result<(UInt64, UInt64, UInt64, UInt64, UInt64), StoreError> {
        guard utf8.count == PageToken.textCount else {
            let hint = utf8.count < PageToken.textCount ? "truncated?" : "extra characters?"
            return .failure(
                .invalidToken(
                    "it has \(utf8.count) characters where a token has \(PageToken.textCount) (\(hint))"))
        }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 5) { words in
            let bytes = UnsafeMutableRawBufferPointer(words)
            return values.withUnsafeBufferPointer { values in
                var invalidAt = -1
                var accumulated: UInt32 = 0
                var out = 0
                for index in 0..<PageToken.textCount {
                    let value = values[Int(utf8[index])]
                    if value == 0xFF {
                        invalidAt = index
                        break
                    }
                    accumulated = accumulated << 6 | UInt32(value)
                    if index & 3 == 3 {
                        bytes[out] = UInt8(truncatingIfNeeded: accumulated >> 16)
                        bytes[out + 1] = UInt8(truncatingIfNeeded: accumulated >> 8)
                        bytes[out + 2] = UInt8(truncatingIfNeeded: accumulated)
                        out += 3
                        accumulated = 0
                    }
                }
                if invalidAt >= 0 {
                    let character = Unicode.Scalar(utf8[invalidAt])
                    let shown = utf8[invalidAt] < 0x80 ? "'\(Character(character))'" : "a non-ASCII byte"
                    return .failure(
                        .invalidToken(
                            "character \(invalidAt + 1) is \(shown), which is not URL-safe base64 (A–Z, a–z, 0–9, '-', '_', no padding)"
                        ))
                }
                // 54 = 13·4 + 2: the last two characters carry 12 bits, of which 8 are the final byte.
                guard accumulated & 0xF == 0 else {
                    return .failure(.invalidToken("its last character is not canonical base64 (altered?)"))
                }
                bytes[out] = UInt8(truncatingIfNeeded: accumulated >> 4)
                return .success(
                    (
                        UInt64(littleEndian: words[0]), UInt64(littleEndian: words[1]),
                        UInt64(littleEndian: words[2]), UInt64(littleEndian: words[3]),
                        UInt64(littleEndian: words[4])
                    ))
            }
        }
    }
}
