import Foundation
import PagebenchHarness
import PagebenchMetrics

/// One phase (scenario × concurrency × repetition, or one stage of a staged phase) of a shard.
package struct ShardPhase: Sendable, Equatable {
    package var scenario: String
    package var configHash: String
    package var seed: UInt64
    /// The whole run's concurrency.
    package var concurrency: Int
    package var repetition: Int
    /// Pagers this shard ran (``Shard/pagers(ofConcurrency:)``).
    package var pagers: Int
    /// Drains this shard was given (drain-count bound), nil for a duration bound.
    package var drains: Int?
    /// When its measured phase started, nanoseconds since 1970 UTC (wall clock).
    package var startedAtUnixNanoseconds: UInt64
    /// Length of its measured phase (monotonic clock).
    package var durationNanoseconds: UInt64
    /// The shard's own results row: the run's context, this shard's counts and rates.
    package var row: ResultRow
    /// Its counters and histograms.
    package var metrics: TaskMetrics

    package init(
        scenario: String,
        configHash: String,
        seed: UInt64,
        concurrency: Int,
        repetition: Int,
        pagers: Int,
        drains: Int?,
        startedAtUnixNanoseconds: UInt64,
        durationNanoseconds: UInt64,
        row: ResultRow,
        metrics: TaskMetrics
    ) {
        self.scenario = scenario
        self.configHash = configHash
        self.seed = seed
        self.concurrency = concurrency
        self.repetition = repetition
        self.pagers = pagers
        self.drains = drains
        self.startedAtUnixNanoseconds = startedAtUnixNanoseconds
        self.durationNanoseconds = durationNanoseconds
        self.row = row
        self.metrics = metrics
    }

    init(result: PhaseResult, row: ResultRow) {
        self.init(
            scenario: result.scenario.name,
            configHash: result.scenario.configurationHash,
            seed: row.seed,
            concurrency: result.concurrency,
            repetition: result.repetition,
            pagers: result.pagers,
            drains: result.shardDrains,
            startedAtUnixNanoseconds: UInt64(max(0, result.startedAt.timeIntervalSince1970 * 1e9)),
            durationNanoseconds: UInt64(max(0, result.measuredSeconds * 1e9)),
            row: row,
            metrics: result.metrics
        )
    }

    /// Scenario, configuration hash, seed, concurrency, repetition and stage (H4): what the
    /// shards of one phase (or one stage of a staged phase) share.
    package var identity: String {
        "\(scenario) [\(configHash)] seed \(seed) ×\(concurrency) rep \(repetition)"
            + (row.stage.map { " stage \($0)" } ?? "")
    }

    /// End of the measured phase, nanoseconds since 1970 UTC.
    package var endedAtUnixNanoseconds: UInt64 { startedAtUnixNanoseconds + durationNanoseconds }
}
