import PagebenchBase
import PagebenchMetrics
import PagebenchProcessStats
import Synchronization

/// The loops that run beside a phase's pagers: the per-second time series and the progress
/// ticker, reading the pager tasks' published counters (never the pagers' own state).
extension PhaseRunner {

    /// What the pagers have completed so far, summed over their live counters (H7).
    func totals(_ slots: [PagerTaskProgress]) -> CompletedWork {
        slots.reduce(CompletedWork()) { $0 + $1.completed }
    }

    func timeSeriesLoop(
        slots: [PagerTaskProgress],
        intervals: IntervalLatencies,
        sampler: MemorySampler,
        status: PhaseStatus,
        runStart: UInt64,
        concurrency: Int,
        repetition: Int,
        observer: (any PhaseObserver)?
    ) async -> [TimeSeriesRow] {
        var rows: [TimeSeriesRow] = []
        var cursor = TimeSeriesCursor(completed: totals(slots), at: runStart)
        var tick = runStart
        func emit(now: UInt64) {
            let (row, latencies) = timeSeriesRow(
                &cursor,
                now: now,
                elapsedNanoseconds: now - runStart,
                slots: slots,
                intervals: intervals,
                sampler: sampler,
                concurrency: concurrency,
                repetition: repetition,
                isWarmup: status.isWarmup
            )
            rows.append(row)
            // As the interval ends (a `--timeseries` file's row, live metrics), not at the phase's end.
            observer?.intervalEnded(row, pageLatencies: latencies)
        }
        while true {
            tick += 1_000_000_000
            do {
                try await MonotonicTime.sleep(until: tick)
            } catch {
                // The run ended: a last, partial interval if it is worth a row.
                let now = MonotonicTime.nanoseconds()
                if now - cursor.at >= 100_000_000 { emit(now: now) }
                return rows
            }
            emit(now: MonotonicTime.nanoseconds())
        }
    }

    /// The time-series row of the interval from `cursor` to `now` (nanoseconds in the caller's
    /// time base), which then starts the next interval, and the page latencies of the interval.
    func timeSeriesRow(
        _ cursor: inout TimeSeriesCursor,
        now: UInt64,
        elapsedNanoseconds: UInt64,
        slots: [PagerTaskProgress],
        intervals: IntervalLatencies,
        sampler: MemorySampler,
        concurrency: Int,
        repetition: Int,
        isWarmup: Bool
    ) -> (TimeSeriesRow, LatencyRecorder) {
        let completed = totals(slots)
        let work = completed.since(cursor.completed)
        let interval = intervals.take()
        let seconds = Double(MonotonicTime.elapsed(from: cursor.at, to: now)) / 1e9
        var row = TimeSeriesRow(
            scenario: scenario.name,
            pagerKind: scenario.workload.pager.rawValue,
            concurrency: concurrency,
            repetition: repetition,
            elapsedSeconds: Double(elapsedNanoseconds) / 1e9,
            isWarmup: isWarmup,
            pagesPerSecond: seconds > 0 ? Double(work.pages) / seconds : 0,
            pageLatencyP99Nanoseconds: interval.isEmpty ? nil : interval.valueAtPercentile(99),
            allocatedBytes: sampler.latestAllocatedBytes,
            rssBytes: (try? ProcessMemory.read().residentBytes) ?? 0
        )
        row.drainsPerSecond = seconds > 0 ? Double(work.drains) / seconds : 0
        row.pageLatencyP50Nanoseconds = interval.isEmpty ? nil : interval.valueAtPercentile(50)
        cursor = TimeSeriesCursor(completed: completed, at: now)
        return (row, interval)
    }

