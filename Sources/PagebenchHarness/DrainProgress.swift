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
    /// When this task last called `Task.yield()` (monotonic nanoseconds; 0 before the first).
    var yieldedAt: UInt64 = 0
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

/// Progress publishing: what a drain hands to the shared counters at its yield points.
extension DrainRunner {
    /// The least time between two `Task.yield()`s of a CPU-bound drain when the phase has at
    /// least as many pagers as cores, in nanoseconds: the timers, the memory sampler (every
    /// 10 ms) and progress (every second) still run when every pool thread is busy paging,
    /// while a pager alone on a core is not parked and resumed (often on the other thread)
    /// every few dozen pages. Yielding every 64 pages (about 20 µs) cost a fifth of a
    /// limit-10 page in context switches (results/harness-overhead.md).
    static var busyPoolYieldIntervalNanoseconds: UInt64 { 1_000_000 }

    /// The same with fewer pagers than cores: a pool thread is free for the timers, sampler
    /// and progress, so a pager yields only in case other work shares the process's pool
    /// (tests run phases side by side). Each yield may resume the pager on another thread.
    static var sparePoolYieldIntervalNanoseconds: UInt64 { 10_000_000 }

    /// The yield interval of a phase with `pagers` pagers in this process on `cores` cores.
    static func yieldIntervalNanoseconds(pagers: Int, cores: Int) -> UInt64 {
        pagers < cores ? sparePoolYieldIntervalNanoseconds : busyPoolYieldIntervalNanoseconds
    }

    /// Publishes progress; lets other tasks (timers, sampler, progress) run if the last yield
    /// was at least ``yieldIntervalNanoseconds`` ago.
    func checkpoint(_ pacing: inout Pacing) async {
        publish(&pacing)
        let now = MonotonicTime.nanoseconds()
        if now &- pacing.yieldedAt >= yieldIntervalNanoseconds {
            pacing.yieldedAt = now
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
