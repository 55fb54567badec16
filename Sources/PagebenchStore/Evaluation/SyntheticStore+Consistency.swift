import PagebenchPage

/// The identity of an item: what duplicates and skips are counted on (S25).
public struct ItemKey: Sendable, Hashable {
    public let partition: Int
    public let sortKey: UInt64

    public init(partition: Int, sortKey: UInt64) {
        self.partition = partition
        self.sortKey = sortKey
    }

    public init(_ item: Item) {
        self.init(partition: item.partition, sortKey: item.sortKey)
    }
}

extension SyntheticStore {
    /// S25: how many items a drain skipped — keys of its range that existed and matched its
    /// filter at every version from `firstVersion` (the first page saw every write up to
    /// it) to `lastVersion` (the last page saw none after it) and are not among `returned`
    /// (the distinct keys the drain returned).
    ///
    /// Derived from the overlay's versions, never by listing the store again: the base items
    /// that match (counted once per range and filter, from the seed), corrected by every
    /// changed key of the range according to its history. 0 without writes.
    ///
    /// - Parameter request: the drain's first request (its range, sort-key window and filter).
    public func skippedItems(
        of request: PageRequest,
        from firstVersion: UInt64,
        to lastVersion: UInt64,
        returned: Set<ItemKey>
    ) -> Int {
        guard let overlay, let (low, high) = try? keyBounds(of: request), low < high else { return 0 }
        let filter = request.filter
        var expected = baseMatchCount(low: low, high: high, filter: filter, overlay: overlay)
        var expectedReturned = returned.count
        let first = layout.partition(containingKey: low)
        let last = layout.partition(containingKey: high - 1)
        for partition in overlay.changedPartitions() where partition >= first && partition <= last {
            let start = layout.startKey(of: partition)
            let from = max(low, start) - start
            let to = min(high, layout.startKey(of: partition + 1)) - start
            let seed = model.partitionSeed(partition)
            overlay.withChanges(of: partition) { changes in
                guard let changes else { return }
                var index = changes.firstIndex(atOrAfter: from)
                while index != changes.endIndex, changes[index].key < to {
                    let changed = changes[index]
                    var base: Item?
                    if changed.isBase, let baseIndex = KeySpace.baseIndex(ofKey: changed.key, count: changes.baseCount)
                    {
                        base = model.item(partition: partition, partitionSeed: seed, sortKey: UInt64(baseIndex))
                    }
                    let wasExpected = Self.existedAndMatched(
                        changed,
                        base: base,
                        filter: filter,
                        from: firstVersion,
                        to: lastVersion
                    )
                    if wasExpected { expected += 1 }
                    if base?.matches(filter) == true { expected -= 1 }
                    if !wasExpected, returned.contains(ItemKey(partition: partition, sortKey: changed.key)) {
                        expectedReturned -= 1
                    }
                    index = changes.index(after: index)
                }
            }
        }
        return max(0, expected - expectedReturned)
    }

    /// Whether a changed key existed and matched `filter` at every version of
    /// `first ... last`: its state at `first` (the base item's before its first write), and
    /// every write after `first` up to `last`.
    static func existedAndMatched(
        _ changed: ChangedKey,
        base: Item?,
        filter: Filter?,
        from first: UInt64,
        to last: UInt64
    ) -> Bool {
        var live = base != nil
        var sizeBytes = base?.sizeBytes ?? 0
        var category = base?.storeAttributes.category ?? 0
        for event in changed.history {
            if event.version <= first {
                live = event.live
                sizeBytes = event.sizeBytes
                category = event.category
            } else if event.version <= last {
                guard event.live, filter?.matches(category: event.category, sizeBytes: event.sizeBytes) ?? true else {
                    return false
                }
            } else {
                break
            }
        }
        return live && (filter?.matches(category: category, sizeBytes: sizeBytes) ?? true)
    }

    /// The base items (as created, before any write) with keys in `low ..< high` that pass
    /// `filter`: arithmetic without a filter, else counted from the seed once per range and
    /// filter and remembered.
    func baseMatchCount(low: UInt64, high: UInt64, filter: Filter?, overlay: WriteOverlay) -> Int {
        let lo = basePosition(atOrAfterKey: low)
        let hi = basePosition(atOrAfterKey: high)
        guard let filter, lo < hi else { return max(0, hi - lo) }
        let key = WriteOverlay.MatchCountKey(lowKey: low, highKey: high, filter: filter)
        if let known = overlay.matchCounts.withLock({ $0[key] }) { return known }
        let listing = ItemListing(store: self, lo: lo, hi: hi, filter: filter, reverse: false)
        let count = listing.reduce(0) { $0 + ($1.matches ? 1 : 0) }
        overlay.matchCounts.withLock { $0[key] = count }
        return count
    }

    /// The global position of the first base item whose key is `key` or above.
    func basePosition(atOrAfterKey key: UInt64) -> Int {
        guard key < layout.endKey else { return layout.total }
        let partition = layout.partition(containingKey: key)
        return layout.start(of: partition)
            + KeySpace.basesBelow(key - layout.startKey(of: partition), count: layout.count(of: partition))
    }
}
