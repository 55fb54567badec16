import PagebenchBase
import PagebenchPage
import PagebenchStore

/// Everything one drain does, decided before it starts: a pure function of the workload,
/// the seed and the drain's index, so the same drain makes the same choices whichever task
/// runs it and whenever (H3).
public struct DrainPlan: Sendable, Hashable {
    /// The drain's index in its phase: 0, 1, 2, ...
    public var index: Int
    /// The first request (no token).
    public var request: PageRequest
    /// Stop after this many pages (`first:K`), or nil.
    public var maxPages: Int?
    /// The probability of abandoning the drain after each page that has a token.
    public var abandonProbability: Double
    /// Whether the cancellation probe cancels this drain (H2).
    public var isCancelled: Bool
    /// Where in the drain the probe cancels it, as a fraction (0…1) of the expected drain time.
    public var cancelPoint: Double
    /// The drain's own generator for abandonment draws.
    var random: SplitMix64
    /// `apollo-watch`: how long the drain watches its pages after loading them (P16).
    public var watchNanoseconds: UInt64 = 0

    /// Draws whether to abandon after a page (always false when the probability is 0).
    mutating func abandonsAfterPage() -> Bool {
        abandonProbability > 0 && random.nextUnit() < abandonProbability
    }
}

/// Makes the ``DrainPlan`` of each drain index for a workload on a store.
public struct DrainPlanner: Sendable {
    public let workload: Workload
    public let seed: UInt64
    let partitions: Int
    let limit: Int
    /// Cumulative Zipf probabilities of partitions 0, 1, ... (only for `partition:zipf`).
    let zipfCumulative: [Double]

    /// Streams of the seeded generator, so that the draws of one purpose never shift another's.
    enum Stream: UInt64 {
        case drain = 0x6472_6169_6E  // "drain"
        case warmup = 0x7761_726D  // "warm"
        case arrivals = 0x6172_7276  // "arrv"
    }

    public init(workload: Workload, store: StoreConfiguration) {
        self.workload = workload
        seed = workload.effectiveSeed(store: store)
        partitions = store.partitions
        limit = workload.effectiveLimit(store: store)
        if case .partition(.zipf(let exponent)) = workload.read {
            var weights = (1...store.partitions).map { 1 / Math.power(Double($0), exponent) }
            let total = weights.reduce(0, +)
            var running = 0.0
            for index in weights.indices {
                running += weights[index] / total
                weights[index] = running
            }
            weights[weights.count - 1] = 1
            zipfCumulative = weights
        } else {
            zipfCumulative = []
        }
    }

    /// The plan of drain `index` of the measured phase (or of the warm-up, whose drains
    /// draw from a stream of their own so that the measured drains are the same with or
    /// without warm-up).
    @inline(never)  // Kept out of the pager task's async frame (issue 38: ``PagerTask/run(_:)``).
    public func plan(_ index: Int, warmup: Bool = false) -> DrainPlan {
        var random = SplitMix64(
            seed: seed,
            stream: (warmup ? Stream.warmup : Stream.drain).rawValue,
            index: UInt64(index)
        )
        let range: ScanRange
        switch workload.read {
        case .scan:
            range = .scan
        case .segment(let total):
            range = .segment(index: index % total, total: total)
        case .partition(.fixed(let partition)):
            range = .partition(partition)
        case .partition(.uniform):
            range = .partition(random.next(below: partitions))
        case .partition(.zipf):
            let unit = random.nextUnit()
            var low = 0
            var high = zipfCumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if zipfCumulative[middle] > unit { high = middle } else { low = middle + 1 }
            }
            range = .partition(low)
        }
        let cancelDraw = random.nextUnit()
        let cancelPoint = random.nextUnit()
        var maxPages: Int?
        var abandon = 0.0
        switch workload.drain {
        case .full: break
        case .firstPages(let pages): maxPages = pages
        case .abandon(let probability): abandon = probability
        }
        return DrainPlan(
            index: index,
            request: PageRequest(range: range, reverse: workload.reverse, limit: limit, filter: workload.filter),
            maxPages: maxPages,
            abandonProbability: abandon,
            isCancelled: cancelDraw < workload.cancelFraction,
            cancelPoint: cancelPoint,
            random: random,
            watchNanoseconds: workload.pager == .apolloWatch ? UInt64(workload.watchSeconds * 1e9) : 0
        )
    }

    /// The intended start of open-loop drain `index` after the previous one's, in
    /// nanoseconds: `1/rate` for a fixed rate, an exponential draw for Poisson arrivals.
    func arrivalGapNanoseconds(_ index: Int) -> Double {
        guard case .open(let rate, _) = workload.load else { return 0 }
        return 1e9 / rate * unitArrivalGap(index)
    }

    /// The gap before open-loop drain `index` in units of the mean gap: 1 for fixed arrivals,
    /// a unit-mean exponential draw for Poisson arrivals. A rate plan (H4) spends these units
    /// against the integral of its rate (``StagePlan/arrivalOffsetNanoseconds(arrivals:)``).
    func unitArrivalGap(_ index: Int) -> Double {
        guard workload.load.isPoisson else { return 1 }
        var random = SplitMix64(seed: seed, stream: Stream.arrivals.rawValue, index: UInt64(index))
        return -Math.log(1 - random.nextUnit())
    }
}
