/// The sort keys of a store under writes (S22), where inserts need room between keys.
///
/// Base item `k` of a partition has sort key `(k + 1) · 2^24`, so every gap between two
/// neighbours, before the first item and after the last, holds 2^24 − 1 free keys for
/// inserts. Partition `p` (holding `c` base items) owns the local keys `0 ..< (c + 1) · 2^24`,
/// and the *global key* of its local key `s` is `(start(p) + p) · 2^24 + s`: one 64-bit
/// value in scan order across partitions, which is what a keyset token carries. A store
/// without writes keeps its keys `0 ..< c` and none of this applies.
enum KeySpace {
    static let shift: UInt64 = 24
    /// The distance between two neighbouring base keys.
    static let spacing: UInt64 = 1 << 24
    /// Items + partitions a store under writes may have: 2^40 slots of 2^24 keys fill 64 bits.
    static let maximumSlots = 1 << 40

    /// The local sort key of base item `index`.
    @inline(__always)
    static func baseKey(_ index: Int) -> UInt64 { UInt64(truncatingIfNeeded: index &+ 1) << shift }

    /// The base item whose key is `key` in a partition of `count` base items, or nil when
    /// `key` is not a base key.
    @inline(__always)
    static func baseIndex(ofKey key: UInt64, count: Int) -> Int? {
        guard key & (spacing - 1) == 0, key >= spacing else { return nil }
        let index = key >> shift - 1
        return index < UInt64(count) ? Int(index) : nil
    }

    /// How many of a partition's `count` base items have a key below `key`.
    @inline(__always)
    static func basesBelow(_ key: UInt64, count: Int) -> Int {
        // (k + 1)·2^24 < key  ⟺  k + 1 < ⌈key / 2^24⌉
        let ceiling = key >> shift + (key & (spacing - 1) == 0 ? 0 : 1)
        return ceiling == 0 ? 0 : Int(min(UInt64(count), ceiling - 1))
    }

    /// The end (exclusive) of the local keys of a partition of `count` base items.
    @inline(__always)
    static func localEnd(count: Int) -> UInt64 { UInt64(count + 1) << shift }
}

extension PartitionLayout {
    /// The global key of local key 0 of `partition` (``KeySpace``); `partitions` gives the end.
    @inline(__always)
    func startKey(of partition: Int) -> UInt64 {
        UInt64(start(of: partition) + partition) << KeySpace.shift
    }

    /// The end (exclusive) of every global key.
    var endKey: UInt64 { UInt64(total + partitions) << KeySpace.shift }

    /// The global key of the base item at global position `position` (`0 ≤ position < total`).
    @inline(__always)
    func key(ofPosition position: Int) -> UInt64 {
        // startKey(p) + baseKey(position − start(p)) = (position + p + 1) · 2^24
        UInt64(position + partition(containing: position) + 1) << KeySpace.shift
    }

    /// How many base items have a global key below `key`: the position of the first base item
    /// at or above it.
    @inline(__always)
    func positions(belowKey key: UInt64) -> Int {
        guard key > 0 else { return 0 }
        guard key <= endKey else { return total }
        // Partition p owns the slots start(p) + p ... start(p) + p + count(p) (slot j > 0 of it
        // holds base item j − 1 and the keys just below the next slot's), so the base items
        // with a key at or below any key of slot s are the s − p items of slots 1 ... s.
        let slot = Int(truncatingIfNeeded: (key - 1) >> KeySpace.shift)
        return slot - partition(containingSlot: slot)
    }

    /// The partition holding global key `key` (`key < endKey`).
    @inline(__always)
    func partition(containingKey key: UInt64) -> Int {
        partition(containingSlot: Int(truncatingIfNeeded: key >> KeySpace.shift))
    }

    /// The global key that starts the keys of global position `position` (`0 ≤ position ≤
    /// total`): a segment boundary under writes. Keys between base items `k − 1` and `k`
    /// belong with item `k`; keys of a partition's head gap with its first item.
    /// Position 0 starts at key 0 and position `total` ends at ``endKey``, so that keys
    /// inserted into empty partitions at either end belong to the first or last segment.
    func boundaryKey(ofPosition position: Int) -> UInt64 {
        guard position > 0 else { return 0 }
        guard position < total else { return endKey }
        let partition = self.partition(containing: position)
        let index = position - start(of: partition)
        return startKey(of: partition) + (index == 0 ? 0 : (UInt64(index) << KeySpace.shift) + 1)
    }
}

extension SyntheticStore {
    /// Under writes, base item `k` of a partition has sort key `(k + 1) · keySpacingUnderWrites`
    /// (2^24), leaving room for inserted keys between neighbours (S22).
    public static var keySpacingUnderWrites: UInt64 { KeySpace.spacing }
}
