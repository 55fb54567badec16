import Foundation
public import NIOCore
public import PagebenchStore

/// The JSON body of a page response, written by the server and read by
/// ``HTTPStoreSource``:
///
/// ```json
/// {"items":[{"partition":3,"sortKey":17,"sizeBytes":512,"category":0,"fingerprint":"9f0c…"}],
///  "nextToken":"AQAB…","returned":1,"scanned":10,"scannedBytes":5120}
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

    /// Reads a page body.
    ///
    /// - Throws: ``HTTPSourceError`` (`malformedResponse`) when the body is not a page, or
    ///   when its counts contradict its items (`returned ≠ items.count`, S2 violated).
    public static func decode(_ buffer: ByteBuffer) throws(HTTPSourceError) -> Page {
        let wire: WirePage
        do {
            wire = try JSONDecoder().decode(WirePage.self, from: Data(buffer.readableBytesView))
        } catch {
            throw .malformedResponse("the page body is not valid page JSON (\(error))", body: buffer)
        }
        var items: [Item] = []
        items.reserveCapacity(wire.items.count)
        for item in wire.items {
            guard let fingerprint = UInt64(item.fingerprint, radix: 16) else {
                throw .malformedResponse("item fingerprint '\(item.fingerprint)' is not 16 hex digits", body: buffer)
            }
            items.append(
                Item(
                    partition: item.partition, sortKey: item.sortKey, sizeBytes: item.sizeBytes,
                    category: item.category, fingerprint: fingerprint))
        }
        guard wire.returned == items.count, items.count <= wire.scanned else {
            throw .malformedResponse(
                "the page says returned \(wire.returned), scanned \(wire.scanned) but carries \(items.count) items",
                body: buffer)
        }
        return Page(items: items, scannedCount: wire.scanned, scannedBytes: wire.scannedBytes, nextToken: wire.nextToken)
    }

    private struct WirePage: Decodable {
        var items: [WireItem]
        var nextToken: String?
        var returned: Int
        var scanned: Int
        var scannedBytes: Int
    }

    private struct WireItem: Decodable {
        var partition: Int
        var sortKey: UInt64
        var sizeBytes: Int
        var category: Int
        var fingerprint: String
    }
}
