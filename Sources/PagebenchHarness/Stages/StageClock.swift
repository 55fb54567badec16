import Foundation
import PagebenchBase
import PagebenchMetrics
import PagebenchProcessStats

/// What drives a staged phase in time (docs/contract.md H4), on an injected clock so that tests
/// step it: it admits the plan's pagers into the ``PagerPool`` at every instant the rounded
/// pager count changes (computed from the plan, not polled), moves the pool from stage to
/// stage, reads the resources at each stage boundary, writes the time series (every second
/// from a stage's start and at its end, so no interval straddles two stages), and returns
/// when the plan ends (the phase's deadline) or when it is cancelled (an interruption).
///
/// It is the only task of the phase that sleeps on the clock.
struct StageClock<C: Clock>: Sendable where C.Duration == Duration {
    let clock: C
    let plan: StagePlan
    let pool: PagerPool
    /// This process's share: it admits its own slots of the plan's pager count (``Shard``).
    let shard: Shard
    let sampler: MemorySampler
    /// The time-series row of the interval from the cursor to an instant (nanoseconds after
    /// the plan started); nil without `--timeseries`.
    let sample: (@Sendable (inout TimeSeriesCursor, Int) -> (TimeSeriesRow, LatencyRecorder))?
    /// Told of each row as its interval ends (``PhaseObserver/intervalEnded(_:pageLatencies:)``).
    let observer: (any PhaseObserver)?
    /// What the pagers have completed so far (their live counters, H7): the time series'
    /// intervals and each stage's rates are differences of two readings.
    let totals: @Sendable () -> CompletedWork
    /// A remote target's counters, read at stage boundaries.
    let remoteCounters: (@Sendable () -> RemoteCounts)?

    /// The readings at a stage's start, for its span.
    private struct Meter {
        var index: Int
        var start: Int
        var completed: CompletedWork
        var startedAt = Date()
        var cpu = CPUTime.now()
        var allocations = try? JemallocStats.read(flushingThreadCache: true)
        var remote: RemoteCounts?

        func span(
            endingAt end: Int,
            completed now: CompletedWork,
            sampler: MemorySampler,
            remoteCounters: (@Sendable () -> RemoteCounts)?
        ) -> StageSpan {
            sampler.sample()
            var allocated: UInt64 = 0
            if let allocations, let after = try? JemallocStats.read(flushingThreadCache: true) {
                allocated = after.allocationRequests(since: allocations)
            }
            return StageSpan(
                index: index,
                startNanoseconds: start,
                endNanoseconds: max(start, end),
                completed: now.since(completed),
                startedAt: startedAt,
                cpu: CPUTime.now().since(cpu),
                allocations: allocated,
                peakAllocatedBytes: sampler.peakAllocatedBytes,
                peakRSSBytes: (try? ProcessMemory.read().peakResidentBytes) ?? 0,
                remote: remote.flatMap { before in remoteCounters.map { $0().since(before) } }
            )
        }
    }

    static var tickNanoseconds: Int { 1_000_000_000 }

    /// Runs the plan from `start` (an instant of ``clock``) to its end or until cancelled; if
    /// this task first runs after `start`, the plan starts then. No pager is admitted before
    /// that run, and a plan timed from an earlier `start` could be over before it: a phase
    /// whose clock task waited out the plan for a thread (a busy cooperative pool: test suites
    /// beside each other) then had no stage and no row at all.
    func run(from requestedStart: C.Instant) async -> StageTimeline {
        let start = max(requestedStart, clock.now)
        var outcome = StageTimeline(reachedEnd: false, spans: [], series: [])
        var meter: Meter?
        var stage = -1
        var cursor = TimeSeriesCursor(completed: totals(), at: 0)
        var nextTick = Self.tickNanoseconds
        func elapsed() -> Int {
            Int(clamping: LatencyRecorder.nanoseconds(start.duration(to: clock.now)))
        }
        /// Ends the interval since the last row at `now`, as a row of `stage`.
        func emit(at now: Int, stage: Int) {
            guard let sample, now > Int(cursor.at) else { return }
            var (row, latencies) = sample(&cursor, now)
            row.stage = stage + 1
            row.activePagers = pool.activeCount.load(ordering: .relaxed)
            // The plan's target at the row's end, within its own stage (a boundary row ends
            // where the clock saw the boundary, a little after it).
            let stageEnd = plan.stageStartsNanoseconds[stage] + plan.stages[stage].durationNanoseconds
            let target = now >= stageEnd ? plan.stages[stage].end : plan.position(atNanoseconds: now).value
            if plan.target == .pagers { row.plannedPagers = target } else { row.plannedDrainsPerSecond = target }
            outcome.series.append(row)
            observer?.intervalEnded(row, pageLatencies: latencies)
        }
        /// The counters' reading that ended the last stage, where the next one starts.
        var boundary: CompletedWork?
        func close(at now: Int) {
            guard let open = meter else { return }
            emit(at: now, stage: open.index)
            // Read after the row just emitted: nothing completed in the stage is left out.
            let reading = totals()
            outcome.spans.append(
                open.span(endingAt: now, completed: reading, sampler: sampler, remoteCounters: remoteCounters)
            )
            boundary = reading
            meter = nil
        }
        while true {
            let now = elapsed()
            if now >= plan.durationNanoseconds {
                close(at: now)
                outcome.reachedEnd = true
                return outcome
            }
            let position = plan.position(atNanoseconds: now)
            if position.stage != stage {
                close(at: now)
                stage = position.stage
                pool.currentStage.store(stage, ordering: .releasing)
                sampler.resetPeak()
                PeakResidentMemory.reset()
                // The plan starts at `start`, whenever this task first ran; later stages start
                // where the clock saw their boundary, as their drains do.
                let stageStart = outcome.spans.isEmpty ? 0 : now
                meter = Meter(
                    index: stage,
                    start: stageStart,
                    completed: boundary ?? totals(),
                    remote: remoteCounters?()
                )
                nextTick = stageStart + Self.tickNanoseconds
            }
            switch plan.target {
            case .pagers: pool.setActive(shard.pagers(ofConcurrency: plan.pagers(atNanoseconds: now)))
            case .rate: pool.setActive(pool.size)
            }
            if now >= nextTick {
                emit(at: now, stage: stage)
                while nextTick <= now { nextTick += Self.tickNanoseconds }
            }
            var wake = plan.nextChangeNanoseconds(after: now) ?? plan.durationNanoseconds
            if sample != nil { wake = min(wake, nextTick) }
            do {
                try await clock.sleep(until: start.advanced(by: .nanoseconds(wake)), tolerance: nil)
            } catch {
                // Interrupted (H6): the stage in progress ends here, cut short.
                close(at: elapsed())
                return outcome
            }
        }
    }
}

/// One stage as it ran: when, and what the process spent in it.
struct StageSpan: Sendable {
    var index: Int
    /// Nanoseconds after the plan started, as the stage clock measured them.
    var startNanoseconds: Int
    var endNanoseconds: Int
    /// What the pagers completed from the stage's start to its end (H7), whichever stage
    /// their drains started in.
    var completed: CompletedWork
    var startedAt: Date
    var cpu: CPUTime
    var allocations: UInt64
    var peakAllocatedBytes: Int
    var peakRSSBytes: Int
    var remote: RemoteCounts?
}

/// What a ``StageClock`` saw: whether the plan ran to its end, every stage it began (the
/// last cut short when it did not), and the time series.
struct StageTimeline: Sendable {
    var reachedEnd: Bool
    var spans: [StageSpan]
    var series: [TimeSeriesRow]
}
