import PagebenchBase
import Synchronization

/// The shared state of one phase (warm-up or measured): which drain is next, when open-loop
/// drains are meant to start, and when the final cancel-everything was requested.
///
/// Workers touch it once per drain (a claim), never per page. A sharded phase hands out only
/// its shard's drains (``Shard``), with their one-process indices and intended starts.
final class PhaseControl: Sendable {
    struct Claim: Sendable {
        var index: Int
        /// Open loop: the monotonic instant the drain is meant to start.
        var intendedStart: UInt64?
        /// Open loop: whether a slot was free at the intended start (H8): the claiming pager
        /// was free by then, or some pager had not begun a drain yet. False: a missed start.
        var slotWasFree = true
        /// A rate plan (H4): the stage (0-based) of the intended start, whose row the drain
        /// belongs to.
        var stage: Int?
    }

    private struct State {
        /// How many drains this shard has handed out.
        var claimed = 0
        /// Open loop: the phase-wide drain index whose intended start is ``arrivalOffset``.
        var arrivalIndex = 0
        /// Open loop: the intended start of drain `arrivalIndex`, nanoseconds after the phase start.
        var arrivalOffset = 0.0
        /// A rate plan: the arrivals (in mean gaps) offered up to drain `arrivalIndex`.
        var arrivalUnits = 0.0
        var stopped = false
        /// Whether a claim found no drain: none will ever be handed out again.
        var exhausted = false
        /// Pagers of the phase that have not claimed a drain yet: free since the phase began.
        var pagersWithoutDrain = 0
    }

    let planner: DrainPlanner
    let isWarmup: Bool
    let start: UInt64
    private let drainLimit: Int?
    private let arrivalLimitNanoseconds: Double?
    /// This process's share and the one-process concurrency it is a share of.
    private let shard: Shard
    private let concurrency: Int
    private let state: Mutex<State>
    /// The workload's rate plan (H4), if its stages set the arrival rate.
    private let ratePlan: StagePlan?
    /// Monotonic instant at which the final cancel-everything was requested; 0 before.
    let cancelRequestedAt = Atomic<UInt64>(0)
    /// Drains the cancellation probe was asked to cancel, and those it did cancel (H2).
    let probesArmed = Atomic<Int>(0)
    let probesCancelled = Atomic<Int>(0)
    /// The phase's end as its pagers read it at their checkpoints (``endVerdict(now:)``).
    private let end: End?
    /// Whether a pager ended its drain, or claimed none, because of the interruption.
    let interrupted = Atomic<Bool>(false)

    /// When a phase ends, read by its pagers themselves (H6, issue 38): a task waiting for
    /// the deadline or the interruption is queued behind every pager of the cooperative pool
    /// (with 100,000 pagers a SIGINT took 21 s to end the phase, a 3 s phase 18–23 s), while
    /// each pager reaches a checkpoint within a millisecond of its pages, or right after the
    /// pool resumes it.
    struct End: Sendable {
        /// The monotonic instant a duration-bound phase ends; nil for a drain-bound one.
        var deadline: UInt64?
        /// Whether the drains in flight at the deadline are cancelled (else they finish).
        var cancelsAtEnd: Bool
        /// A request to stop the run: drains in flight are cancelled, none is claimed.
        var interruption: Interruption?
    }

    /// What a pager does at a checkpoint, or before it claims a drain.
    enum EndVerdict: Equatable {
        /// The phase goes on.
        case goOn
        /// No drain is claimed any more; drains in flight finish (`--no-cancel-at-end`).
        case stopClaiming
        /// The drain in flight is cancelled (its cancellation latency runs from
        /// ``cancelRequestedAt``) and no drain is claimed any more.
        case cancel
    }

    /// - Parameters:
    ///   - pagers: the pagers of the phase in this process (they claim its drains).
    ///   - end: the deadline and interruption its pagers read themselves; nil where a task
    ///     (the stage clock) ends the phase.
    init(
        planner: DrainPlanner,
        isWarmup: Bool,
        start: UInt64,
        drainLimit: Int?,
        durationNanoseconds: Double?,
        shard: Shard = .whole,
        concurrency: Int = 1,
        pagers: Int = 1,
        end: End? = nil
    ) {
        self.end = end
        self.planner = planner
        self.shard = shard
        self.concurrency = concurrency
        self.isWarmup = isWarmup
        self.start = start
        self.drainLimit = drainLimit
        self.arrivalLimitNanoseconds = durationNanoseconds
        let stages = planner.workload.stages
        ratePlan = stages?.target == .rate ? stages : nil
        var initial = State()
        initial.pagersWithoutDrain = pagers
        if ratePlan != nil { initial.arrivalUnits = planner.unitArrivalGap(0) }
        state = Mutex(initial)
    }

