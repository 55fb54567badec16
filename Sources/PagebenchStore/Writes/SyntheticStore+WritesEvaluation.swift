import PagebenchPage

extension SyntheticStore {
    /// The global keys `low ..< high` (``KeySpace``) a request walks under writes.
    func keyBounds(of request: PageRequest) throws(StoreError) -> (low: UInt64, high: UInt64) {
        let (lo, hi) = try bounds(of: request.range)  // validates the range
        if request.sortKeys != nil { try checkSortKeysApply(to: request.range) }
        return keyBounds(ofValid: request, lo: lo, hi: hi)
    }

    /// A sort-key window narrows a partition query only.
    func checkSortKeysApply(to range: ScanRange) throws(StoreError) {
        guard case .partition = range else {
            throw .invalidConfiguration("a sort-key range applies to a partition query only, not to a \(range)")
        }
    }

    /// ``keyBounds(of:)`` of a request already validated, whose range holds the global
    /// positions `lo ..< hi`.
    @inline(__always)
    func keyBounds(ofValid request: PageRequest, lo: Int, hi: Int) -> (low: UInt64, high: UInt64) {
        switch request.range {
        case .partition(let partition):
            let start = layout.startKey(of: partition)
            guard let keys = request.sortKeys else { return (start, layout.startKey(of: partition + 1)) }
            let end = KeySpace.localEnd(count: layout.count(of: partition))
            return (start + min(keys.lowerBound, end), start + min(keys.upperBound, end))
        case .scan:
            return (0, layout.endKey)
        case .segment:
            return (layout.boundaryKey(ofPosition: lo), layout.boundaryKey(ofPosition: hi))
        }
    }

    /// One page under writes (S1–S19 as without writes, S22–S24): the items of the range as
    /// the overlay has them now, resumed after the token's key (keyset) or at its offset.
    func evaluateUnderWrites(_ request: PageRequest, overlay: WriteOverlay) throws(StoreError) -> Page {
        let limit = request.limit ?? defaultLimit
        guard limit >= 1, limit <= PageRequest.maximumLimit else { throw .invalidLimit(limit) }
        let (low, high) = try keyBounds(of: request)
        let reverse = request.reverse

        var macPrefix: PageToken.MACPrefix?
        var offset = 0
        // Forward: the next key to evaluate (inclusive); reverse: the key below which to go on.
        var edge: UInt64
        if let token = request.token {
            let (decoded, prefix) = try PageToken.decodeKeepingPrefix(token, key: tokenKey)
            macPrefix = prefix
            try checkBinding(of: decoded, to: request, limit: limit)
            if offsetContinuation {
                guard decoded.lastPosition <= UInt64(Int.max) else {
                    throw .invalidToken("its offset lies outside the requested \(request.range)")
                }
                offset = Int(decoded.lastPosition)
                edge = key(atOffset: offset, low: low, high: high, reverse: reverse, overlay: overlay)
            } else {
                let last = decoded.lastPosition
                guard last >= low, last < high else {
                    throw .invalidToken("its position lies outside the requested \(request.range)")
                }
                edge = reverse ? last : last + 1
            }
        } else {
            edge = reverse ? high : low
        }

        var scan = WriteScan(limit: limit, budget: budgetBytes)
        let bound = max(0, min(limit, itemsPerBudget))
        let items = withUnsafeTemporaryAllocation(of: Item.self, capacity: Self.stackChunk) { chunk in
            var sink = ItemSink(chunk: chunk, bound: bound)
            if reverse {
                scanBackward(below: edge, low: low, filter: request.filter, overlay: overlay, scan: &scan, sink: &sink)
            } else {
                scanForward(from: edge, high: high, filter: request.filter, overlay: overlay, scan: &scan, sink: &sink)
            }
            return sink.finish()
        }

        // S5, S6 as without writes: a token unless no item of the range is left (a page cut
        // by the exclusive budget always leaves one), or the limit ended the page exactly at
        // the range's end and the exact-end rule is `continuation`.
        var itemsRemain = false
        let atLimit = scan.scanned == limit
        if scan.stopped, !(atLimit && continuationAtExactEnd) {
            itemsRemain =
                scan.cutByBudget && exclusiveBoundary
                || hasItem(beyond: scan.lastKey, low: low, high: high, reverse: reverse, overlay: overlay)
        }
        let exhausted = !itemsRemain && !(atLimit && continuationAtExactEnd)
        var nextToken: String?
        if scan.scanned > 0, !exhausted || (scan.scanned == limit && continuationAtExactEnd) {
            let (rangeKind, rangeA, rangeB) = PageToken.rangeFields(request.range)
            let (filterKind, filterValue) = PageToken.filterFields(request.filter)
            let position = offsetContinuation ? UInt64(offset + scan.scanned) : scan.lastKey
            let next = PageToken(
                reverse: reverse,
                rangeKind: rangeKind,
                rangeA: rangeA,
                rangeB: rangeB,
                limit: UInt32(truncatingIfNeeded: limit),
                filterKind: filterKind,
                filterValue: filterValue,
                lastPosition: position
            )
            nextToken = next.encode(key: tokenKey, reusing: macPrefix)
        }
        return Page(items: items, scannedCount: scan.scanned, scannedBytes: scan.bytes, nextToken: nextToken)
    }

