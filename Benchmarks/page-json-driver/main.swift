import PagebenchBase

#if canImport(Glibc)
import Glibc
#endif

// The cost of reading a page body with JSONReader, per page, for callgrind (results/page-json-utf8.md):
// every string of the body (keys, values, tokens) goes through the reader's string scan, as a
// target's page and the served store's page keys do. Built and run by run.sh; prints a checksum
// of what it read, the same for every build that reads the same bodies.

@main
struct PageJSONDriver {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count == 2, let body = Body(rawValue: arguments.first!), let pages = Int(arguments.last!),
            pages > 0
        else {
            print("usage: page-json-driver served|target PAGES  (PAGES: a positive integer)")
            exit(64)
        }
        let bytes = Array(body.text.utf8)
        var checksum = 0
        bytes.withUnsafeBytes { buffer in
            for _ in 0..<pages { checksum &+= read(buffer) }
        }
        print("\(body.rawValue): \(pages) pages of \(bytes.count) bytes, checksum \(checksum)")
    }

    /// Reads every value of the body: strings as `String`s, integers, the rest skipped.
    static func read(_ buffer: UnsafeRawBufferPointer) -> Int {
        var reader = JSONReader(buffer)
        do throws(JSONReadError) {
            let sum = try value(&reader)
            try reader.expectEnd()
            return sum
        } catch {
            print("not read: \(error)")
            exit(1)
        }
    }

    static func value(_ reader: inout JSONReader) throws(JSONReadError) -> Int {
        switch reader.peek() ?? 0 {
        case UInt8(ascii: "{"):
            var sum = 0
            try reader.readObject { reader, key throws(JSONReadError) in
                sum &+= key.description.utf8.count &+ (try value(&reader))
            }
            return sum
        case UInt8(ascii: "["):
            var sum = 0
            try reader.readArray { reader throws(JSONReadError) in sum &+= try value(&reader) }
            return sum
        case UInt8(ascii: "\""):
            return try reader.readString().utf8.count
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try reader.readInt()
        default:
            try reader.skipValue()
            return 1
        }
    }
}

/// Two page bodies of 10 items: the served store's layout (ASCII, a token), and a target's
/// page with text in several scripts (UTF-8 of two, three and four bytes).
enum Body: String {
    case served, target

    var text: String {
        switch self {
        case .served:
            let items = (0..<10).map { index in
                "{\"partition\":3,\"sortKey\":\(1_000 + index),\"sizeBytes\":\(400 + 37 * index),\"category\":\(index % 4),"
                    + "\"fingerprint\":\"\(String(UInt64(0x9f0c_1234_5678_9abc) &+ UInt64(index), radix: 16))\"}"
            }
            return "{\"items\":[" + items.joined(separator: ",")
                + "],\"nextToken\":\"AgABAAAAAwAAAAAAAAPyAAAAAAAAAAoAAAAAAAAAAAAAAAA\",\"returned\":10,\"scanned\":10,\"scannedBytes\":5020}"
        case .target:
            let items = (0..<10).map { index in
                "{\"id\":\"order-\(10_000 + index)\",\"customer\":\"Zoë Ångström-Núñez\",\"city\":\"Kraków\","
                    + "\"note\":\"délai 東京 → Москва ✓ 😀\",\"total_cents\":\(1_999 + index),\"status\":\"shipped\"}"
            }
            return "{\"data\":[" + items.joined(separator: ",")
                + "],\"next_cursor\":\"b3JkZXItMTAwMDk\",\"has_more\":true}"
        }
    }
}
