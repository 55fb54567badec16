import NIOCore
import PagebenchBase

/// Appends JSON tokens to a `ByteBuffer` without building intermediate strings: the
/// server writes one page per request, so numbers go in digit by digit.
package struct JSONWriter {
    package var buffer: ByteBuffer

    package init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    package mutating func raw(_ text: StaticString) {
        buffer.writeStaticString(text)
    }

    package mutating func integer(_ value: Int) {
        if value < 0 {
            buffer.writeInteger(UInt8(ascii: "-"))
            unsigned(value.magnitude)
        } else {
            unsigned(UInt(value))
        }
    }

    package mutating func unsigned(_ value: UInt64) {
        unsigned(UInt(value))
    }

    package mutating func unsigned(_ value: UInt) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: enough for 20 digits
        let count = withUnsafeMutableBytes(of: &digits) { bytes -> Int in
            var value = value
            var index = bytes.count
            repeat {
                index -= 1
                bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0
            return index
        }
        withUnsafeBytes(of: &digits) { bytes in
            _ = buffer.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[count...]))
        }
    }

    /// A JSON string with `"`, `\` and control characters escaped (``JSONString``, Base's one
    /// quoting).
    package mutating func string(_ text: String) {
        JSONString.quote(text) { buffer.writeBytes($0) }
    }

    /// A string known to need no escaping (a page token: URL-safe base64).
    package mutating func plainString(_ text: String) {
        buffer.writeInteger(UInt8(ascii: "\""))
        buffer.writeString(text)
        buffer.writeInteger(UInt8(ascii: "\""))
    }

    /// A 64-bit value as a string of 16 lowercase hex digits (JSON numbers lose precision
    /// above 2⁵³ in many readers).
    package mutating func hex64(_ value: UInt64) {
        // Written as one 18-byte run (quote, 16 digits, quote): one buffer write, not 18.
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &text) { bytes in
            bytes[0] = UInt8(ascii: "\"")
            for index in 0..<16 {
                let nibble = Int((value >> UInt64(60 - 4 * index)) & 15)
                bytes[1 + index] =
                    nibble < 10 ? UInt8(ascii: "0") + UInt8(nibble) : UInt8(ascii: "a") + UInt8(nibble - 10)
            }
            bytes[17] = UInt8(ascii: "\"")
        }
        withUnsafeBytes(of: &text) { bytes in
            _ = buffer.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[..<18]))
        }
    }

    /// Standard base64 (RFC 4648 §4, padded) of `bytes`, as a JSON string.
    package mutating func base64<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        buffer.writeInteger(UInt8(ascii: "\""))
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = b1 == nil ? nil : iterator.next()
            let group = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            buffer.writeInteger(Self.base64Alphabet[Int(group >> 18)])
            buffer.writeInteger(Self.base64Alphabet[Int((group >> 12) & 63)])
            buffer.writeInteger(b1 == nil ? UInt8(ascii: "=") : Self.base64Alphabet[Int((group >> 6) & 63)])
            buffer.writeInteger(b2 == nil ? UInt8(ascii: "=") : Self.base64Alphabet[Int(group & 63)])
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }

    private static let base64Alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8
    )
}
