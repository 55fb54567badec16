/// One item of a page: its key (partition and sort key) and its size, what every source
/// knows of an item, plus the synthetic store's own ``Attributes`` when the synthetic store
/// made it.
///
/// Which part is the contract: the key and ``sizeBytes``. A real target's item (PagebenchTargets)
/// is counted, not decoded: its key is its position (the drain's partition and its index in
/// the page) and its size the bytes of its JSON, and it has no ``attributes`` — pagebench
/// never invents a category or a fingerprint for it. The synthetic store's items (in-process
/// or served, decoded by PagebenchHTTPClient's `HTTPStoreSource`) carry both.
///
/// Layout: `attributes` stores the category in 32 bits so that an `Item` stays 40 bytes (its
/// stride before the contract): the store's evaluation writes one per returned item, and the
/// allocation figures of a run must not move.
public struct Item: Sendable, Hashable {
    /// The partition key.
    public let partition: Int
    /// The sort key within the partition: `0 ..< count(partition)` (for a real target's item,
    /// its index in the page).
    public let sortKey: UInt64
    /// The item's size in bytes; what the scan budget is charged (S3). For a real target's
    /// item, the bytes of its JSON.
    public let sizeBytes: Int
    /// What the synthetic store computes besides key and size; nil for a real target's item.
    public let attributes: Attributes?

    /// The synthetic store's attributes of an item: its filterable category and the
    /// fingerprint that seeds its payload bytes.
    public struct Attributes: Sendable, Hashable {
        /// A 64-bit fingerprint of the item, the seed of its payload bytes.
        public let fingerprint: UInt64
        @usableFromInline let storedCategory: Int32

        /// The filterable attribute: 0 for the configured `selectivity` of items, else 1…15.
        @inlinable
        public var category: Int { Int(storedCategory) }

        /// - Precondition: `category` fits 32 bits (the store's are 0…15; a decoder checks
        ///   what it reads first, ``Item/Attributes/categoryRange``).
        @inlinable
        public init(category: Int, fingerprint: UInt64) {
            self.fingerprint = fingerprint
            self.storedCategory = Int32(category)
        }

        /// The categories an item's attributes can hold (what a decoder accepts).
        public static let categoryRange = Int(Int32.min)...Int(Int32.max)
    }

    /// Every category the synthetic store gives an item (0 for the `selectivity` share, then 1…15).
    public static let categories = 0...15

    /// An item of the synthetic store, with its attributes; the store computes them, a remote
    /// source (PagebenchHTTPClient's `HTTPStoreSource`) decodes them from the server's response.
    /// Inlinable: the store's evaluation builds one per returned item.
    @inlinable
    public init(partition: Int, sortKey: UInt64, sizeBytes: Int, category: Int, fingerprint: UInt64) {
        self.partition = partition
        self.sortKey = sortKey
        self.sizeBytes = sizeBytes
        self.attributes = Attributes(category: category, fingerprint: fingerprint)
    }

    /// An item known only by its key and size (a real target's, which pagebench counts but
    /// does not decode).
    @inlinable
    public init(partition: Int, sortKey: UInt64, sizeBytes: Int) {
        self.partition = partition
        self.sortKey = sortKey
        self.sizeBytes = sizeBytes
        self.attributes = nil
    }

    /// Whether the item passes a filter; every item passes `nil`, and so does an item without
    /// attributes (a real target's: the target applied the filter it was sent).
    public func matches(_ filter: Filter?) -> Bool {
        filter?.matches(self) ?? true
    }
}
