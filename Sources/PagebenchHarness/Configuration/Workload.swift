import PagebenchPage
import PagebenchStore

/// What the pagers of a run do: which pager, how many at once, what each drain reads and
/// how far, how drains are started (closed or open loop), how long the run lasts, and
/// which drains are cancelled. The JSON form is the `workload` object of a scenario file
/// (docs/file-formats.md); every key is optional and takes the default shown here.
///
/// Every random choice (partition, segment, abandonment, cancellation instant, open-loop
/// arrivals) is a pure function of ``effectiveSeed(store:)`` and the drain's index, so the
/// same scenario makes the same choices on every machine and in every interleaving (H3).
public struct Workload: Sendable, Hashable {
    /// Which pager drives the drains.
    public var pager: PagerKind = .streaming
    /// The concurrency values to sweep: pagers at once (closed loop) or drains in flight at
    /// most (open loop). Each value gives its own result rows.
    public var concurrency: [Int] = [1, 8, 64]
    /// What each drain reads.
    public var read: ReadRange = .partition(.uniform)
    /// The `limit` of every page request; nil uses the store's default limit (S1).
    public var limit: Int?
    /// The filter of every page request; nil for none.
    public var filter: Filter?
    /// Read in descending key order (S13).
    public var reverse: Bool = false
    /// How far each drain reads.
    public var drain: DrainMode = .full
    /// How drains are started.
    public var load: LoadModel = .closed
    /// What ends a measured phase: a number of drains or a duration.
    public var bound: PhaseBound = .drains(1000)
    /// Seconds of warm-up before each measured phase: drains run and are then cancelled,
    /// and nothing of them enters the results.
    public var warmupSeconds: Double = 0
    /// Measured phases per concurrency value.
    public var repetitions: Int = 1
    /// The fraction (0…1) of drains the cancellation probe cancels at a random instant (H2).
    public var cancelFraction: Double = 0
    /// Whether a duration-bound run ends by cancelling every drain in flight and timing
    /// those cancellations too (H2). Drain-count runs end with nothing in flight.
    public var cancelAtEnd: Bool = true
    /// Retries of throttled and faulted requests (S21).
    public var retry: RetrySettings = RetrySettings()
    /// Seed of the workload's random choices; nil uses the store's seed.
    public var seed: UInt64?
    /// Whether each page request is timed (page latency percentiles). Off only to measure
    /// what timing costs.
    public var pageTiming: Bool = true
    /// Whether each measured phase is repeated with per-page timing off, to report
    /// `measurement_overhead_ratio` (pages/s off ÷ pages/s on).
    public var measureOverhead: Bool = false
    /// Every this many pages a drain publishes its fast pages to the live counters (pages of
    /// 50 µs or more are published at once, H7) and, if a millisecond has passed since its
    /// last `Task.yield()`, yields, so that timers, the memory sampler and progress still run
    /// on a busy cooperative pool.
    public var yieldEveryPages: Int = 64
    /// A load shape (H4): the phase follows these stages instead of running at a fixed
    /// concurrency or rate, and each stage gets its own row. Pager stages are closed loop
    /// (``concurrency`` is then the plan's peak, the pool of pagers); rate stages are open
    /// loop (``load`` says fixed or Poisson arrivals, ``concurrency`` the slots). The plan's
    /// length is the phase's ``bound``.
    public var stages: StagePlan?
    /// What happens to a pager a ramp-down removes (pager stages only).
    public var rampDown: RampDown = .finish
    /// `apollo-watch` only: seconds each drain watches its loaded pages after loading them
    /// (P16); the store's per-second writes land meanwhile.
    public var watchSeconds: Double = 1

    public init() {}

    /// Makes `plan` the workload's load shape, with what it sets (H4): the phase lasts the
    /// plan; pager stages run a closed-loop pool of the plan's peak; rate stages are open
    /// loop at the plan's rate (fixed arrivals unless the load already says Poisson).
    public mutating func setStages(_ plan: StagePlan) {
        stages = plan
        bound = .duration(seconds: Double(plan.durationNanoseconds) / 1e9)
        switch plan.target {
        case .pagers:
            concurrency = [Int(plan.peak)]
        case .rate:
            load = .open(drainsPerSecond: 0, poisson: load.isPoisson)
        }
    }

    /// The seed of the workload's random choices.
    public func effectiveSeed(store: StoreConfiguration) -> UInt64 { seed ?? store.seed }

    /// The limit every request carries (the store's default when ``limit`` is nil).
    public func effectiveLimit(store: StoreConfiguration) -> Int { limit ?? store.defaultLimit }
}

