/// The table pagebench serves (W1): key schema `pk` (N, HASH) = partition, `sk` (N, RANGE)
/// = sort key; attributes `sizeBytes` (N), `category` (N), `fingerprint` (S, 16 hex
/// digits) and, when payloads are served, `payload` (B).
package enum DynamoDBAttributes {
    package static let partitionKey = "pk"
    package static let sortKey = "sk"
    package static let all: Set<String> = ["pk", "sk", "sizeBytes", "category", "fingerprint", "payload"]

    /// The length of an item's `payload` such that its DynamoDB size (attribute names plus
    /// values, numbers at 1 byte per two significant digits plus 1) equals `sizeBytes` (W1),
    /// so pages end where the store's do. An item smaller than its other attributes gets
    /// an empty payload (its DynamoDB size then exceeds `sizeBytes`; documented).
    package static func payloadLength(partition: Int, sortKey: UInt64, sizeBytes: Int, category: Int) -> Int {
        let names = 2 + 2 + 9 + 8 + 11 + 7
        let values =
            numberSize(UInt64(partition)) + numberSize(sortKey) + numberSize(UInt64(max(0, sizeBytes)))
            + numberSize(UInt64(max(0, category))) + 16
        return max(0, sizeBytes - names - values)
    }

    /// DynamoDB's size of a number: 1 byte per two significant digits (trailing zeros
    /// trimmed), plus 1.
    package static func numberSize(_ value: UInt64) -> Int {
        var value = value
        while value != 0, value % 10 == 0 { value /= 10 }
        var digits = 1
        while value >= 10 {
            value /= 10
            digits += 1
        }
        return (digits + 1) / 2 + 1
    }
}
