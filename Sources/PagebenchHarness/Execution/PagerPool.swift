import PagebenchBase
import PagebenchMetrics
import Synchronization

/// The pagers of a staged phase (docs/contract.md H4): a fixed pool of pager tasks, of which the
/// first ``activeCount`` are admitted to run drains. The stage clock raises and lowers that
/// count as the plan ramps; a pager past it stops at its next drain boundary (ramp-down
/// `finish`) or has its drain cancelled (`cancel`), and waits, parked, until it is admitted
/// again or the phase ends. Parked pagers cost nothing: they wait on a continuation.
///
/// Pagers check admission once per drain (an atomic load), never per page. Their metrics go
/// to the stage their drain started in: each pager adds what it counted to the stage's
/// totals when it moves on to a later stage or parks (``collect(_:stage:)``), and folds its
/// latencies into the stage's shared histograms (``latencySink(stage:)``) a batch at a time
/// and before it moves on.
///
/// The transitions live in ``PagerPoolState`` (pure); this class holds it under a lock and
/// resumes the waiting pagers outside it.
final class PagerPool: Sendable {
    /// How many pool slots there are (this process's share of the plan's peak).
    let size: Int
    /// Slots `0..<activeCount` are admitted; mirrors the state for the per-drain check.
    let activeCount = Atomic<Int>(0)
    /// The stage (0-based) the stage clock is in: a closed-loop drain belongs to it.
    let currentStage = Atomic<Int>(0)
    /// Whether a stage's totals have the open-loop and cancellation recorders (empty when
    /// nothing was recorded into them), as a phase's do.
    private let openLoop: Bool
    private let cancels: Bool
    private let state = Mutex(PagerPoolState())
    private let stageTotals: Mutex<[TaskMetrics?]>
    /// Each stage's latency histograms: no memory of their own until a pager folds into them.
    private let stageLatencies: [LatencySink]

    init(size: Int, stages: Int, openLoop: Bool, cancels: Bool) {
        self.size = size
        self.openLoop = openLoop
        self.cancels = cancels
        stageTotals = Mutex(Array(repeating: nil, count: stages))
        stageLatencies = (0..<stages).map { _ in LatencySink() }
    }

    /// Admits slots `0..<count` (clamped to the pool): newly admitted parked pagers start,
    /// pagers past `count` stop or are cancelled (their removal waiters wake).
    func setActive(_ count: Int) {
        let count = min(max(0, count), size)
        let wake = state.withLock { state in
            let wake = state.setActive(count)
            activeCount.store(state.active, ordering: .releasing)
            return wake
        }
        wake.perform()
    }

    /// Ends the phase: nothing is admitted any more, every waiter wakes.
    func end() {
        let wake = state.withLock { state in
            let wake = state.end()
            activeCount.store(0, ordering: .releasing)
            return wake
        }
        wake.perform()
    }

    var isEnded: Bool { state.withLock { $0.ended } }

    /// Waits until `slot` is admitted: true then, false when the phase ended or the waiting
    /// task was cancelled.
    func waitUntilAdmitted(_ slot: Int) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state in
                    // Checked under the lock the cancellation handler takes: a cancellation
                    // is either seen here or finds the registered waiter.
                    state.waitForAdmission(slot, continuation, cancelled: Task.isCancelled)
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.cancelWaiters(slot) }.perform()
        }
    }

    /// Waits until `slot` is removed by a ramp-down, the phase ends, or the waiting task is
    /// cancelled, and says which.
    func waitUntilRemoved(_ slot: Int) async -> PagerPoolState.Removal {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<PagerPoolState.Removal, Never>) in
                let now = state.withLock { state in
                    state.waitForRemoval(slot, continuation, cancelled: Task.isCancelled)
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.cancelWaiters(slot) }.perform()
        }
    }

    /// The shared latency histograms of `stage`.
    func latencySink(stage: Int) -> LatencySink? {
        stageLatencies.indices.contains(stage) ? stageLatencies[stage] : nil
    }

    /// Adds what one pager counted in `stage` to the stage's totals.
    func collect(_ metrics: TaskMetrics, stage: Int) {
        stageTotals.withLock { totals in
            guard totals.indices.contains(stage) else { return }
            if totals[stage] == nil { totals[stage] = metrics } else { totals[stage]!.add(metrics) }
        }
    }

    /// Every stage's merged metrics (empty for a stage no drain started in): after every
    /// pager has folded its last latencies.
    func totals() -> [TaskMetrics] {
        let counts = stageTotals.withLock { $0 }
        return counts.indices.map { stage in
            guard var metrics = counts[stage] else { return TaskMetrics() }
            metrics.add(stageLatencies[stage].histograms)
            if openLoop, metrics.drainLatencyCorrected == nil { metrics.drainLatencyCorrected = LatencyRecorder() }
            if cancels, metrics.cancellationLatency == nil { metrics.cancellationLatency = LatencyRecorder() }
            return metrics
        }
    }
}

/// The pure state of a ``PagerPool``: which slots are admitted and who waits for what. Each
/// transition returns the waiters to wake, which the pool resumes outside its lock.
struct PagerPoolState {
    /// Why a removal waiter woke.
    enum Removal: Sendable, Equatable {
        /// A ramp-down removed the slot: cancel its drain (ramp-down `cancel`).
        case removed
        /// The phase ended: its end decides whether drains are cancelled.
        case ended
        /// The waiting task was cancelled.
        case cancelled
    }

    /// Waiters to resume, with what each is told.
    struct Wake {
        var admissions: [(CheckedContinuation<Bool, Never>, Bool)] = []
        var removals: [(CheckedContinuation<Removal, Never>, Removal)] = []

