/// One write's effect on one key, kept so that what a key was at any version can be told
/// (S25 needs "existed and matched from the first request to the last").
struct KeyEvent: Sendable {
    let version: UInt64
    /// Whether the key exists after this write (false for a delete).
    let live: Bool
    let sizeBytes: Int
    let category: Int
}

/// A key of a partition that some write touched: an inserted key, or a base item that was
/// updated or deleted. Its current state is inline for the page loop; its history is for
/// consistency accounting.
struct ChangedKey: Sendable {
    /// The local sort key (``KeySpace``).
    let key: UInt64
    /// Whether the key is a base item's (so before its first write it existed with the
    /// base attributes); false for an inserted key.
    let isBase: Bool
    var live: Bool
    var sizeBytes: Int
    var category: Int
    var fingerprint: UInt64
    /// Every write of this key, oldest first.
    var history: [KeyEvent]

    /// +1 for a live inserted key, −1 for a deleted base item, else 0: how this key changes
    /// the partition's item count.
    @inline(__always)
    var countDelta: Int { isBase ? (live ? 0 : -1) : (live ? 1 : 0) }
}

/// The changed keys of one partition in key order, in chunks so that an insert moves at most
/// a chunk (a hot partition with 10^5 changes stays cheap to write), each chunk with the sum
/// of its keys' ``ChangedKey/countDelta`` so that finding the n-th item (offset
/// continuation, write placement) walks chunks, not keys.
///
/// A plain value mutated in place under its shard's lock (``WriteOverlay``); readers read it
/// under the same lock and never keep it.
struct PartitionChanges: Sendable {
    static let chunkCapacity = 512

    /// The partition's number of base items.
    let baseCount: Int
    /// Sorted, non-empty chunks; together sorted by key.
    private(set) var chunks: [[ChangedKey]] = []
    /// Σ countDelta of each chunk.
    private var chunkDeltas: [Int] = []
    /// Σ countDelta of every key.
    private(set) var countDelta = 0
    /// Number of changed keys.
    private(set) var keyCount = 0

    init(baseCount: Int) {
        self.baseCount = baseCount
    }

    /// Items of the partition now.
    var itemCount: Int { baseCount + countDelta }

    /// A position among the changed keys: `chunk == chunks.count` is the end.
    struct Index: Sendable, Equatable {
        var chunk: Int
        var offset: Int
    }

    var endIndex: Index { Index(chunk: chunks.count, offset: 0) }
    var startIndex: Index { Index(chunk: 0, offset: 0) }

    @inline(__always)
    subscript(index: Index) -> ChangedKey { chunks[index.chunk][index.offset] }

    @inline(__always)
    func index(after index: Index) -> Index {
        index.offset + 1 < chunks[index.chunk].count
            ? Index(chunk: index.chunk, offset: index.offset + 1) : Index(chunk: index.chunk + 1, offset: 0)
    }

    /// The index before `index`, or nil at the start.
    @inline(__always)
    func index(before index: Index) -> Index? {
        if index.offset > 0 { return Index(chunk: index.chunk, offset: index.offset - 1) }
        guard index.chunk > 0 else { return nil }
        return Index(chunk: index.chunk - 1, offset: chunks[index.chunk - 1].count - 1)
    }

