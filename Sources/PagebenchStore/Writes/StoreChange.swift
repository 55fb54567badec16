import PagebenchPage

/// One committed write, as the store's change feed publishes it (docs/contract.md S26).
public struct StoreChange: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case insert, delete, update
    }

    /// The write's logical version: 1 for the store's first write, then +1 per write (S22).
    public let version: UInt64
    public let kind: Kind
    /// The partition written.
    public let partition: Int
    /// The sort key written (a key of the store's ``KeySpace``, as ``Item/sortKey`` under writes).
    public let sortKey: UInt64
    /// The item as the write left it (insert, update); nil for a delete.
    public let item: Item?
    /// When the write was committed, on ``PagebenchBase/MonotonicTime`` (nanoseconds): the
    /// start of a watch latency (P16).
    public let committedAtNanoseconds: UInt64

    public init(
        version: UInt64,
        kind: Kind,
        partition: Int,
        sortKey: UInt64,
        item: Item?,
        committedAtNanoseconds: UInt64
    ) {
        self.version = version
        self.kind = kind
        self.partition = partition
        self.sortKey = sortKey
        self.item = item
        self.committedAtNanoseconds = committedAtNanoseconds
    }
}

/// A subscription to a store's change feed; ``cancel()`` ends it (so does releasing the
/// stream of ``SyntheticStore/changeFeed()``).
public struct ChangeSubscription: Sendable {
    let cancelBody: @Sendable () -> Void

    /// Stops delivering changes. Idempotent.
    public func cancel() { cancelBody() }
}
