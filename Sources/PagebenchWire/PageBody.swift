import NIOCore
import PagebenchBase
import PagebenchPage
import PagebenchStore

/// The JSON body of a page response, written by the server and read by
/// ``HTTPStoreSource``:
///
/// ```json
/// {"items":[{"partition":3,"sortKey":17,"sizeBytes":512,"category":0,"fingerprint":"9f0c…"}],
///  "nextToken":"AgAB…","returned":1,"scanned":10,"scannedBytes":5120}
/// ```
///
/// `nextToken` is `null` at the end of the range (S5). Each item is in ``PageBodyItem``'s
/// form; with `payload=true` it also carries its payload, so a response is as large as the
/// data it describes.
package enum PageBody {
    /// The body of `page`.
    package static func encode(_ page: Page, includePayload: Bool) -> ByteBuffer {
        var estimate = 96 + page.items.count * 96
        if includePayload { estimate += page.scannedBytes / 3 * 4 + page.items.count * 16 }
        var json = JSONWriter(capacity: estimate)
        json.raw("{\"items\":[")
        for (index, item) in page.items.enumerated() {
            if index > 0 { json.raw(",") }
            PageBodyItem.encode(item, includePayload: includePayload, into: &json)
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
    package static func decode(_ buffer: ByteBuffer) throws(HTTPSourceError) -> Page {
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
                try reader.readArray { reader throws(JSONReadError) in list.append(try PageBodyItem.decode(&reader)) }
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
            throw reader.error(
                "the page says returned \(returned), scanned \(scanned) but carries \(items.count) items"
            )
        }
        return Page(items: items, scannedCount: scanned, scannedBytes: scannedBytes, nextToken: nextToken)
    }
}
