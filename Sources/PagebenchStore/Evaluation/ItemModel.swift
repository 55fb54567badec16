import PagebenchBase
import PagebenchPage

/// Computes item attributes from (seed, partition, sort key): size, category and payload
/// fingerprint. Immutable after creation, so any number of tasks read it without a lock.
///
/// Each item costs one 64-bit hash: `h = mix(partitionSeed + (sortKey + 1)·φ)`
/// (a SplitMix64 stream per partition). The size comes from the top bits of `h`, the
/// category from the middle bits (or from the run's hash under `runs` clustering), and `h`
/// itself seeds the payload.
struct ItemModel: Sendable {
    enum SizeKind: Sendable {
        case fixed
        case uniform
        case table
    }

    private let itemSeed: UInt64
    private let runSeed: UInt64
    let sizeKind: SizeKind
    private let sizeBase: Int
    private let sizeSpan: UInt64
    /// Log-normal quantiles at u = (i + ½) / 2048 (i = 0…2048, the last repeated for
    /// interpolation), clamped to the caps; 32-bit so the table (8 KiB) stays in L1.
    private let sizeQuantiles: [UInt32]
    /// `selectivity` as a 32-bit fixed-point threshold (2^32 = always).
    private let matchThreshold: UInt64
    let clusteringKind: UInt8  // 0 even, 1 random, 2 runs
    private let runLength: UInt64

    static let quantileBits = 11

    init(configuration: StoreConfiguration) {
        itemSeed = StableHash.combine(configuration.seed, 0x6974_656D)  // "item"
        runSeed = StableHash.combine(configuration.seed, 0x7275_6E73)  // "runs"
        switch configuration.itemSize {
        case .fixed(let size):
            sizeKind = .fixed
            sizeBase = size
            sizeSpan = 0
            sizeQuantiles = []
        case .uniform(let min, let max):
            sizeKind = .uniform
            sizeBase = min
            sizeSpan = UInt64(max - min + 1)
            sizeQuantiles = []
        case .lognormal(let median, let sigma, let min, let max):
            sizeKind = .table
            sizeBase = min
            sizeSpan = 0
            let steps = 1 << Self.quantileBits
            let logMedian = Math.log(Double(median))
            let quantiles = (0..<steps).map { step -> UInt32 in
                let z = StoreMath.normalQuantile((Double(step) + 0.5) / Double(steps))
                let value = Math.exp(logMedian + sigma * z).rounded()
                return UInt32(Swift.min(max, Swift.max(min, value >= Double(max) ? max : Int(value))))
            }
            sizeQuantiles = quantiles + [quantiles[steps - 1]]
        }
        matchThreshold = UInt64((configuration.selectivity * 4_294_967_296).rounded())
        switch configuration.clustering {
        case .even:
            clusteringKind = 0
            runLength = 1
        case .random:
            clusteringKind = 1
            runLength = 1
        case .runs(let length):
            clusteringKind = 2
            runLength = UInt64(length)
        }
    }

    /// The per-partition stream seed.
    @inline(__always)
    func partitionSeed(_ partition: Int) -> UInt64 {
        StableHash.combine(itemSeed, UInt64(truncatingIfNeeded: partition))
    }

    /// The item hash of `sortKey` in the partition with seed `partitionSeed`.
    @inline(__always)
    func itemHash(partitionSeed: UInt64, sortKey: UInt64) -> UInt64 {
        StableHash.mix(partitionSeed &+ (sortKey &+ 1) &* StableHash.golden)
    }

    /// The size in bytes of the item with hash `hash`.
    @inline(__always)
    func size(_ hash: UInt64) -> Int {
        size(hash, kind: sizeKind)
    }

    /// ``size(_:)`` with the size kind given: the scan passes a constant for the default
    /// configuration so that its loop has no per-item dispatch.
    @inline(__always)
    func size(_ hash: UInt64, kind: SizeKind) -> Int {
        switch kind {
        case .fixed:
            return sizeBase
        case .uniform:
            return sizeBase + Int(truncatingIfNeeded: hash.multipliedFullWidth(by: sizeSpan).high)
        case .table:
            let index = Int(truncatingIfNeeded: hash >> UInt64(64 - Self.quantileBits))
            let fraction = Int(truncatingIfNeeded: (hash >> 36) & 0xFFFF)
            return sizeQuantiles.withUnsafeBufferPointer { table in
                let low = Int(truncatingIfNeeded: table[index])
                let high = Int(truncatingIfNeeded: table[index &+ 1])
                return low &+ (((high &- low) &* fraction) >> 16)
            }
        }
    }

    /// The category (0 = "matching", else 1…15) of an item.
    @inline(__always)
    func category(hash: UInt64, partitionSeed: UInt64, sortKey: UInt64) -> Int {
        category(hash: hash, partitionSeed: partitionSeed, sortKey: sortKey, clustering: clusteringKind)
    }

    /// ``category(hash:partitionSeed:sortKey:)`` with the clustering kind given (see
    /// ``size(_:kind:)``).
    @inline(__always)
    func category(hash: UInt64, partitionSeed: UInt64, sortKey: UInt64, clustering: UInt8) -> Int {
        let isMatch: Bool
        switch clustering {
        case 0:
            // Evenly spaced: item k matches when frac(k·s) + s ≥ 1 (s = selectivity), so exactly
            // ⌊(k+1)·s⌋ − ⌊k·s⌋ ∈ {0, 1}; a per-partition phase decorrelates partitions.
            let position = sortKey &+ (partitionSeed >> 40)
            isMatch = ((position &* matchThreshold) & 0xFFFF_FFFF) &+ matchThreshold >= 0x1_0000_0000
        case 1:
            isMatch = (hash >> 20) & 0xFFFF_FFFF < matchThreshold
        default:
            let run = (sortKey &+ (partitionSeed >> 40) % runLength) / runLength
            isMatch =
                StableHash.mix((runSeed ^ partitionSeed) &+ run &* StableHash.golden) & 0xFFFF_FFFF < matchThreshold
        }
        return isMatch ? 0 : 1 + Int(truncatingIfNeeded: (hash & 0xFFFF) % 15)
    }

    /// The item at `sortKey` of `partition`.
    @inline(__always)
    func item(partition: Int, partitionSeed: UInt64, sortKey: UInt64) -> Item {
        let hash = itemHash(partitionSeed: partitionSeed, sortKey: sortKey)
        return Item(
            partition: partition,
            sortKey: sortKey,
            sizeBytes: size(hash),
            category: category(hash: hash, partitionSeed: partitionSeed, sortKey: sortKey),
            fingerprint: hash
        )
    }
}
