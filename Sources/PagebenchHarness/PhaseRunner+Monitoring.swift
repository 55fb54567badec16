import PagebenchBase
import PagebenchMetrics
import PagebenchProcessStats
import Synchronization

/// The loops that run beside a phase's pagers: the per-second time series and the progress
/// ticker, reading the pager tasks' published counters (never the pagers' own state).
extension PhaseRunner {

    func totals(_ slots: [PagerTaskProgress]) -> (pages: Int, drains: Int) {
        slots.reduce(into: (0, 0)) { sum, slot in
            sum.0 += slot.pages.load(ordering: .relaxed)
            sum.1 += slot.drains.load(ordering: .relaxed)
        }
    }

    func timeSeriesLoop(
        slots: [PagerTaskProgress], intervals: IntervalLatencies, sampler: MemorySampler, status: RunStatus,
        runStart: UInt64,
        concurrency: Int, repetition: Int
    ) async -> [TimeSeriesRow] {
        var rows: [TimeSeriesRow] = []
        var lastPages = totals(slots).pages
        var last = runStart
        var tick = runStart
        func emit(now: UInt64) {
            let pages = totals(slots).pages
            let interval = intervals.take()
            let seconds = Double(now - last) / 1e9
            rows.append(
                TimeSeriesRow(
                    scenario: scenario.name, pagerKind: scenario.workload.pager.rawValue, concurrency: concurrency,
                    repetition: repetition, elapsedSeconds: Double(now - runStart) / 1e9, isWarmup: status.isWarmup,
                    pagesPerSecond: seconds > 0 ? Double(pages - lastPages) / seconds : 0,
                    pageLatencyP99Nanoseconds: interval.isEmpty ? nil : interval.valueAtPercentile(99),
                    allocatedBytes: sampler.latestAllocatedBytes,
                    rssBytes: (try? ProcessMemory.read().residentBytes) ?? 0))
            lastPages = pages
            last = now
        }
        while true {
            tick += 1_000_000_000
            do {
                try await MonotonicTime.sleep(until: tick)
            } catch {
                // The run ended: a last, partial interval if it is worth a row.
                let now = MonotonicTime.nanoseconds()
                if now - last >= 100_000_000 { emit(now: now) }
                return rows
            }
            emit(now: MonotonicTime.nanoseconds())
        }
    }

    func progressLoop(
        every interval: Duration, observer: any RunObserver, slots: [PagerTaskProgress], status: RunStatus,
        concurrency: Int, repetition: Int, drainTarget: Int?
    ) async {
        let step = LatencyRecorder.nanoseconds(interval)
        var lastPages = totals(slots).pages
        var last = MonotonicTime.nanoseconds()
        var next = last
        while true {
            next += step
            do { try await MonotonicTime.sleep(until: next) } catch { return }
            let now = MonotonicTime.nanoseconds()
            let (pages, drains) = totals(slots)
            let phase = status.phase
            let elapsed = Double(now - phase.start) / 1e9
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
            observer.progress(
                ProgressSnapshot(
                    scenario: scenario.name, concurrency: concurrency, repetition: repetition,
                    isWarmup: phase.warmup, phaseElapsedSeconds: elapsed, phaseFraction: fraction,
                    pagesPerSecond: now > last ? Double(pages - lastPages) / (Double(now - last) / 1e9) : 0,
                    pages: pages - phase.pagesAtStart))
            lastPages = pages
            last = now
        }
    }
}

/// Which phase a run is in, for the background loops.
final class RunStatus: Sendable {
    struct Phase: Sendable {
        var warmup = true
        var start: UInt64 = 0
        var pagesAtStart = 0
        var drainsAtStart = 0
    }

    private let state = Mutex(Phase())

    var phase: Phase { state.withLock { $0 } }
    var isWarmup: Bool { state.withLock { $0.warmup } }

    func begin(warmup: Bool, totals: (pages: Int, drains: Int)) {
        state.withLock { state in
            state = Phase(
                warmup: warmup, start: MonotonicTime.nanoseconds(), pagesAtStart: totals.pages,
                drainsAtStart: totals.drains)
        }
    }
}