    func progressLoop(
        every interval: Duration,
        observer: any PhaseObserver,
        slots: [PagerTaskProgress],
        status: PhaseStatus,
        concurrency: Int,
        repetition: Int,
        drainTarget: Int?
    ) async {
        let step = LatencyRecorder.nanoseconds(interval)
        var (lastPages, lastDrains) = (totals(slots).pages, totals(slots).drains)
        var last = MonotonicTime.nanoseconds()
        var next = last
        // The phase's page latencies are merged at most this often: a merge walks every
        // shared histogram (``pageLatencyReadNanoseconds``).
        var latencyReadAt: UInt64 = 0
        while true {
            next += step
            do { try await MonotonicTime.sleep(until: next) } catch { return }
            let now = MonotonicTime.nanoseconds()
            let completed = totals(slots)
            let (pages, drains) = (completed.pages, completed.endedDrains)
            let phase = status.phase
            let phaseWork = completed.since(phase.completedAtStart)
            // Read after the phase: the measured phase's counts were reset before it began.
            let counts = slots.reduce(LiveCounts()) { $0 + $1.counts.withLock { $0 } }
            // The phase may have begun after `now` was read (a crowd's start keeps the
            // threads busy between the two): then no time of it has elapsed yet.
            let elapsed = Double(MonotonicTime.elapsed(from: phase.start, to: now)) / 1e9
            var fraction: Double
            if phase.warmup {
                fraction = scenario.workload.warmupSeconds > 0 ? elapsed / scenario.workload.warmupSeconds : 1
            } else {
                switch scenario.workload.bound {
                case .drains(let count):
                    // This shard's drains, when sharded.
                    fraction = Double(drains - phase.drainsAtStart) / Double(max(1, drainTarget ?? count))
                case .duration(let seconds): fraction = elapsed / seconds
                }
            }
            fraction = min(1, max(0, fraction))
            var pageLatency: LatencyRecorder?
            if observer.wantsPageLatency, !phase.warmup, now &- latencyReadAt >= Self.pageLatencyReadNanoseconds {
                pageLatency = phase.latencies?.pageLatencySoFar
                latencyReadAt = now
            }
            observer.progress(
                ProgressSnapshot(
                    scenario: scenario.name,
                    concurrency: concurrency,
                    repetition: repetition,
                    isWarmup: phase.warmup,
                    phaseElapsedSeconds: elapsed,
                    phaseFraction: fraction,
                    pagesPerSecond: now > last ? Double(pages - lastPages) / (Double(now - last) / 1e9) : 0,
                    pages: pages - phase.pagesAtStart,
                    items: phaseWork.items,
                    drains: phaseWork.drains,
                    drainsPerSecond: now > last
                        ? Double(completed.drains - lastDrains) / (Double(now - last) / 1e9) : 0,
                    counts: phase.warmup ? LiveCounts() : counts,
                    pageLatency: pageLatency
                )
            )
            (lastPages, lastDrains) = (pages, completed.drains)
            last = now
        }
    }
}

extension PhaseRunner {
    /// The least time between two merges of a phase's page latencies for the progress
    /// snapshots (``ProgressSnapshot/pageLatency``): 250 ms, the terminal's progress line.
    static var pageLatencyReadNanoseconds: UInt64 { 250_000_000 }
}

/// Where the previous time-series interval ended: its instant and what was completed by then.
struct TimeSeriesCursor {
    var completed: CompletedWork
    var at: UInt64
}

/// Which phase a run is in, for the background loops.
final class PhaseStatus: Sendable {
    struct Phase: Sendable {
        var warmup = true
        var start: UInt64 = 0
        /// The phase's shared latency histograms, once its pagers start.
        var latencies: SharedLatencies?
        var pagesAtStart = 0
        var drainsAtStart = 0
        /// The pagers' totals when the phase began.
        var completedAtStart = CompletedWork()
    }

    private let state = Mutex(Phase())

    var phase: Phase { state.withLock { $0 } }
    var isWarmup: Bool { state.withLock { $0.warmup } }

    /// The shared histograms the phase's pagers fold their latencies into.
    func share(_ latencies: SharedLatencies) {
        state.withLock { $0.latencies = latencies }
    }

    func begin(warmup: Bool, totals: CompletedWork) {
        state.withLock { state in
            state = Phase(
                warmup: warmup,
                start: MonotonicTime.nanoseconds(),
                pagesAtStart: totals.pages,
                drainsAtStart: totals.endedDrains,
                completedAtStart: totals
            )
        }
    }
}