    // MARK: Walking partitions

    /// Evaluates items with keys from `from` up to `high` (exclusive), partition by
    /// partition: an unchanged partition through the store's base loop, a changed one
    /// through the merge of its base items and changed keys.
    private func scanForward(
        from: UInt64,
        high: UInt64,
        filter: Filter?,
        overlay: WriteOverlay,
        scan: inout WriteScan,
        sink: inout ItemSink
    ) {
        var key = from
        while key < high, !scan.stopped {
            let partition = layout.partition(containingKey: key)
            let start = layout.startKey(of: partition)
            let end = min(high, layout.startKey(of: partition + 1))
            if overlay.mayHaveChanges(partition) {
                overlay.withChanges(of: partition) { changes in
                    if let changes {
                        mergeForward(
                            partition: partition,
                            changes: changes,
                            from: key - start,
                            to: end - start,
                            start: start,
                            filter: filter,
                            scan: &scan,
                            sink: &sink
                        )
                    } else {
                        baseRun(
                            partition: partition,
                            from: key - start,
                            to: end - start,
                            start: start,
                            reverse: false,
                            filter: filter,
                            scan: &scan,
                            sink: &sink
                        )
                    }
                }
            } else {
                baseRun(
                    partition: partition,
                    from: key - start,
                    to: end - start,
                    start: start,
                    reverse: false,
                    filter: filter,
                    scan: &scan,
                    sink: &sink
                )
            }
            key = end
        }
    }

    /// Evaluates items with keys below `below` down to `low` (inclusive), in descending order.
    private func scanBackward(
        below: UInt64,
        low: UInt64,
        filter: Filter?,
        overlay: WriteOverlay,
        scan: inout WriteScan,
        sink: inout ItemSink
    ) {
        var key = below  // exclusive
        while key > low, !scan.stopped {
            let partition = layout.partition(containingKey: key - 1)
            let start = layout.startKey(of: partition)
            let floor = max(low, start)
            if overlay.mayHaveChanges(partition) {
                overlay.withChanges(of: partition) { changes in
                    if let changes {
                        mergeBackward(
                            partition: partition,
                            changes: changes,
                            from: floor - start,
                            to: key - start,
                            start: start,
                            filter: filter,
                            scan: &scan,
                            sink: &sink
                        )
                    } else {
                        baseRun(
                            partition: partition,
                            from: floor - start,
                            to: key - start,
                            start: start,
                            reverse: true,
                            filter: filter,
                            scan: &scan,
                            sink: &sink
                        )
                    }
                }
            } else {
                baseRun(
                    partition: partition,
                    from: floor - start,
                    to: key - start,
                    start: start,
                    reverse: true,
                    filter: filter,
                    scan: &scan,
                    sink: &sink
                )
            }
            key = floor
        }
    }

