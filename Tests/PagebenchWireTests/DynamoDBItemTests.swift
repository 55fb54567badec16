import NIOCore
import PagebenchPage
import PagebenchStore
import Testing

@testable import PagebenchWire

/// The item's DynamoDB form (W1): one encoder, whose every-attribute fast path writes the
/// same bytes as its general path.
@Suite("DynamoDB item form")
struct DynamoDBItemTests {
    private static let items = [
        Item(partition: 0, sortKey: 0, sizeBytes: 0, category: 0, fingerprint: 0),
        Item(partition: 3, sortKey: 17, sizeBytes: 512, category: 2, fingerprint: 0x9f0c_0000_0000_00ff),
        Item(partition: 1_000_000, sortKey: .max, sizeBytes: 1 << 20, category: 7, fingerprint: .max),
    ]

    private static func text(_ item: Item, _ names: Set<String>?, payloads: Bool = false) -> String {
        var json = JSONWriter(capacity: 64)
        DynamoDBItem.encode(item, attributes: names, payloads: payloads, into: &json)
        return String(buffer: json.buffer)
    }

    @Test("W1: every attribute without payload is the general path's bytes, in key-schema order")
    func w1FastPathIsTheGeneralPath() {
        let named = DynamoDBAttributes.all.subtracting(["payload"])
        for item in Self.items {
            #expect(Self.text(item, nil) == Self.text(item, named))
            #expect(Self.text(item, DynamoDBAttributes.all) == Self.text(item, named))
        }
        #expect(
            Self.text(Self.items[1], nil)
                == #"{"pk":{"N":"3"},"sk":{"N":"17"},"sizeBytes":{"N":"512"},"category":{"N":"2"},"fingerprint":{"S":"9f0c0000000000ff"}}"#
        )
    }

    @Test("W1: a w1Projection writes only its attributes, an empty one an empty map")
    func w1Projection() {
        #expect(Self.text(Self.items[1], ["sk", "pk"]) == #"{"pk":{"N":"3"},"sk":{"N":"17"}}"#)
        #expect(Self.text(Self.items[1], ["fingerprint"]) == #"{"fingerprint":{"S":"9f0c0000000000ff"}}"#)
        #expect(Self.text(Self.items[1], []) == "{}")
    }

    @Test("W1: with payloads the item's DynamoDB size is its sizeBytes")
    func w1PayloadSize() throws {
        let item = Self.items[1]
        let text = Self.text(item, nil, payloads: true)
        #expect(text.hasPrefix(Self.text(item, nil).dropLast(1) + #","payload":{"B":""#))
        let length = DynamoDBAttributes.payloadLength(
            partition: item.partition,
            sortKey: item.sortKey,
            sizeBytes: item.sizeBytes,
            category: item.storeAttributes.category
        )
        let base64 = try #require(text.split(separator: "\"").dropLast().last)
        #expect(base64.count == (length + 2) / 3 * 4)
    }
}
