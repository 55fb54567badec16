import PagebenchBase
import PagebenchPage
import PagebenchStore

/// The item's form in a page body (``PageBody``, the REST front end): its one encoder and
/// its one decoder.
///
/// ```json
/// {"partition":3,"sortKey":17,"sizeBytes":512,"category":0,"fingerprint":"9f0c…"}
/// ```
///
/// `fingerprint` is the item's 64-bit fingerprint as 16 hex digits (a JSON number would
/// lose precision above 2⁵³). With payloads each item also carries `"payload"`: its
/// ``PagebenchStore/Item/payload`` bytes in standard padded base64.
package enum PageBodyItem {
    /// Writes `item` (with its payload when `includePayload`).
    package static func encode(_ item: Item, includePayload: Bool, into json: inout JSONWriter) {
        json.raw("{\"partition\":")
        json.integer(item.partition)
        json.raw(",\"sortKey\":")
        json.unsigned(item.sortKey)
        json.raw(",\"sizeBytes\":")
        json.integer(item.sizeBytes)
        let attributes = item.storeAttributes
        json.raw(",\"category\":")
        json.integer(attributes.category)
        json.raw(",\"fingerprint\":")
        json.hex64(attributes.fingerprint)
        if includePayload {
            json.raw(",\"payload\":")
            json.base64(Payload(seed: attributes.fingerprint, count: item.sizeBytes))
        }
        json.raw("}")
    }

    /// Reads one item: keys in any order, whitespace anywhere, unknown keys (such as
    /// `payload`) skipped. The form ``encode(_:includePayload:into:)`` writes without
    /// payload is read straight through first; anything else by the general reader.
    package static func decode(_ reader: inout JSONReader) throws(JSONReadError) -> Item {
        if let item = readCanonical(&reader) { return item }
        return try readAny(&reader)
    }

    /// The item exactly as ``encode(_:includePayload:into:)`` writes it without payload, read
    /// straight through: literal keys, plain digits and the 16-digit fingerprint matched
    /// without skipping whitespace or scanning strings twice. `nil` (and the reader rewound)
    /// for anything else — whitespace, a sign, a long or malformed number, another key order,
    /// a payload, a category beyond 32 bits — which ``readAny(_:)`` then reads or rejects with
    /// the reason, so what is accepted and what it means do not depend on which path read it.
    /// (Half the client's page-decode instructions went to the general reader's per-number
    /// whitespace and overflow checks: `results/http-client-cost.md`.)
    private static func readCanonical(_ reader: inout JSONReader) -> Item? {
        let start = reader.offset
        // 18 digits cannot overflow an Int, 19 not a UInt64.
        if reader.matchLiteral("{\"partition\":"), let partition = reader.matchPlainDigits(maximumDigits: 18),
            reader.matchLiteral(",\"sortKey\":"), let sortKey = reader.matchPlainDigits(maximumDigits: 19),
            reader.matchLiteral(",\"sizeBytes\":"), let sizeBytes = reader.matchPlainDigits(maximumDigits: 18),
            reader.matchLiteral(",\"category\":"), let category = reader.matchPlainDigits(maximumDigits: 18),
            Item.Attributes.categoryRange.contains(Int(category)),
            reader.matchLiteral(",\"fingerprint\":"), let fingerprint = reader.matchHex64String(),
            reader.matchLiteral("}")
        {
            return Item(
                partition: Int(partition),
                sortKey: sortKey,
                sizeBytes: Int(sizeBytes),
                category: Int(category),
                fingerprint: fingerprint
            )
        }
        reader.rewind(to: start)
        return nil
    }

    private static func readAny(_ reader: inout JSONReader) throws(JSONReadError) -> Item {
        var partition: Int?
        var sortKey: UInt64?
        var sizeBytes: Int?
        var category: Int?
        var fingerprint: UInt64?
        try reader.readObject { reader, key throws(JSONReadError) in
            if key.is("partition") {
                partition = try reader.readInt()
            } else if key.is("sortKey") {
                sortKey = try reader.readUInt64()
            } else if key.is("sizeBytes") {
                sizeBytes = try reader.readInt()
            } else if key.is("category") {
                category = try reader.readInt()
            } else if key.is("fingerprint") {
                fingerprint = try reader.readHex64()
            } else {
                try reader.skipValue()
            }
        }
        guard let partition, let sortKey, let sizeBytes, let category, let fingerprint else {
            throw reader.error("an item needs partition, sortKey, sizeBytes, category and fingerprint")
        }
        guard Item.Attributes.categoryRange.contains(category) else {
            throw reader.error("an item's category must fit 32 bits, got \(category)")
        }
        return Item(
            partition: partition,
            sortKey: sortKey,
            sizeBytes: sizeBytes,
            category: category,
            fingerprint: fingerprint
        )
    }
}
