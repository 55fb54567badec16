/// One process's share of a run split over `count` processes (`--shard INDEX/COUNT`), like
/// k6's execution segments: the processes of shards `0..<count` together run exactly the
/// pagers and drains one process would, and each drain makes the same choices it would make
/// there (a ``DrainPlan`` is a pure function of the seed and the drain's index).
///
/// The split of one phase at concurrency `C` with a drain bound `D` (docs/scaling-out.md):
///
/// - **Pagers** (closed loop) or drain slots (open loop): the one-process run's pager slots
///   `0..<C`; slot `p` belongs to shard `p mod count`. Shard `index` runs
///   `C / count + (index < C mod count ? 1 : 0)` pagers; shards with `index ≥ C` run none.
/// - **Drains**: drain `d` (of `0..<D`, or unbounded for a duration bound) belongs to the
///   shard of slot `d mod C`, so every shard gets drains in proportion to its pagers, and a
///   shard without pagers gets none. A shard runs its drains in increasing index order.
/// - **Open-loop arrivals**: drain `d` is meant to start at the instant it would in the
///   one-process schedule (the sum of the arrival gaps up to `d`), so shard `index` offers
///   `rate × pagers / C` drains per second and the shards' arrivals together are the
///   one-process arrivals.
///
/// ``whole`` (`0/1`) is an unsharded run: every pager, every drain.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// The most processes a run may be split over.
    public static let maximumCount = 4096

    /// This process's shard: `0 ≤ index < count`.
    public let index: Int
    /// How many shards the run is split into.
    public let count: Int

    /// The whole run in one process.
    public static let whole = Shard(uncheckedIndex: 0, count: 1)

    /// - Throws: ``HarnessError`` (`invalidArgument`) unless `0 ≤ index < count ≤ maximumCount`.
    public init(index: Int, count: Int) throws(HarnessError) {
        guard count >= 1, count <= Self.maximumCount else {
            throw HarnessError(
                .invalidArgument,
                "--shard \(index)/\(count): the shard count must be between 1 and \(Self.maximumCount)"
            )
        }
        guard index >= 0, index < count else {
            throw HarnessError(
                .invalidArgument,
                "--shard \(index)/\(count): the index must be between 0 and \(count - 1) (shards are numbered from 0)"
            )
        }
        self.init(uncheckedIndex: index, count: count)
    }

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `I/N`, e.g. `0/4`.
    ///
    /// - Throws: ``HarnessError`` (`invalidArgument`) naming the problem.
    public init(parsing text: String) throws(HarnessError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw HarnessError(
                .invalidArgument,
                "--shard '\(text)': expected INDEX/COUNT with whole numbers, e.g. 0/4 for the first of four"
            )
        }
        try self.init(index: index, count: count)
    }

    /// Every shard of a run split `count` ways, in index order.
    ///
    /// - Precondition: `1 ≤ count ≤ maximumCount`.
    public static func all(count: Int) -> [Shard] {
        precondition(count >= 1 && count <= maximumCount, "shard count \(count) out of range")
        return (0..<count).map { Shard(uncheckedIndex: $0, count: count) }
    }

    /// `I/N`.
    public var description: String { "\(index)/\(count)" }

    /// Whether this is the whole run (`0/1`).
    public var isWhole: Bool { count == 1 }

    /// The pager slots of the one-process run at `concurrency` that this shard runs.
    public func pagerSlots(ofConcurrency concurrency: Int) -> StrideTo<Int> {
        stride(from: index, to: concurrency, by: count)
    }

    /// How many pagers (open loop: drain slots) this shard runs at `concurrency`.
    public func pagers(ofConcurrency concurrency: Int) -> Int {
        guard concurrency > 0 else { return 0 }
        return concurrency / count + (index < concurrency % count ? 1 : 0)
    }

    /// Whether drain `drain` of a phase at `concurrency` belongs to this shard.
    public func owns(drain: Int, concurrency: Int) -> Bool {
        (drain % concurrency) % count == index
    }

    /// The phase-wide index of this shard's `local`-th drain (0-based) at `concurrency`.
    ///
    /// Increasing in `local`. - Precondition: `pagers(ofConcurrency:) > 0`.
    public func drainIndex(local: Int, concurrency: Int) -> Int {
        let pagers = pagers(ofConcurrency: concurrency)
        precondition(pagers > 0, "shard \(self) has no pagers at concurrency \(concurrency)")
        let block = local / pagers
        let slot = index + (local % pagers) * count
        return block * concurrency + slot
    }

    /// How many of a phase's `total` drains this shard runs at `concurrency`.
    public func drainCount(of total: Int, concurrency: Int) -> Int {
        guard concurrency > 0, total > 0 else { return 0 }
        var sum = 0
        for slot in pagerSlots(ofConcurrency: concurrency) {
            sum += total / concurrency + (slot < total % concurrency ? 1 : 0)
        }
        return sum
    }
}