    /// The first changed key with key ≥ `key` (or > with `strictly`), or ``endIndex``.
    func firstIndex(atOrAfter key: UInt64, strictly: Bool = false) -> Index {
        // The first chunk whose last key reaches `key`.
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            let last = chunks[middle][chunks[middle].count - 1].key
            if strictly ? last <= key : last < key { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else { return endIndex }
        let chunk = chunks[low]
        var first = 0
        var end = chunk.count
        while first < end {
            let middle = (first + end) / 2
            if strictly ? chunk[middle].key <= key : chunk[middle].key < key {
                first = middle + 1
            } else {
                end = middle
            }
        }
        return Index(chunk: low, offset: first)
    }

    /// The changed key equal to `key`, if any.
    func find(_ key: UInt64) -> Index? {
        let index = firstIndex(atOrAfter: key)
        guard index != endIndex, self[index].key == key else { return nil }
        return index
    }

    /// Items (live keys, base or inserted) with a key below `key`.
    func itemsBelow(_ key: UInt64) -> Int {
        var delta = 0
        for chunk in chunks.indices {
            let entries = chunks[chunk]
            if entries[entries.count - 1].key < key {
                delta += chunkDeltas[chunk]
                continue
            }
            for entry in entries {
                guard entry.key < key else { break }
                delta += entry.countDelta
            }
            break
        }
        return KeySpace.basesBelow(key, count: baseCount) + delta
    }

    /// The key of the item at `rank` (0-based, in key order among live items; `rank <
    /// itemCount`).
    func key(ofItemAt rank: Int) -> UInt64 {
        // Skip whole chunks while the items before the next chunk's first key are ≤ rank.
        var delta = 0
        var chunk = 0
        while chunk + 1 < chunks.count {
            let nextFirst = chunks[chunk + 1][0].key
            let below = KeySpace.basesBelow(nextFirst, count: baseCount) + delta + chunkDeltas[chunk]
            if below > rank { break }
            delta += chunkDeltas[chunk]
            chunk += 1
        }
        // Walk this chunk's keys: base items between them are consecutive.
        var boundary: UInt64 = 0  // every item below `boundary` is counted in `counted`
        var counted = KeySpace.basesBelow(0, count: baseCount) + delta
        if chunk < chunks.count {
            let first = chunks[chunk][0].key
            counted = KeySpace.basesBelow(first, count: baseCount) + delta
            boundary = first
            // A rank below the chunk's first key is a base item.
            if counted > rank { return KeySpace.baseKey(rank - delta) }
            for entry in chunks[chunk] {
                let basesBetween =
                    KeySpace.basesBelow(entry.key, count: baseCount) - KeySpace.basesBelow(boundary, count: baseCount)
                if counted + basesBetween > rank {
                    return KeySpace.baseKey(KeySpace.basesBelow(boundary, count: baseCount) + rank - counted)
                }
                counted += basesBetween
                if entry.live {
                    if counted == rank { return entry.key }
                    counted += 1
                }
                boundary = entry.key + 1
            }
        }
        // After the last changed key of the chunk: base items only (up to the next chunk,
        // which the walk above showed holds no earlier rank).
        return KeySpace.baseKey(KeySpace.basesBelow(boundary, count: baseCount) + rank - counted)
    }

    /// Inserts a new changed key (no key equal to it exists).
    mutating func insert(_ entry: ChangedKey) {
        keyCount += 1
        countDelta += entry.countDelta
        guard !chunks.isEmpty else {
            chunks = [[entry]]
            chunkDeltas = [entry.countDelta]
            return
        }
        var index = firstIndex(atOrAfter: entry.key)
        if index == endIndex { index = Index(chunk: chunks.count - 1, offset: chunks[chunks.count - 1].count) }
        chunks[index.chunk].insert(entry, at: index.offset)
        chunkDeltas[index.chunk] += entry.countDelta
        if chunks[index.chunk].count > Self.chunkCapacity {
            let upper = Array(chunks[index.chunk][(Self.chunkCapacity / 2)...])
            chunks[index.chunk].removeLast(upper.count)
            let upperDelta = upper.reduce(0) { $0 + $1.countDelta }
            chunkDeltas[index.chunk] -= upperDelta
            chunks.insert(upper, at: index.chunk + 1)
            chunkDeltas.insert(upperDelta, at: index.chunk + 1)
        }
    }

    /// Applies a write to an existing changed key.
    mutating func update(at index: Index, _ body: (inout ChangedKey) -> Void) {
        let before = chunks[index.chunk][index.offset].countDelta
        body(&chunks[index.chunk][index.offset])
        let change = chunks[index.chunk][index.offset].countDelta - before
        chunkDeltas[index.chunk] += change
        countDelta += change
    }
}
