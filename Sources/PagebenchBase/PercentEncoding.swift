/// RFC 3986 percent-encoding: the one encoder for query values, path placeholders and the
/// forms of a secret that masking looks for.
public enum PercentEncoding {
    /// `text` with every byte but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`)
    /// written as `%XX` (upper-case hex digits); `text` itself when nothing needs encoding.
    public static func encoded(_ text: String) -> String {
        let utf8 = text.utf8
        // Over the contiguous bytes when there are: a page's token is checked on every request
        // (results/http-client-cost.md).
        let plain =
            utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isUnreserved) } ?? utf8.allSatisfy(isUnreserved)
        if plain { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0xF))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `byte` is one of RFC 3986's unreserved characters.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
