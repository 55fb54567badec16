import Foundation
import PagebenchMetrics
import PagebenchProcessStats

/// What one measured phase produced: merged metrics and resource readings, ready to become
/// a CSV row with ``row(context:)``.
public struct PhaseResult: Sendable {
    public var scenario: Scenario
    public var concurrency: Int
    public var repetition: Int
    /// Whether pages were timed.
    public var pageTiming: Bool
    /// Every pager's metrics, merged (histograms merged exactly).
    public var metrics: TaskMetrics
    /// Pager tasks that returned their metrics: always `concurrency` once the phase is over.
    public var pagersReturned: Int
    /// Wall-clock length of the measured phase.
    public var measuredSeconds: Double
    /// Process CPU time during the measured phase.
    public var cpu: CPUTime
    /// jemalloc allocation requests during the measured phase (whole process).
    public var allocations: UInt64
    /// Highest sampled jemalloc `stats.allocated` during the measured phase.
    public var peakAllocatedBytes: Int
    /// `VmHWM` at the end of the phase (reset at its start when the kernel allows).
    public var peakRSSBytes: Int
    /// Per-second rows (warm-up included), when asked for.
    public var timeSeries: [TimeSeriesRow]
    /// pages/s with per-page timing off ÷ with it on, when measured.
    public var measurementOverheadRatio: Double?
    /// Pages per second of the bare store loop run just before the measured phase over the
    /// same store and drain plans (``BareLoopCalibration``); nil when not calibrated
    /// (a remote source).
    public var bareLoopPagesPerSecond: Double?
    /// When the measured phase started (the row's `timestamp_utc`).
    public var startedAt: Date
    /// The share of the run this process ran (``Shard/whole`` unless `--shard`).
    public var shard: Shard
    /// Pagers this process ran: ``concurrency`` unless sharded.
    public var pagers: Int
    /// Drain-count bound: how many of the phase's drains were this shard's; nil for a duration bound.
    public var shardDrains: Int?
    /// What a remote target answered in the measured phase; nil in-process.
    public var remoteCounts: RemoteCounts?
    /// A remote source's answers during the warm-up before the measured phase; nil
    /// in-process or without a warm-up.
    public var warmupRemoteCounts: RemoteCounts?
    /// Instructions the process executed in the measured phase, counted under callgrind
    /// (``PhaseRunner/Options/instructionCounter``); nil when not counted.
    public var instructions: UInt64?
    /// Whether a remote target failed the measured phase (answered no page, ended no drain,
    /// or stopped answering: ``ResultRow/targetFailure(pages:drains:failedDrains:unansweredRequests:)``).
    public var targetStoppedAnswering: Bool {
        guard let remoteCounts else { return false }
        return ResultRow.targetFailure(
            pages: metrics.pages + metrics.cutOff.pages,
            drains: metrics.drains,
            failedDrains: metrics.errors.total,
            unansweredRequests: remoteCounts.responses["transport"] ?? 0
        ) != nil
    }

    /// Drains of the measured phase the cancellation probe was asked to cancel
    /// (`cancelFraction`), and how many it cancelled: the others ended before their cancel
    /// instant (or the probe could not place one inside them).
    public var probesArmed = 0
    public var probesCancelled = 0

    /// A warning when the probe cancelled less than half of what it was asked to (H2).
    public var probeWarning: String? {
        guard probesArmed >= 4, probesCancelled * 2 < probesArmed else { return nil }
        return "\(scenario.name) ×\(concurrency) rep \(repetition): the cancellation probe was asked to cancel "
            + "\(probesArmed) drains (cancelFraction \(scenario.workload.cancelFraction)) but cancelled \(probesCancelled); "
            + "the others ended before their cancel instant, so cancel_latency_* describes fewer drains than asked"
    }

    /// The stage of a staged phase this result measured (H4); nil for a fixed concurrency or rate.
    public var stage: Stage?

    /// A stage: what the pagers completed while it ran (H7), read from their live counters at
    /// its start and end. Its rates count these, whichever stage a drain started in, while its
    /// counts (``metrics``) are those of the drains that started in it (H4). Nil outside
    /// stages, where every page of the phase's drains completes within the phase.
    public var completedInStage: CompletedWork?

