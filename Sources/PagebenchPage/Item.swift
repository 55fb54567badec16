/// One item of the synthetic store. Every attribute is computed from
/// (seed, partition, sort key); nothing is stored.
public struct Item: Sendable, Hashable {
    /// The partition key.
    public let partition: Int
    /// The sort key within the partition: `0 ..< count(partition)`.
    public let sortKey: UInt64
    /// The item's size in bytes; what the scan budget is charged (S3).
    public let sizeBytes: Int
    /// The filterable attribute: 0 for the configured `selectivity` of items, else 1…15.
    public let category: Int
    /// Every category an item can have (0 for the `selectivity` share, then 1…15).
    public static let categories = 0...15
    /// A 64-bit fingerprint of the item, the seed of its payload bytes.
    public let fingerprint: UInt64

    /// Creates an item from its attributes; the store computes them, a remote source
    /// (PagebenchHTTP's `HTTPStoreSource`) decodes them from the server's response.
    public init(partition: Int, sortKey: UInt64, sizeBytes: Int, category: Int, fingerprint: UInt64) {
        self.partition = partition
        self.sortKey = sortKey
        self.sizeBytes = sizeBytes
        self.category = category
        self.fingerprint = fingerprint
    }

    /// The item's payload: exactly ``sizeBytes`` deterministic bytes, generated on access
    /// (nothing is allocated).
    public var payload: Payload { Payload(seed: fingerprint, count: sizeBytes) }

    /// Whether the item passes a filter; every item passes `nil`.
    public func matches(_ filter: Filter?) -> Bool {
        filter?.matches(self) ?? true
    }
}

/// An item of an unpaginated listing with whether it passes the listing's filter.
public struct ListedItem: Sendable, Hashable {
    public let item: Item
    /// Whether ``item`` passes the filter (always true without one).
    public let matches: Bool
}