    /// The base items of an unchanged partition with local keys in `from ..< to`, through the
    /// store's own loop (``scanPage``), in either direction.
    @inline(__always)
    private func baseRun(
        partition: Int,
        from: UInt64,
        to: UInt64,
        start: UInt64,
        reverse: Bool,
        filter: Filter?,
        scan: inout WriteScan,
        sink: inout ItemSink
    ) {
        let count = layout.count(of: partition)
        let first = KeySpace.basesBelow(from, count: count)
        let end = KeySpace.basesBelow(to, count: count)
        guard first < end else { return }
        let base = layout.start(of: partition)
        let lo = base + first
        let hi = base + end
        var cursor = ScanCursor(position: reverse ? hi - 1 : lo, scanned: scan.scanned, bytes: scan.bytes)
        while true {
            sink.withFreeSlots { buffer in
                scanPage(
                    reverse: reverse,
                    filter: filter,
                    limit: scan.limit,
                    lo: lo,
                    hi: hi,
                    cursor: &cursor,
                    into: buffer,
                    spaced: true
                )
            }
            guard cursor.bufferFull else { break }
            cursor.bufferFull = false
        }
        if cursor.scanned > scan.scanned {
            let last = cursor.position - (reverse ? -1 : 1) - base
            scan.lastKey = start + KeySpace.baseKey(last)
        }
        scan.scanned = cursor.scanned
        scan.bytes = cursor.bytes
        // Stopped inside the run, not at the limit: the budget cut the page (S4).
        let inside = reverse ? cursor.position >= lo : cursor.position < hi
        if scan.scanned >= scan.limit {
            scan.stopped = true
        } else if inside {
            scan.stopped = true
            scan.cutByBudget = true
        } else if !exclusiveBoundary, scan.bytes >= budgetBytes {
            // S4 inclusive: the crossing item was the run's last; the page still ends here.
            scan.stopped = true
            scan.cutByBudget = true
        }
    }

    /// The items of a changed partition with local keys in `from ..< to`, ascending: its
    /// base items merged with its changed keys (deleted ones skipped, updated ones with
    /// their new attributes, inserted ones between).
    private func mergeForward(
        partition: Int,
        changes: PartitionChanges,
        from: UInt64,
        to: UInt64,
        start: UInt64,
        filter: Filter?,
        scan: inout WriteScan,
        sink: inout ItemSink
    ) {
        let count = changes.baseCount
        let seed = model.partitionSeed(partition)
        var base = KeySpace.basesBelow(from, count: count)
        let baseEnd = KeySpace.basesBelow(to, count: count)
        var index = changes.firstIndex(atOrAfter: from)
        let end = changes.endIndex
        while scan.scanned < scan.limit {
            let baseKey = base < baseEnd ? KeySpace.baseKey(base) : UInt64.max
            var changedKey = UInt64.max
            if index != end {
                let key = changes[index].key
                if key < to { changedKey = key }
            }
            if baseKey == .max, changedKey == .max { return }
            let item: Item
            if changedKey <= baseKey {
                let changed = changes[index]
                index = changes.index(after: index)
                if changedKey == baseKey { base += 1 }
                guard changed.live else { continue }
                item = Item(
                    partition: partition,
                    sortKey: changed.key,
                    sizeBytes: changed.sizeBytes,
                    category: changed.category,
                    fingerprint: changed.fingerprint
                )
            } else {
                item = baseItem(partition: partition, seed: seed, index: base)
                base += 1
            }
            guard
                scan.evaluate(
                    item,
                    globalKey: start + item.sortKey,
                    filter: filter,
                    exclusive: exclusiveBoundary,
                    sink: &sink
                )
            else { return }
        }
        scan.stopped = true
    }

