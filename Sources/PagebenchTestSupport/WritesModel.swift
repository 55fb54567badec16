import PagebenchPage
import PagebenchStore

/// An independent model of a store under writes, for tests (S22–S25): a plain sorted array
/// of items per partition, built from a store *without* writes (base item `k` gets the key
/// `(k + 1) · SyntheticStore.keySpacingUnderWrites`), with the writes of the change feed
/// applied one by one. It pages itself with the rules of docs/contract.md S2–S6 and S24 (keyset
/// and offset), and counts a drain's duplicates and skips (S25) by following every state
/// the drain spanned. Nothing in it reads the store's overlay.
package struct WritesModel: Sendable {
    /// Items per partition, sorted by sort key.
    package private(set) var partitions: [[Item]]
    /// The version of the last change applied.
    package private(set) var version: UInt64 = 0
    let filter: Filter?
    /// Keys that existed and matched `filter` at every state since ``beginDrain()``.
    private var throughout: Set<ItemKey> = []
    private var tracking = false

    /// The model of `configuration` (its `writes` are ignored: the model is told the writes)
    /// before any write, tracking consistency under `filter`.
    package init(configuration: StoreConfiguration, filter: Filter?) throws {
        var plain = configuration
        plain.writes = nil
        plain.continuation = .keyset
        let base = try SyntheticStore(configuration: plain)
        let spacing = SyntheticStore.keySpacingUnderWrites
        partitions = (0..<configuration.partitions).map { partition in
            Array(base.items(in: .partition(partition), filter: nil, reverse: false)).map {
                Item(
                    partition: $0.partition,
                    sortKey: ($0.sortKey + 1) * spacing,
                    sizeBytes: $0.sizeBytes,
                    category: $0.storeAttributes.category,
                    fingerprint: $0.storeAttributes.fingerprint
                )
            }
        }
        self.filter = filter
    }

    // MARK: Writes

    /// Applies one change of the store's feed; changes must come in version order.
    package mutating func apply(_ change: StoreChange) {
        precondition(change.version == version + 1, "changes must be applied in version order")
        version = change.version
        var items = partitions[change.partition]
        let index = items.firstIndex { $0.sortKey >= change.sortKey } ?? items.endIndex
        let present = index < items.endIndex && items[index].sortKey == change.sortKey
        switch change.kind {
        case .insert:
            precondition(!present, "insert of an existing key")
            items.insert(change.item!, at: index)
        case .delete:
            precondition(present, "delete of a missing key")
            items.remove(at: index)
        case .update:
            precondition(present, "update of a missing key")
            items[index] = change.item!
        }
        partitions[change.partition] = items
        if tracking {
            let key = ItemKey(partition: change.partition, sortKey: change.sortKey)
            if change.kind == .delete || !(change.item!.matches(filter)) { throughout.remove(key) }
        }
    }

    /// Applies every change of `changes` up to `version` that is not applied yet;
    /// `changes[i]` is the change of version `i + 1` (an array of every change, or a slice of
    /// it that starts at the first change not applied yet).
    package mutating func apply(_ changes: ArraySlice<StoreChange>, through version: UInt64) {
        while self.version < version {
            apply(changes[Int(self.version)])
        }
    }

    /// ``apply(_:through:)`` for an array of every change.
    package mutating func apply(_ changes: [StoreChange], through version: UInt64) {
        apply(changes[...], through: version)
    }

    // MARK: Paging

    /// The items of `range` now, in scan order (partition and scan ranges).
    package func items(in range: ScanRange, reverse: Bool) -> [Item] {
        let all: [Item]
        switch range {
        case .partition(let partition): all = partitions[partition]
        case .scan: all = partitions.flatMap { $0 }
        case .segment: preconditionFailure("the model pages partitions and scans")
        }
        return reverse ? all.reversed() : all
    }

    /// Where a drain of the model resumes.
    package enum Cursor: Sendable, Equatable {
        case start
        /// Keyset: strictly after this key, in scan order.
        case after(ItemKey)
        /// Offset: at the n-th item of the range.
        case offset(Int)
    }

    /// One page of the model.
    package struct ModelPage: Sendable {
        package var items: [Item]
        package var scannedCount: Int
        package var scannedBytes: Int
        /// The cursor of the next page; nil when the store would return no token.
        package var next: Cursor?
    }

    /// The page at `cursor` of `request`'s range now, by S2–S6 and S24.
    package func page(
        _ request: PageRequest,
        at cursor: Cursor,
        continuation: ContinuationMode,
        defaultLimit: Int = 10,
        budgetBytes: Int,
        boundary: BudgetBoundary,
        exactEnd: ExactEnd
    ) -> ModelPage {
        let items = self.items(in: request.range, reverse: request.reverse)
        let limit = request.limit ?? defaultLimit
        var index: Int
        var passed = 0
        switch cursor {
        case .start:
            index = 0
        case .offset(let n):
            index = min(n, items.count)
            passed = n
        case .after(let key):
            func beyond(_ item: Item) -> Bool {
                let order = (item.partition, item.sortKey) > (key.partition, key.sortKey)
                return request.reverse ? (item.partition, item.sortKey) < (key.partition, key.sortKey) : order
            }
            index = items.firstIndex(where: beyond) ?? items.count
        }
        var page = ModelPage(items: [], scannedCount: 0, scannedBytes: 0, next: nil)
        var last: Item?
        while page.scannedCount < limit, index < items.count {
            let item = items[index]
            if boundary == .exclusive, page.scannedCount > 0, item.sizeBytes > budgetBytes - page.scannedBytes { break }
            page.scannedCount += 1
            page.scannedBytes += item.sizeBytes
            if item.matches(request.filter) { page.items.append(item) }
            last = item
            index += 1
            if boundary == .inclusive, page.scannedBytes >= budgetBytes { break }
        }
        let remain = index < items.count
        if page.scannedCount > 0, remain || (page.scannedCount == limit && exactEnd == .continuation), let last {
            page.next =
                continuation == .keyset
                ? .after(ItemKey(last)) : .offset((cursor == .start ? 0 : passed) + page.scannedCount)
        }
        return page
    }

    // MARK: Consistency (S25)

    /// Starts a drain: from now on, the keys that exist and match are followed through
    /// every change until ``endDrain(returned:)``.
    package mutating func beginDrain(range: ScanRange) {
        throughout = Set(items(in: range, reverse: false).filter { $0.matches(filter) }.map(ItemKey.init))
        tracking = true
    }

    /// Ends a drain that returned `returned` (in order, with repeats): its duplicates (keys
    /// returned more than once, counted per extra return) and skips (keys that existed and
    /// matched at every state of the drain and were never returned).
    package mutating func endDrain(returned: [Item]) -> (duplicates: Int, skipped: Int) {
        tracking = false
        let keys = returned.map(ItemKey.init)
        let distinct = Set(keys)
        return (keys.count - distinct.count, throughout.subtracting(distinct).count)
    }
}