    /// One stage of a staged phase: which, when it began, and what it ramped between.
    public struct Stage: Sendable, Equatable {
        /// 0-based position in the plan.
        public var index: Int
        /// When the stage began, nanoseconds after the plan started (as measured).
        public var startNanoseconds: Int
        /// The plan's stage: its length and its target at start and end.
        public var plan: StagePlan.Stage
        /// What the targets are: pagers or drains per second.
        public var target: StagePlan.Target

        public init(index: Int, startNanoseconds: Int, plan: StagePlan.Stage, target: StagePlan.Target) {
            self.index = index
            self.startNanoseconds = startNanoseconds
            self.plan = plan
            self.target = target
        }
    }

    /// The process's resident memory just before the measured phase's pagers started
    /// (`VmRSS`); nil when not read (staged phases, a shard without pagers). With
    /// ``peakRSSBytes`` it gives what the pagers cost (``memoryPerPagerBytes``).
    public var residentBytesBeforePagers: Int?

    /// Peak resident memory above ``residentBytesBeforePagers``: the pagers', and the
    /// phase's own (its shared histograms, thread caches, task-allocator slabs).
    public var memoryAbovePhaseStartBytes: Int? {
        guard let before = residentBytesBeforePagers, pagers > 0, peakRSSBytes > 0 else { return nil }
        return max(0, peakRSSBytes - before)
    }

    /// ``memoryAbovePhaseStartBytes`` per pager of this process, for a crowd of at least
    /// ``memoryPerPagerMinimumPagers``; nil for fewer, where the phase's own memory (a few
    /// MiB: 8 pagers showed 350 KiB each) is most of it and divided it would not be a
    /// pager's cost.
    public var memoryPerPagerBytes: Int? {
        guard pagers >= Self.memoryPerPagerMinimumPagers, let above = memoryAbovePhaseStartBytes else { return nil }
        return above / pagers
    }

    /// The fewest pagers whose memory is shown per pager: at 1,000 pagers of about 30 KiB
    /// the phase's own few MiB are a tenth of the figure or less.
    public static var memoryPerPagerMinimumPagers: Int { 1_000 }

    /// Whether an interruption (SIGINT, SIGTERM: H6) ended the phase before its bound.
    public var partial = false
    /// False when the interruption came before the measured phase began: then nothing of
    /// the phase is a result, and it gets no row.
    public var measured = true

    public init(
        scenario: Scenario,
        concurrency: Int,
        repetition: Int,
        pageTiming: Bool,
        metrics: TaskMetrics,
        pagersReturned: Int,
        measuredSeconds: Double,
        cpu: CPUTime,
        allocations: UInt64,
        peakAllocatedBytes: Int,
        peakRSSBytes: Int,
        timeSeries: [TimeSeriesRow],
        measurementOverheadRatio: Double? = nil,
        startedAt: Date,
        shard: Shard = .whole,
        pagers: Int? = nil,
        shardDrains: Int? = nil
    ) {
        self.scenario = scenario
        self.concurrency = concurrency
        self.repetition = repetition
        self.pageTiming = pageTiming
        self.metrics = metrics
        self.pagersReturned = pagersReturned
        self.measuredSeconds = measuredSeconds
        self.cpu = cpu
        self.allocations = allocations
        self.peakAllocatedBytes = peakAllocatedBytes
        self.peakRSSBytes = peakRSSBytes
        self.timeSeries = timeSeries
        self.measurementOverheadRatio = measurementOverheadRatio
        self.startedAt = startedAt
        self.shard = shard
        self.pagers = pagers ?? concurrency
        self.shardDrains = shardDrains
    }

