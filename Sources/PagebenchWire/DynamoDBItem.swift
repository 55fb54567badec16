import PagebenchPage
import PagebenchStore

/// The item's form in DynamoDB's JSON (W1, ``DynamoDBAttributes``): its one encoder.
///
/// ```json
/// {"pk":{"N":"3"},"sk":{"N":"17"},"sizeBytes":{"N":"512"},"category":{"N":"0"},"fingerprint":{"S":"9f0c…"}}
/// ```
///
/// With payloads each item also carries `"payload":{"B":"…"}`, sized so that the item's
/// DynamoDB size is its `sizeBytes` (``DynamoDBAttributes/payloadLength(partition:sortKey:sizeBytes:category:)``).
package enum DynamoDBItem {
    /// Writes the attributes of `item` that `names` lists (nil: every attribute), in the
    /// order above; `payload` only when `payloads`.
    package static func encode(
        _ item: Item,
        attributes names: Set<String>?,
        payloads: Bool,
        into json: inout JSONWriter
    ) {
        if names == nil, !payloads {
            // Every attribute, in as few writes as the REST body's item.
            json.raw("{\"pk\":{\"N\":\"")
            json.integer(item.partition)
            json.raw("\"},\"sk\":{\"N\":\"")
            json.unsigned(item.sortKey)
            json.raw("\"},\"sizeBytes\":{\"N\":\"")
            json.integer(item.sizeBytes)
            json.raw("\"},\"category\":{\"N\":\"")
            json.integer(item.storeAttributes.category)
            json.raw("\"},\"fingerprint\":{\"S\":")
            json.hex64(item.storeAttributes.fingerprint)
            json.raw("}}")
            return
        }
        func wanted(_ name: String) -> Bool { names?.contains(name) ?? true }
        var first = true
        func open(_ name: StaticString) {
            json.raw(first ? "{\"" : ",\"")
            first = false
            json.raw(name)
            json.raw("\":{\"")
        }
        if wanted("pk") {
            open("pk")
            json.raw("N\":\"")
            json.integer(item.partition)
            json.raw("\"}")
        }
        if wanted("sk") {
            open("sk")
            json.raw("N\":\"")
            json.unsigned(item.sortKey)
            json.raw("\"}")
        }
        if wanted("sizeBytes") {
            open("sizeBytes")
            json.raw("N\":\"")
            json.integer(item.sizeBytes)
            json.raw("\"}")
        }
        if wanted("category") {
            open("category")
            json.raw("N\":\"")
            json.integer(item.storeAttributes.category)
            json.raw("\"}")
        }
        if wanted("fingerprint") {
            open("fingerprint")
            json.raw("S\":")
            json.hex64(item.storeAttributes.fingerprint)
            json.raw("}")
        }
        if payloads, wanted("payload") {
            open("payload")
            json.raw("B\":")
            let length = DynamoDBAttributes.payloadLength(
                partition: item.partition,
                sortKey: item.sortKey,
                sizeBytes: item.sizeBytes,
                category: item.storeAttributes.category
            )
            json.base64(Payload(seed: item.storeAttributes.fingerprint, count: length))
            json.raw("}")
        }
        json.raw(first ? "{}" : "}")
    }
}