/// The pager that drives the drains.
public enum PagerKind: String, Sendable, Hashable, CaseIterable {
    /// A bare loop calling the store directly: the floor every pager is compared with.
    case loop
    /// The streaming pager (`PageStream`): pages as an `AsyncSequence`, nothing retained (P15).
    case streaming
    /// The Apollo-style pager's `loadAll`: every page held, one output when done (P8).
    case apolloLoadAll = "apollo-loadAll"
    /// The Apollo-style pager's `fetch` then `loadNext` page by page, pages held.
    case apolloLoadNext = "apollo-loadNext"
    /// `apollo-loadNext`, then watching the pages held for `watchSeconds` (P16): a write
    /// that touches them is re-fetched and published; watch latency is write → publication.
    case apolloWatch = "apollo-watch"
}

/// What one drain reads.
public enum ReadRange: Sendable, Hashable {
    /// One partition, chosen per drain (S14).
    case partition(PartitionChoice)
    /// A full scan of every partition (S14).
    case scan
    /// One segment of a parallel scan of `total` segments: drain `k` reads segment
    /// `k mod total`, so `total` consecutive drains are one whole parallel scan (S15).
    case segment(total: Int)
}

/// How a drain's partition is chosen.
public enum PartitionChoice: Sendable, Hashable {
    /// Every partition equally likely.
    case uniform
    /// Zipf-distributed with this exponent (> 0): partition 0 is the most popular, then 1, ...
    case zipf(exponent: Double)
    /// Always this partition.
    case fixed(Int)
}

/// How far a drain reads.
public enum DrainMode: Sendable, Hashable {
    /// Until the last page (nil token).
    case full
    /// At most this many pages, then stop (a user who looks at the first screens only).
    case firstPages(Int)
    /// After each page that has a token, abandon the drain with this probability (0…1).
    case abandon(probability: Double)
}

/// How drains are started.
public enum LoadModel: Sendable, Hashable {
    /// Each pager starts its next drain as soon as one ends.
    case closed
    /// Drains are intended to start at `drainsPerSecond`, evenly spaced (`poisson: false`)
    /// or with exponential gaps (`poisson: true`), on at most `concurrency` slots. Latency is
    /// also measured from the intended start (coordinated-omission corrected); a start that
    /// finds every slot busy is a missed start.
    case open(drainsPerSecond: Double, poisson: Bool)

    /// The CSV `load_model` value: `closed`, `open-fixed` or `open-poisson`.
    public var csvName: String {
        switch self {
        case .closed: "closed"
        case .open(_, let poisson): poisson ? "open-poisson" : "open-fixed"
        }
    }
}

/// What ends a measured phase.
public enum PhaseBound: Sendable, Hashable {
    /// This many drains (each ends by draining, stopping, abandoning, failing or being
    /// cancelled by the probe). Deterministic metrics are exact in this mode (H3).
    case drains(Int)
    /// This many seconds; drains still running then are cancelled. How many drains run
    /// depends on the machine, so counts are not comparable between machines.
    case duration(seconds: Double)
}

/// What a ramp-down does to the pagers it removes (H4).
public enum RampDown: String, Sendable, Hashable, CaseIterable {
    /// The pager finishes the drain it is in, then stops: the active count follows the plan
    /// at once, the pagers still finishing a drain follow it as their drains end.
    case finish
    /// The pager's drain is cancelled at once; the cancellation is timed (H2) and counted in
    /// the stage the drain started in.
    case cancel

    /// Parses `finish` or `cancel`.
    public init(parsing text: String, field: String = "workload.rampDown") throws(HarnessError) {
        guard let value = RampDown(rawValue: WorkloadText.trimmed(text)) else {
            throw .invalidField(
                field,
                "'\(text)' is not a ramp-down; use 'finish' (let the drain end) or 'cancel' (cancel it, timed as H2)"
            )
        }
        self = value
    }
}

/// Retries of retryable store failures (throttling, injected faults; S21): exponential
/// backoff with seeded jitter.
public struct RetrySettings: Sendable, Hashable {
    /// Retries per request after the first attempt; 0 disables retrying.
    public var maxRetries: Int = 3
    /// Wait before the first retry, in nanoseconds.
    public var initialBackoffNanoseconds: Int = 1_000_000
    /// Longest single wait, in nanoseconds.
    public var maxBackoffNanoseconds: Int = 100_000_000
    /// Growth of the wait per retry (≥ 1).
    public var multiplier: Double = 2
    /// Random fraction of each wait (0…1).
    public var jitter: Double = 0.5

    public init() {}
}
