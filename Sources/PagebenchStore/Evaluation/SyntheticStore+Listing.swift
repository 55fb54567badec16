import PagebenchPage

extension SyntheticStore {
    /// The unpaginated, filtered result of a range in scan order: what following tokens from
    /// the first call must return, exactly once and in order (S10, S11, S13).
    ///
    /// An invalid range (unknown partition, invalid segment) yields nothing; call
    /// ``itemCount(in:)`` or ``listing(in:filter:reverse:)`` to get the error instead.
    public func items(in range: ScanRange, filter: Filter?, reverse: Bool) -> StoreItems {
        let listing = (try? listing(in: range, filter: filter, reverse: reverse)) ?? ItemListing.empty(self)
        return StoreItems(listing: listing)
    }

    /// Every item a full traversal of the range evaluates, in scan order, each with whether
    /// it passes `filter` (Σ scanned of S11 is this listing's length).
    ///
    /// - Throws: ``StoreError`` for an unknown partition or invalid segment.
    ///
    /// Under writes, the range as the store holds it now (a snapshot, read page by page;
    /// listing applies no write).
    public func listing(in range: ScanRange, filter: Filter?, reverse: Bool) throws -> ItemListing {
        let (lo, hi) = try bounds(of: range)
        if overlay != nil {
            var request = PageRequest(range: range, reverse: reverse, limit: 4096)
            var items: [Item] = []
            while true {
                let page = try evaluate(request)
                items += page.items
                guard let token = page.nextToken else { break }
                request.token = token
            }
            return ItemListing(store: self, lo: 0, hi: 0, filter: filter, reverse: reverse, items: items)
        }
        return ItemListing(store: self, lo: lo, hi: hi, filter: filter, reverse: reverse)
    }

    /// The item at `sortKey` of `partition`, or `nil` when it does not exist (under writes:
    /// as the store holds it now).
    public func item(partition: Int, sortKey: UInt64) -> Item? {
        guard partition >= 0, partition < layout.partitions else { return nil }
        let count = layout.count(of: partition)
        guard let overlay else {
            guard sortKey < UInt64(count) else { return nil }
            return model.item(partition: partition, partitionSeed: model.partitionSeed(partition), sortKey: sortKey)
        }
        if overlay.mayHaveChanges(partition) {
            let changed = overlay.withChanges(of: partition) { changes -> ChangedKey? in
                changes.flatMap { changes in changes.find(sortKey).map { changes[$0] } }
            }
            if let changed {
                guard changed.live else { return nil }
                return Item(
                    partition: partition,
                    sortKey: sortKey,
                    sizeBytes: changed.sizeBytes,
                    category: changed.category,
                    fingerprint: changed.fingerprint
                )
            }
        }
        guard let index = KeySpace.baseIndex(ofKey: sortKey, count: count) else { return nil }
        return baseItem(partition: partition, seed: model.partitionSeed(partition), index: index)
    }
}

/// Every item of a range in scan order, with its filter verdict; generated lazily.
public struct ItemListing: Sequence, Sendable {
    let store: SyntheticStore
    let lo: Int
    let hi: Int
    let filter: Filter?
    let reverse: Bool
    /// Under writes: the items, already in scan order (`lo`, `hi` unused).
    var items: [Item]? = nil

    static func empty(_ store: SyntheticStore) -> ItemListing {
        ItemListing(store: store, lo: 0, hi: 0, filter: nil, reverse: false)
    }

    /// The number of items (evaluated items of a full traversal).
    public var count: Int { items?.count ?? hi - lo }
    public var underestimatedCount: Int { count }

    public func makeIterator() -> Iterator {
        Iterator(listing: self, position: items != nil ? 0 : reverse ? hi - 1 : lo)
    }

    public struct Iterator: IteratorProtocol {
        let listing: ItemListing
        var position: Int
        var partition = 0
        var partitionStart = 0
        var partitionEnd = 0
        var partitionSeed: UInt64 = 0

        init(listing: ItemListing, position: Int) {
            self.listing = listing
            self.position = position
        }

        public mutating func next() -> ListedItem? {
            if let items = listing.items {
                guard position < items.count else { return nil }
                defer { position += 1 }
                return ListedItem(item: items[position], matches: items[position].matches(listing.filter))
            }
            guard position >= listing.lo, position < listing.hi else { return nil }
            let layout = listing.store.layout
            let model = listing.store.model
            if position < partitionStart || position >= partitionEnd {
                partition = layout.partition(containing: position)
                partitionStart = layout.start(of: partition)
                partitionEnd = layout.start(of: partition + 1)
                partitionSeed = model.partitionSeed(partition)
            }
            let item = model.item(
                partition: partition,
                partitionSeed: partitionSeed,
                sortKey: UInt64(truncatingIfNeeded: position - partitionStart)
            )
            position += listing.reverse ? -1 : 1
            return ListedItem(item: item, matches: item.matches(listing.filter))
        }
    }
}

/// The items of a range that pass a filter, in scan order; generated lazily.
public struct StoreItems: Sequence, Sendable {
    let listing: ItemListing

    public func makeIterator() -> Iterator { Iterator(base: listing.makeIterator()) }

    public struct Iterator: IteratorProtocol {
        var base: ItemListing.Iterator

        public mutating func next() -> Item? {
            while let listed = base.next() {
                if listed.matches { return listed.item }
            }
            return nil
        }
    }
}