    /// A phase that measured nothing: a shard without a pager, or a phase interrupted before
    /// it began. It has every identifying field, so that shards of it still merge.
    static func nothingMeasured(
        scenario: Scenario,
        concurrency: Int,
        repetition: Int,
        pageTiming: Bool,
        shard: Shard,
        pagers: Int,
        shardDrains: Int? = nil
    ) -> PhaseResult {
        PhaseResult(
            scenario: scenario,
            concurrency: concurrency,
            repetition: repetition,
            pageTiming: pageTiming,
            metrics: TaskMetrics(),
            pagersReturned: 0,
            measuredSeconds: 0,
            cpu: CPUTime(userSeconds: 0, systemSeconds: 0),
            allocations: 0,
            peakAllocatedBytes: 0,
            peakRSSBytes: 0,
            timeSeries: [],
            startedAt: Date(),
            shard: shard,
            pagers: pagers,
            shardDrains: shardDrains
        )
    }

    /// Pages completed per second of the measured phase (or stage, ``completedInStage``).
    public var pagesPerSecond: Double {
        measuredSeconds > 0
            ? Double(completedInStage?.pages ?? metrics.pages + metrics.cutOff.pages) / measuredSeconds : 0
    }

    /// Drains completed per second of the measured phase (or stage), as the row's
    /// `drains_per_s` counts them.
    public var drainsPerSecond: Double {
        measuredSeconds > 0 ? Double(completedInStage?.drains ?? metrics.drains) / measuredSeconds : 0
    }

    /// ``bareLoopPagesPerSecond`` ÷ ``pagesPerSecond``: how many times faster the bare store
    /// loop pages than this phase did (1 = the harness and pager cost nothing); nil when not
    /// calibrated or no page was fetched.
    public var harnessOverheadRatio: Double? {
        guard let bareLoopPagesPerSecond, pagesPerSecond > 0 else { return nil }
        return bareLoopPagesPerSecond / pagesPerSecond
    }

    /// The results CSV row of this phase. A shard's row carries the whole run's context
    /// (`concurrency`, `target_drains`) and this shard's counts and rates.
    public func row(context: RunContext) -> ResultRow {
        let workload = scenario.workload
        var row = ResultRow()
        row.apply(context)
        row.timestampUTC = RunContext.timestamp(startedAt)
        scenario.describe(&row)
        row.concurrency = concurrency
        row.repetition = repetition
        switch workload.bound {
        case .drains(let count): row.plannedDrains = count
        case .duration(let seconds): row.targetDurationSeconds = seconds
        }
        row.warmupSeconds = workload.warmupSeconds
        if let stage {
            row.stage = stage.index + 1
            row.stageStartSeconds = Double(stage.startNanoseconds) / 1e9
            row.targetDurationSeconds = Double(stage.plan.durationNanoseconds) / 1e9
            switch stage.target {
            case .pagers:
                row.stagePagersFrom = Int(stage.plan.start)
                row.stagePagersTo = Int(stage.plan.end)
            case .rate:
                row.stageRateFrom = stage.plan.start
                row.stageRateTo = stage.plan.end
                row.plannedDrainsPerSecond = (stage.plan.start + stage.plan.end) / 2
            }
        }
        row.apply(metrics, measuredSeconds: measuredSeconds)
        if let completed = completedInStage, measuredSeconds > 0 {
            // A stage's rates count what completed while it ran (H7).
            row.pagesPerSecond = Double(completed.pages) / measuredSeconds
            row.itemsPerSecond = Double(completed.items) / measuredSeconds
            row.scannedBytesPerSecond = Double(completed.scannedBytes) / measuredSeconds
            row.drainsPerSecond = Double(completed.drains) / measuredSeconds
        }
        row.applyResources(
            cpu: cpu,
            allocationRequests: allocations,
            peakAllocatedBytes: peakAllocatedBytes,
            peakRSSBytes: peakRSSBytes
        )
        row.measurementOverheadRatio = measurementOverheadRatio
        row.harnessOverheadRatio = harnessOverheadRatio
        row.partial = partial ? 1 : 0
        if let remoteCounts { row.apply(remoteCounts) }
        row.warmupRequests = warmupRemoteCounts.map { $0.responses.values.reduce(0, +) }
        let allPages = metrics.pages + metrics.cutOff.pages
        if let instructions, allPages > 0 { row.instructionsPerPage = Double(instructions) / Double(allPages) }
        return row
    }
}