    /// The next drain to run, or nil when the phase has no more.
    ///
    /// - Parameter pagerFreeSince: when the claiming pager's previous drain ended (monotonic
    ///   nanoseconds); nil for its first claim of the phase (it has been free since the start).
    @inline(never)  // Kept out of the pager task's async frame (issue 38: ``PagerTask/run(_:)``).
    func claim(pagerFreeSince: UInt64? = nil) -> Claim? {
        if end != nil, endVerdict(now: MonotonicTime.nanoseconds()) != .goOn { return nil }
        let isOpen: Bool
        if case .open = planner.workload.load { isOpen = true } else { isOpen = false }
        return state.withLock { state -> Claim? in
            if pagerFreeSince == nil { state.pagersWithoutDrain -= 1 }
            guard var claim = nextClaim(&state, isOpen: isOpen) else {
                state.exhausted = true
                return nil
            }
            if let intended = claim.intendedStart, let busyUntil = pagerFreeSince, busyUntil > intended {
                // The claiming pager was still in its previous drain at the intended start. Claims
                // are first come, first served, and a pager claims as soon as its drain ends: so
                // every other pager was in a drain too, unless one had not begun its first.
                claim.slotWasFree = state.pagersWithoutDrain > 0
            }
            return claim
        }
    }

    /// Whether the phase has handed out its last drain (a staged phase's pagers then stop
    /// for good, rather than waiting to be admitted again).
    var isExhausted: Bool { state.withLock { $0.exhausted } }

    /// The latest intended start an arrival schedule can name: about 146 years after the
    /// phase's start, far past any phase and within a UInt64 of nanoseconds.
    static let latestOffsetNanoseconds = Double(UInt64.max >> 1)

    private func nextClaim(_ state: inout State, isOpen: Bool) -> Claim? {
        guard !state.stopped else { return nil }
        let index = shard.isWhole ? state.claimed : shard.drainIndex(local: state.claimed, concurrency: concurrency)
        if let drainLimit, index >= drainLimit { return nil }
        var intended: UInt64?
        var stage: Int?
        if let ratePlan {
            // The same walk in units of the mean gap, spent against the plan's rate integral.
            while state.arrivalIndex < index {
                state.arrivalIndex += 1
                state.arrivalUnits += planner.unitArrivalGap(state.arrivalIndex)
            }
            guard let offset = ratePlan.arrivalOffsetNanoseconds(arrivals: state.arrivalUnits) else { return nil }
            if let limit = arrivalLimitNanoseconds, offset >= limit { return nil }
            intended = start &+ UInt64(min(offset, Self.latestOffsetNanoseconds))
            stage = ratePlan.position(atNanoseconds: Int(offset)).stage
        } else if isOpen {
            // Walk the one-process arrival schedule up to this drain, gap by gap, so the
            // offsets are the same sums a single process computes.
            while state.arrivalIndex < index {
                state.arrivalIndex += 1
                state.arrivalOffset += planner.arrivalGapNanoseconds(state.arrivalIndex)
            }
            if let limit = arrivalLimitNanoseconds, state.arrivalOffset >= limit { return nil }
            // Bounded by the slowest rate (Workload.openLoopRates) for centuries of drains;
            // clamped so that no schedule can trap the conversion (issue 24).
            intended = start &+ UInt64(min(state.arrivalOffset, Self.latestOffsetNanoseconds))
        }
        state.claimed += 1
        return Claim(index: index, intendedStart: intended, stage: stage)
    }

    /// Stops handing out drains (a duration-bound phase that lets drains in flight finish).
    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Whether the phase has ended at monotonic instant `now`, and what a pager does about it.
    /// A few loads while the phase goes on. The first pager to see a cancelling end records
    /// when it was requested: the deadline itself, or the moment the interruption was seen.
    @inline(never)  // Once per checkpoint and per claim; kept out of the pagers' async frames.
    func endVerdict(now: UInt64) -> EndVerdict {
        guard let end else { return .goOn }
        if let interruption = end.interruption, interruption.isRequestedFlag {
            interrupted.store(true, ordering: .relaxed)
            requestCancel(at: now)
            return .cancel
        }
        guard let deadline = end.deadline, now >= deadline else { return .goOn }
        guard end.cancelsAtEnd else { return .stopClaiming }
        requestCancel(at: deadline)
        return .cancel
    }

    /// Records the first cancel-everything request's instant (later ones keep it).
    func requestCancel(at instant: UInt64) {
        _ = cancelRequestedAt.compareExchange(expected: 0, desired: max(instant, 1), ordering: .acquiringAndReleasing)
    }
}