        func perform() {
            for (continuation, value) in admissions { continuation.resume(returning: value) }
            for (continuation, value) in removals { continuation.resume(returning: value) }
        }
    }

    private(set) var active = 0
    private(set) var ended = false
    private var admissionWaiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    private var removalWaiters: [Int: CheckedContinuation<Removal, Never>] = [:]

    /// Admits slots `0..<count`.
    mutating func setActive(_ count: Int) -> Wake {
        guard !ended else { return Wake() }
        var wake = Wake()
        let previous = active
        active = count
        if count > previous {
            for slot in previous..<count {
                if let waiter = admissionWaiters.removeValue(forKey: slot) { wake.admissions.append((waiter, true)) }
            }
        } else if count < previous {
            for slot in count..<previous {
                if let waiter = removalWaiters.removeValue(forKey: slot) { wake.removals.append((waiter, .removed)) }
            }
        }
        return wake
    }

    /// Ends the phase: every waiter wakes, and nothing is admitted again.
    mutating func end() -> Wake {
        ended = true
        active = 0
        var wake = Wake()
        wake.admissions = admissionWaiters.values.map { ($0, false) }
        wake.removals = removalWaiters.values.map { ($0, .ended) }
        admissionWaiters = [:]
        removalWaiters = [:]
        return wake
    }

    /// Registers `slot`'s wait for admission, or returns the answer at once.
    mutating func waitForAdmission(_ slot: Int, _ waiter: CheckedContinuation<Bool, Never>, cancelled: Bool) -> Bool? {
        if ended || cancelled { return false }
        if slot < active { return true }
        admissionWaiters[slot] = waiter
        return nil
    }

    /// Registers `slot`'s wait for removal, or returns the answer at once.
    mutating func waitForRemoval(
        _ slot: Int,
        _ waiter: CheckedContinuation<Removal, Never>,
        cancelled: Bool
    ) -> Removal? {
        if ended { return .ended }
        if cancelled { return .cancelled }
        if slot >= active { return .removed }
        removalWaiters[slot] = waiter
        return nil
    }

    /// The task of `slot` was cancelled: its waiters wake.
    mutating func cancelWaiters(_ slot: Int) -> Wake {
        var wake = Wake()
        if let waiter = admissionWaiters.removeValue(forKey: slot) { wake.admissions.append((waiter, false)) }
        if let waiter = removalWaiters.removeValue(forKey: slot) { wake.removals.append((waiter, .cancelled)) }
        return wake
    }
}

/// One pager's place in a ``PagerPool``: whether it may start a drain, which stage its
/// metrics belong to, and when its drain's cancellation was requested (ramp-down `cancel`).
/// Touched once per drain by its own pager only.
final class PoolSlot: Sendable {
    let index: Int
    let pool: PagerPool
    /// The pager's failure log, whose throttles are counted into the stage they happened in.
    let failures: FailureLog
    /// The stage the pager's current metrics belong to; -1 before its first drain.
    private let metricsStage = Atomic<Int>(-1)
    private let throttlesCounted = Atomic<Int>(0)
    /// When a ramp-down asked for this pager's drain to be cancelled; 0 otherwise.
    let removalRequestedAt = Atomic<UInt64>(0)

    init(index: Int, pool: PagerPool, failures: FailureLog) {
        self.index = index
        self.pool = pool
        self.failures = failures
    }

    /// Whether the pager may start another drain.
    var isAdmitted: Bool { index < pool.activeCount.load(ordering: .acquiring) }

    /// Before a drain: its stage is `claimed` (an open-loop arrival's) or the stage clock's;
    /// if that is not the stage `metrics` and `latencies` belong to, they go to their stage
    /// and start afresh. Either way `latencies` then fold into the drain's stage.
    @inline(never)  // Kept out of the pager task's async frame (issue 38: ``PagerTask/run(_:)``).
    func enter(stage claimed: Int?, metrics: inout TaskMetrics, latencies: inout LatencyBuffer) {
        let stage = claimed ?? pool.currentStage.load(ordering: .acquiring)
        let current = metricsStage.load(ordering: .relaxed)
        if stage != current {
            latencies.flush()
            if current >= 0 { flush(&metrics) }
            metricsStage.store(stage, ordering: .relaxed)
        }
        latencies.sink = pool.latencySink(stage: stage)
    }

    /// Hands what the pager counted to its stage and starts afresh (when the pager parks,
    /// moves to a later stage, or returns).
    @inline(never)  // Kept out of the pager task's async frame (issue 38: ``PagerTask/run(_:)``).
    func flush(_ metrics: inout TaskMetrics) {
        let stage = metricsStage.load(ordering: .relaxed)
        guard stage >= 0 else { return }
        let throttles = failures.throttles
        metrics.throttles += throttles - throttlesCounted.load(ordering: .relaxed)
        throttlesCounted.store(throttles, ordering: .relaxed)
        pool.collect(metrics, stage: stage)
        metrics = TaskMetrics()
        metricsStage.store(-1, ordering: .relaxed)
    }

    /// The instant a cancellation of this pager's drain was first requested: by a ramp-down
    /// or by the phase's cancel-everything (`phase`), whichever came first; 0 if neither.
    func cancelRequestedAt(phase: PhaseControl) -> UInt64 {
        let requests = [
            removalRequestedAt.load(ordering: .acquiring), phase.cancelRequestedAt.load(ordering: .acquiring),
        ]
        return requests.filter { $0 != 0 }.min() ?? 0
    }
}
