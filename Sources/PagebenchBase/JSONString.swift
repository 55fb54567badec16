/// pagebench's one JSON string writer: the strict loader's tree (``StrictJSON/Node``), JSON
/// values and the server's byte writer (PagebenchWire's `JSONValue` and `JSONWriter`) all quote
/// through it, so a string reads the same whoever wrote it.
///
/// `"` and `\` are escaped, `\n`, `\r` and `\t` short, every other control character
/// (U+0000–U+001F, backspace and form feed included) as `\u00XX`, and everything else
/// (UTF-8 of any scalar) as is.
package enum JSONString {
    /// Writes `value` as a JSON string literal, its quotes included, through `write` in runs of
    /// bytes (one call per run between escapes, not one per byte).
    @inlinable
    package static func quote(_ value: String, write: (UnsafeRawBufferPointer) -> Void) {
        var value = value
        value.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            withUnsafeBytes(of: UInt8(ascii: "\"")) { write($0) }
            var run = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if run < index { write(UnsafeRawBufferPointer(rebasing: bytes[run..<index])) }
                escape(byte, write: write)
                run = index + 1
            }
            if run < bytes.count { write(UnsafeRawBufferPointer(rebasing: bytes[run...])) }
            withUnsafeBytes(of: UInt8(ascii: "\"")) { write($0) }
        }
    }

    /// Appends `value` as a JSON string literal to `text`.
    package static func quote(_ value: String, into text: inout String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count + 2)
        quote(value) { bytes.append(contentsOf: $0) }
        text += String(decoding: bytes, as: UTF8.self)
    }

    /// The escape of `byte` (a control character, `"` or `\`).
    @usableFromInline
    static func escape(_ byte: UInt8, write: (UnsafeRawBufferPointer) -> Void) {
        let digits: StaticString = "0123456789abcdef"
        var escaped: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (UInt8(ascii: "\\"), 0, 0, 0, 0, 0)
        let count: Int
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): (escaped.1, count) = (byte, 2)
        case UInt8(ascii: "\n"): (escaped.1, count) = (UInt8(ascii: "n"), 2)
        case UInt8(ascii: "\r"): (escaped.1, count) = (UInt8(ascii: "r"), 2)
        case UInt8(ascii: "\t"): (escaped.1, count) = (UInt8(ascii: "t"), 2)
        default:
            escaped.1 = UInt8(ascii: "u")
            escaped.2 = UInt8(ascii: "0")
            escaped.3 = UInt8(ascii: "0")
            escaped.4 = digits.utf8Start[Int(byte >> 4)]
            escaped.5 = digits.utf8Start[Int(byte & 15)]
            count = 6
        }
        withUnsafeBytes(of: &escaped) { write(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
}
