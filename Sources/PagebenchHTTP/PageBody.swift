public import NIOCore
public import PagebenchStore

/// The JSON body of a page response, written by the server and read by
/// ``HTTPStoreSource``:
///
/// ```json
/// {"items":[{"partition":3,"sortKey":17,"sizeBytes":512,"category":0,"fingerprint":"9f0c…"}],
///  "nextToken":"AgAB…","returned":1,"scanned":10,"scannedBytes":5120}
/// ```
///
/// `nextToken` is `null` at the end of the range (S5). `fingerprint` is the item's 64-bit
/// fingerprint as 16 hex digits (a JSON number would lose precision above 2⁵³). With
/// `payload=true` each item also carries `"payload"`: its ``Item/payload`` bytes in
/// standard padded base64, so a response is as large as the data it describes.
public enum PageBody {
    /// The body of `page`.
    public static func encode(_ page: Page, includePayload: Bool) -> ByteBuffer {
        var estimate = 96 + page.items.count * 96
        if includePayload { estimate += page.scannedBytes / 3 * 4 + page.items.count * 16 }
        var json = JSONWriter(capacity: estimate)
        json.raw("{\"items\":[")
        for (index, item) in page.items.enumerated() {
            json.raw(index == 0 ? "{\"partition\":" : ",{\"partition\":")
            json.integer(item.partition)
            json.raw(",\"sortKey\":")
            json.unsigned(item.sortKey)
            json.raw(",\"sizeBytes\":")
            json.integer(item.sizeBytes)
            json.raw(",\"category\":")
            json.integer(item.category)
            json.raw(",\"fingerprint\":")
            json.hex64(item.fingerprint)
            if includePayload {
                json.raw(",\"payload\":")
                json.base64(item.payload)
            }
            json.raw("}")
        }
        json.raw("],\"nextToken\":")
        if let token = page.nextToken {
            json.plainString(token)
        } else {
            json.raw("null")
        }
        json.raw(",\"returned\":")
        json.integer(page.returnedCount)
        json.raw(",\"scanned\":")
        json.integer(page.scannedCount)
        json.raw(",\"scannedBytes\":")
        json.integer(page.scannedBytes)
        json.raw("}")
        return json.buffer
    }

    /// Reads a page body (keys in any order, whitespace anywhere; unknown keys such as
    /// `payload` are skipped).
    ///
    /// - Throws: ``HTTPSourceError`` (`unexpectedResponse`) when the body is not a page:
    ///   malformed JSON, a missing or mistyped field, or counts that contradict the items
    ///   (`returned ≠ items.count` or `returned > scanned`, S2).
    public static func decode(_ buffer: ByteBuffer) throws(HTTPSourceError) -> Page {
        let result = buffer.withUnsafeReadableBytes { bytes -> Result<Page, JSONReadError> in
            do throws(JSONReadError) {
                return .success(try read(bytes))
            } catch {
                return .failure(error)
            }
        }
        let page: Page
        switch result {
        case .success(let value): page = value
        case .failure(let error): throw .malformedResponse("the page body is not page JSON: \(error)", body: buffer)
        }
        return page
    }

    private static func read(_ bytes: UnsafeRawBufferPointer) throws(JSONReadError) -> Page {
        var reader = JSONReader(bytes)
        var items: [Item]?
        var nextToken: String??
        var returned: Int?
        var scanned: Int?
        var scannedBytes: Int?
        try reader.readObject { reader, key throws(JSONReadError) in
            if key.is("items") {
                var list: [Item] = []
                list.reserveCapacity(reader.byteCount / 96)  // an item without payload is 80–110 bytes
                try reader.readArray { reader throws(JSONReadError) in list.append(try readItem(&reader)) }
                items = list
            } else if key.is("nextToken") {
                nextToken = .some(try reader.readOptionalString())
            } else if key.is("returned") {
                returned = try reader.readInt()
            } else if key.is("scanned") {
                scanned = try reader.readInt()
            } else if key.is("scannedBytes") {
                scannedBytes = try reader.readInt()
            } else {
                try reader.skipValue()
            }
        }
        try reader.expectEnd()
        guard let items, let nextToken, let returned, let scanned, let scannedBytes else {
            throw reader.error("a page needs items, nextToken, returned, scanned and scannedBytes")
        }
        guard returned == items.count, returned <= scanned else {
            throw reader.error("the page says returned \(returned), scanned \(scanned) but carries \(items.count) items")
        }
        return Page(items: items, scannedCount: scanned, scannedBytes: scannedBytes, nextToken: nextToken)
    }

    private static func readItem(_ reader: inout JSONReader) throws(JSONReadError) -> Item {
        if let item = readCanonicalItem(&reader) { return item }
        return try readAnyItem(&reader)
    }

    /// The item exactly as ``encode(_:includePayload:)`` writes it without payload, read
    /// straight through: literal keys, plain digits and the 16-digit fingerprint matched
    /// without skipping whitespace or scanning strings twice. `nil` (and the reader rewound)
    /// for anything else — whitespace, a sign, a long or malformed number, another key order,
    /// a payload — which ``readAnyItem(_:)`` then reads or rejects with the reason, so what is
    /// accepted and what it means do not depend on which path read it. (Half the client's
    /// page-decode instructions went to the general reader's per-number whitespace and
    /// overflow checks: `results/http-client-cost.md`.)
    private static func readCanonicalItem(_ reader: inout JSONReader) -> Item? {
        let start = reader.offset
        // 18 digits cannot overflow an Int, 19 not a UInt64.
        if reader.matchLiteral("{\"partition\":"), let partition = reader.matchPlainDigits(maximumDigits: 18),
            reader.matchLiteral(",\"sortKey\":"), let sortKey = reader.matchPlainDigits(maximumDigits: 19),
            reader.matchLiteral(",\"sizeBytes\":"), let sizeBytes = reader.matchPlainDigits(maximumDigits: 18),
            reader.matchLiteral(",\"category\":"), let category = reader.matchPlainDigits(maximumDigits: 18),
            reader.matchLiteral(",\"fingerprint\":"), let fingerprint = reader.matchHex64String(),
            reader.matchLiteral("}")
        {
            return Item(
                partition: Int(partition), sortKey: sortKey, sizeBytes: Int(sizeBytes), category: Int(category),
                fingerprint: fingerprint)
        }
        reader.rewind(to: start)
        return nil
    }

    private static func readAnyItem(_ reader: inout JSONReader) throws(JSONReadError) -> Item {
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
        return Item(partition: partition, sortKey: sortKey, sizeBytes: sizeBytes, category: category, fingerprint: fingerprint)
    }
}
