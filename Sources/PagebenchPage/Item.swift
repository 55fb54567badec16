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
    /// Inlinable: the store's evaluation builds one per returned item.
    @inlinable
    public init(partition: Int, sortKey: UInt64, sizeBytes: Int, category: Int, fingerprint: UInt64) {
        self.partition = partition
        self.sortKey = sortKey
        self.sizeBytes = sizeBytes
        self.category = category
        self.fingerprint = fingerprint
    }

    /// Whether the item passes a filter; every item passes `nil`.
    public func matches(_ filter: Filter?) -> Bool {
        filter?.matches(self) ?? true
    }
}