    /// ``mergeForward`` descending: local keys in `from ..< to`, from the top.
    private func mergeBackward(
        partition: Int,
        changes: PartitionChanges,
        from: UInt64,
        to: UInt64,
        start: UInt64,
        filter: Filter?,
        scan: inout WriteScan,
        sink: inout ItemSink
    ) {
        let count = changes.baseCount
        let seed = model.partitionSeed(partition)
        var base = KeySpace.basesBelow(to, count: count) - 1  // the last base item below `to`
        let baseFloor = KeySpace.basesBelow(from, count: count)
        var index = changes.index(before: changes.firstIndex(atOrAfter: to))
        while scan.scanned < scan.limit {
            let baseKey: UInt64? = base >= baseFloor ? KeySpace.baseKey(base) : nil
            var changedKey: UInt64?
            if let current = index {
                let key = changes[current].key
                if key >= from { changedKey = key }
            }
            guard baseKey != nil || changedKey != nil else { return }
            let item: Item
            if let changedKey, baseKey.map({ changedKey >= $0 }) ?? true {
                let changed = changes[index!]
                index = changes.index(before: index!)
                if changedKey == baseKey { base -= 1 }
                guard changed.live else { continue }
                item = Item(
                    partition: partition,
                    sortKey: changed.key,
                    sizeBytes: changed.sizeBytes,
                    category: changed.category,
                    fingerprint: changed.fingerprint
                )
            } else {
                item = baseItem(partition: partition, seed: seed, index: base)
                base -= 1
            }
            guard
                scan.evaluate(
                    item,
                    globalKey: start + item.sortKey,
                    filter: filter,
                    exclusive: exclusiveBoundary,
                    sink: &sink
                )
            else { return }
        }
        scan.stopped = true
    }

    /// Base item `index` of `partition` with its spaced key.
    @inline(__always)
    func baseItem(partition: Int, seed: UInt64, index: Int) -> Item {
        let item = model.item(partition: partition, partitionSeed: seed, sortKey: UInt64(index))
        return Item(
            partition: partition,
            sortKey: KeySpace.baseKey(index),
            sizeBytes: item.sizeBytes,
            category: item.storeAttributes.category,
            fingerprint: item.storeAttributes.fingerprint
        )
    }

    // MARK: Offsets and the end of a range

    /// Items of `partition` with local keys in `from ..< to` now.
    func itemCount(partition: Int, from: UInt64, to: UInt64, overlay: WriteOverlay) -> Int {
        guard from < to else { return 0 }
        let count = layout.count(of: partition)
        if overlay.mayHaveChanges(partition) {
            if let counted = overlay.withChanges(
                of: partition,
                { changes -> Int? in
                    changes.map { $0.itemsBelow(to) - $0.itemsBelow(from) }
                }
            ) {
                return counted
            }
        }
        return KeySpace.basesBelow(to, count: count) - KeySpace.basesBelow(from, count: count)
    }

    /// S24 offset: the edge of the `offset`-th item of `low ..< high` in scan direction as it
    /// is now (forward: its key; reverse: its key + 1), or the range's far end when the range
    /// has no more than `offset` items. O(partitions before the offset), plus the changed
    /// keys of the partition it falls in.
    func key(atOffset offset: Int, low: UInt64, high: UInt64, reverse: Bool, overlay: WriteOverlay) -> UInt64 {
        var remaining = offset
        if !reverse {
            var key = low
            while key < high {
                let partition = layout.partition(containingKey: key)
                let start = layout.startKey(of: partition)
                let end = min(high, layout.startKey(of: partition + 1))
                let count = itemCount(partition: partition, from: key - start, to: end - start, overlay: overlay)
                if remaining < count {
                    return start + localKey(partition: partition, rank: remaining, after: key - start, overlay: overlay)
                }
                remaining -= count
                key = end
            }
            return high
        }
        var key = high
        while key > low {
            let partition = layout.partition(containingKey: key - 1)
            let start = layout.startKey(of: partition)
            let floor = max(low, start)
            let count = itemCount(partition: partition, from: floor - start, to: key - start, overlay: overlay)
            if remaining < count {
                // The `remaining`-th item from the top of the run is the (count − 1 − remaining)-th from its floor.
                return start
                    + localKey(
                        partition: partition,
                        rank: count - 1 - remaining,
                        after: floor - start,
                        overlay: overlay
                    )
                    + 1
            }
            remaining -= count
            key = floor
        }
        return low
    }

