import PagebenchBase

/// Where each partition's items sit in the global scan order (partition 0's sort keys
/// first, then partition 1's, …), without storing items.
///
/// Uniform layouts are pure arithmetic; skewed layouts keep a prefix-sum table of
/// `partitions + 1` integers (at most 8 MB).
struct PartitionLayout: Sendable {
    let partitions: Int
    /// Items per partition when uniform, else 0.
    private let perPartition: Int
    /// Prefix sums when skewed (`starts[p]` is partition p's first global position), else empty.
    private let starts: [Int]
    /// Number of items in the whole store.
    let total: Int

    init(partitions: Int, items: ItemsPerPartition) {
        self.partitions = partitions
        switch items {
        case .uniform(let count):
            perPartition = count
            starts = []
            total = partitions * count
        case .zipf(let mean, let exponent):
            let target = partitions * mean
            var weights = [Double](repeating: 0, count: partitions)
            var weightSum = 0.0
            for partition in 0..<partitions {
                let weight = 1 / Math.power(Double(partition + 1), exponent)
                weights[partition] = weight
                weightSum += weight
            }
            var counts = weights.map { Int((Double(target) * $0 / weightSum).rounded(.down)) }
            var remainder = target - counts.reduce(0, +)
            var partition = 0
            while remainder > 0 {  // hand the rounding remainder out from the hottest partition on
                counts[partition % partitions] += 1
                remainder -= 1
                partition += 1
            }
            var starts = [Int](repeating: 0, count: partitions + 1)
            for index in 0..<partitions { starts[index + 1] = starts[index] + counts[index] }
            self.perPartition = 0
            self.starts = starts
            self.total = target
        }
    }

    /// The first global position of `partition` (`partition == partitions` gives `total`).
    @inline(__always)
    func start(of partition: Int) -> Int {
        starts.isEmpty ? partition * perPartition : starts[partition]
    }

    /// The number of items in `partition`.
    func count(of partition: Int) -> Int {
        start(of: partition + 1) - start(of: partition)
    }

    /// The partition holding global position `position` (`0 ≤ position < total`).
    @inline(__always)
    func partition(containing position: Int) -> Int {
        if starts.isEmpty { return position / perPartition }
        var low = 0
        var high = partitions  // invariant: starts[low] ≤ position < starts[high]
        while high - low > 1 {
            let middle = (low + high) / 2
            if starts[middle] <= position { low = middle } else { high = middle }
        }
        return low
    }

    /// The partition whose key slots (``KeySpace``: partition `p` has `count(p) + 1` slots
    /// from `start(p) + p` on) hold `slot` (`0 ≤ slot < total + partitions`).
    func partition(containingSlot slot: Int) -> Int {
        if starts.isEmpty { return min(partitions - 1, slot / (perPartition + 1)) }
        var low = 0
        var high = partitions  // invariant: starts[low] + low ≤ slot < starts[high] + high
        while high - low > 1 {
            let middle = (low + high) / 2
            if starts[middle] + middle <= slot { low = middle } else { high = middle }
        }
        return low
    }

    /// The global positions `lo ..< hi` of segment `index` of `total` segments.
    func segmentBounds(index: Int, of segments: Int) -> (lo: Int, hi: Int) {
        func boundary(_ i: Int) -> Int {
            let product = UInt64(total).multipliedFullWidth(by: UInt64(i))
            return Int(UInt64(segments).dividingFullWidth(product).quotient)
        }
        return (boundary(index), boundary(index + 1))
    }
}
