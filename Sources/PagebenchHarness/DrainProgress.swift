import PagebenchBase
import PagebenchMetrics
import Synchronization

/// Live counters of one worker, read by the progress display and the time series while the
/// run goes on. The worker publishes into them only at its yield points (every
/// `yieldEveryPages` pages) and at drain ends, never per page; no other worker touches them.
final class PagerTaskProgress: Sendable {
    let pages = Atomic<Int>(0)
    let drains = Atomic<Int>(0)
}

/// Page latencies of the current second, for the time series (only with `--timeseries`):
/// one histogram per run, which workers add batches of samples to at their yield points
/// (at most every 100 ms or 256 samples each), never per page.
final class IntervalLatencies: Sendable {
    private let recorder = Mutex(PresizedRecorders.empty)

    func add(_ samples: [UInt64]) {
        recorder.withLock { recorder in
            for sample in samples { recorder.record(nanoseconds: sample) }
        }
    }

    /// The latencies since the last call; starts a new interval.
    func take() -> LatencyRecorder {
        recorder.withLock { recorder in
            defer { recorder.reset() }
            return recorder
        }
    }
}

/// A worker's per-page bookkeeping between yield points: owned by one task, no sharing.
struct Pacing: Sendable {
    var pagesSinceCheckpoint = 0
    /// When this task last considered yielding (monotonic nanoseconds; 0 before the first).
    var yieldedAt: UInt64 = 0
    /// The phase's background tick count at that moment (``YieldPolicy/backgroundTicks``).
    var backgroundTicksSeen = -1
    /// Page latencies not yet handed to ``IntervalLatencies`` (time series only).
    var intervalSamples: [UInt64]?
    var intervalFlushedAt: UInt64 = 0
    /// When set, page latencies are appended here instead of recorded into the task's
    /// histogram: a probed drain runs in a child task, and handing a few numbers back to
    /// the worker is far cheaper than a histogram per drain merged into the worker's.
    var latencyLog: [UInt64]?
    /// A probed drain cancelled by page count (drains too short for a timer): after this
    /// many pages the drain cancels its own task, once.
    var cancelAfterPages: Int?
    /// When the drain cancelled itself (monotonic nanoseconds; 0 if it did not).
    var selfCancelledAt: UInt64 = 0

    init(timeSeries: Bool, logLatencies: Bool = false) {
        intervalSamples = timeSeries ? [] : nil
        latencyLog = logLatencies ? [] : nil
    }
}

/// When a CPU-bound drain lets the phase's other tasks (timers, the memory sampler, progress,
/// the deadline) run: `Task.yield()` at its checkpoints, at most once per interval.
///
/// With at least as many pagers as cores every pool thread is paging, so a drain yields every
/// millisecond: often enough for the sampler (every 10 ms) and timers, rarely enough that it
/// is not parked and resumed every few dozen pages (yielding every 64 pages, about 20 µs,
/// cost a fifth of a limit-10 page in context switches; results/harness-overhead.md).
///
/// With fewer pagers than cores a pool thread is free for that work, and a yield only risks
/// resuming the pager on another thread: the drain yields only when the phase's background
/// work has not run for an interval (``backgroundTicks`` did not advance), which happens only
/// when something else shares the process's pool (tests run phases side by side).
struct YieldPolicy: Sendable {
    /// The least time between two looks at whether to yield, in nanoseconds.
    let intervalNanoseconds: UInt64
    /// A count the phase's background work advances (the memory sampler's samples); nil to
    /// yield every interval.
    let backgroundTicks: (@Sendable () -> Int)?

    static var busyPoolIntervalNanoseconds: UInt64 { 1_000_000 }
    /// Two sampling intervals of the memory sampler (10 ms by default).
    static var sparePoolIntervalNanoseconds: UInt64 { 20_000_000 }

    /// Yield every millisecond: a pool where every thread pages, or one shared with work that
    /// is not the phase's (tests run phases side by side; a library caller has its own tasks),
    /// whose tasks wait on the pagers' yields.
    static let everyMillisecond = YieldPolicy(intervalNanoseconds: busyPoolIntervalNanoseconds, backgroundTicks: nil)

    /// The policy of a phase with `pagers` pagers in this process on `cores` cores.
    /// `backgroundTicks` is nil when the process's pool is not the phase's alone
    /// (``PhaseRunner/Options/dedicatedPool``): then a spare core may be someone else's.
    static func forPhase(pagers: Int, cores: Int, backgroundTicks: (@Sendable () -> Int)?) -> YieldPolicy {
        guard pagers < cores, let backgroundTicks else { return everyMillisecond }
        return YieldPolicy(intervalNanoseconds: sparePoolIntervalNanoseconds, backgroundTicks: backgroundTicks)
    }

    /// Whether a drain at a checkpoint at monotonic time `now` yields; updates its pacing.
    func shouldYield(now: UInt64, _ pacing: inout Pacing) -> Bool {
        guard now &- pacing.yieldedAt >= intervalNanoseconds else { return false }
        pacing.yieldedAt = now
        guard let backgroundTicks else { return true }
        let ticks = backgroundTicks()
        defer { pacing.backgroundTicksSeen = ticks }
        return ticks == pacing.backgroundTicksSeen
    }
}

/// Progress publishing: what a drain hands to the shared counters at its yield points.
extension DrainRunner {
    /// Publishes progress; lets other tasks (timers, sampler, progress) run when the yield
    /// policy says so.
    func checkpoint(_ pacing: inout Pacing) async {
        publish(&pacing)
        if yieldPolicy.shouldYield(now: MonotonicTime.nanoseconds(), &pacing) {
            await Task.yield()
        }
    }

    /// Hands the pages and latencies counted since the last call to ``PagerTaskProgress``.
    func publish(_ pacing: inout Pacing, force: Bool = false) {
        if pacing.pagesSinceCheckpoint > 0 {
            progress.pages.add(pacing.pagesSinceCheckpoint, ordering: .relaxed)
            pacing.pagesSinceCheckpoint = 0
        }
        if let samples = pacing.intervalSamples, !samples.isEmpty, let intervals {
            let now = MonotonicTime.nanoseconds()
            if force || samples.count >= 256 || now - pacing.intervalFlushedAt >= 100_000_000 {
                intervals.add(samples)
                pacing.intervalSamples!.removeAll(keepingCapacity: true)
                pacing.intervalFlushedAt = now
            }
        }
    }
}