    /// The local key of the `rank`-th item (0-based) at or after local key `from` of `partition`.
    private func localKey(partition: Int, rank: Int, after from: UInt64, overlay: WriteOverlay) -> UInt64 {
        let count = layout.count(of: partition)
        if overlay.mayHaveChanges(partition),
            let key = overlay.withChanges(
                of: partition,
                { changes -> UInt64? in
                    changes.map { $0.key(ofItemAt: $0.itemsBelow(from) + rank) }
                }
            )
        {
            return key
        }
        return KeySpace.baseKey(KeySpace.basesBelow(from, count: count) + rank)
    }

    /// Whether an item lies beyond global key `key` (above it forward, below it in reverse)
    /// within `low ..< high`: S6's exact end under the `final` rule.
    private func hasItem(beyond key: UInt64, low: UInt64, high: UInt64, reverse: Bool, overlay: WriteOverlay) -> Bool {
        if !reverse {
            var next = key + 1
            while next < high {
                let partition = layout.partition(containingKey: next)
                let start = layout.startKey(of: partition)
                let end = min(high, layout.startKey(of: partition + 1))
                if itemCount(partition: partition, from: next - start, to: end - start, overlay: overlay) > 0 {
                    return true
                }
                next = end
            }
            return false
        }
        var below = key
        while below > low {
            let partition = layout.partition(containingKey: below - 1)
            let start = layout.startKey(of: partition)
            let floor = max(low, start)
            if itemCount(partition: partition, from: floor - start, to: below - start, overlay: overlay) > 0 {
                return true
            }
            below = floor
        }
        return false
    }
}

/// Where a page under writes stands: items and bytes evaluated, the last evaluated key, and
/// why it stopped.
struct WriteScan {
    let limit: Int
    let budget: Int
    var scanned = 0
    var bytes = 0
    /// The global key of the last evaluated item.
    var lastKey: UInt64 = 0
    /// The page is complete (limit or budget).
    var stopped = false
    /// The budget ended the page (S4), so the range goes on.
    var cutByBudget = false

    init(limit: Int, budget: Int) {
        self.limit = limit
        self.budget = budget
    }

    /// Evaluates one item (S2–S4): false when the page ends before it (exclusive budget) or
    /// with it (inclusive budget crossed).
    @inline(__always)
    mutating func evaluate(
        _ item: Item,
        globalKey: UInt64,
        filter: Filter?,
        exclusive: Bool,
        sink: inout ItemSink
    )
        -> Bool
    {
        if exclusive, scanned > 0, item.sizeBytes > budget &- bytes {
            stopped = true
            cutByBudget = true
            return false
        }
        scanned += 1
        bytes &+= item.sizeBytes
        lastKey = globalKey
        if filter?.matches(item) ?? true { sink.append(item) }
        if !exclusive, bytes >= budget {
            stopped = true
            cutByBudget = true
            return false
        }
        if scanned >= limit {
            stopped = true
            return false
        }
        return true
    }
}

/// A page's items: a stack buffer first, an array once it overflows (as the base loop's
/// ``SyntheticStore/stackChunk`` buffer).
struct ItemSink {
    let chunk: UnsafeMutableBufferPointer<Item>
    let bound: Int
    var written = 0
    var overflow: [Item] = []

    init(chunk: UnsafeMutableBufferPointer<Item>, bound: Int) {
        self.chunk = chunk
        self.bound = bound
    }

    @inline(__always)
    mutating func append(_ item: Item) {
        if written == chunk.count { flush() }
        (chunk.baseAddress! + written).initialize(to: item)
        written += 1
    }

    /// Lets `body` write items into the free end of the buffer (flushing it first when
    /// full); `body` returns how many it wrote.
    @inline(__always)
    mutating func withFreeSlots(_ body: (UnsafeMutableBufferPointer<Item>) -> Int) {
        if written == chunk.count { flush() }
        written += body(UnsafeMutableBufferPointer(rebasing: chunk[written...]))
    }

    private mutating func flush() {
        if overflow.isEmpty { overflow.reserveCapacity(min(max(bound, chunk.count * 2), 4096)) }
        overflow.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<written]))
        chunk.baseAddress!.deinitialize(count: written)
        written = 0
    }

    /// The items, in order.
    mutating func finish() -> [Item] {
        if overflow.isEmpty { return Array(UnsafeBufferPointer(rebasing: chunk[..<written])) }
        flush()
        return overflow
    }
}
