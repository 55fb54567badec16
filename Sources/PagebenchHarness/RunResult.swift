import Foundation
import PagebenchMetrics

/// What one measured phase produced: merged metrics and resource readings, ready to become
/// a CSV row with ``row(context:)``.
public struct RunResult: Sendable {
    public var scenario: Scenario
    public var concurrency: Int
    public var repetition: Int
    /// Whether pages were timed.
    public var pageTiming: Bool
    /// Every worker's metrics, merged (histograms merged exactly).
    public var metrics: TaskMetrics
    /// Worker tasks that returned their metrics: always `concurrency` once the phase is over.
    public var workersReturned: Int
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
    /// When the measured phase started (the row's `timestamp_utc`).
    public var startedAt: Date

    /// Pages per second of the measured phase.
    public var pagesPerSecond: Double { measuredSeconds > 0 ? Double(metrics.pages) / measuredSeconds : 0 }

    /// The results CSV row of this phase.
    public func row(context: RunContext) -> ResultRow {
        let workload = scenario.workload
        var row = ResultRow()
        row.apply(context)
        row.timestampUTC = RunContext.timestamp(startedAt)
        row.scenario = scenario.name
        row.configHash = scenario.configurationHash
        row.seed = workload.effectiveSeed(store: scenario.store)
        row.pagerKind = workload.pager.rawValue
        row.loadModel = workload.load.csvName
        if case .open(let rate, _) = workload.load { row.targetDrainsPerSecond = rate }
        row.concurrency = concurrency
        row.repetition = repetition
        row.limit = workload.effectiveLimit(store: scenario.store)
        switch workload.bound {
        case .drains(let count): row.targetDrains = count
        case .duration(let seconds): row.targetDurationSeconds = seconds
        }
        row.warmupSeconds = workload.warmupSeconds
        row.apply(metrics, measuredSeconds: measuredSeconds)
        row.applyResources(
            cpu: cpu, allocationRequests: allocations, peakAllocatedBytes: peakAllocatedBytes, peakRSSBytes: peakRSSBytes)
        row.measurementOverheadRatio = measurementOverheadRatio
        return row
    }
}
