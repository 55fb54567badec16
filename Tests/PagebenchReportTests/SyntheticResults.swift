import PagebenchBase
import PagebenchMetrics

/// A seeded generator of test samples (SplitMix64), the same on every machine.
struct SampleGenerator {
    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { random.next() }

    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Approximately normal (sum of 12 uniforms − 6): mean 0, standard deviation 1.
    mutating func normal() -> Double { (0..<12).reduce(0.0) { sum, _ in sum + unit() } - 6 }
}

/// Builds results rows with known answers: chosen medians, a chosen spread, fixed deterministic counts.
struct SyntheticResults {
    var scenario = "even"
    var configHash = "00c0ffee00c0ffee"
    var pagerKind = "loop"
    var limit = 100
    /// The schema-6 columns (issue 26); empty as in files of schema 5 and earlier.
    var label = ""
    var filter = ""
    var concurrency = 4
    var repetitions = 5
    /// Relative standard deviation of every measured metric across repetitions.
    var noise = 0.01
    var pagesPerSecond = 10_000.0
    var pageLatencyP50Nanoseconds = 200_000.0
    var pages = 1_200
    var emptyPagesWasted = 40
    var errorsOther = 0
    var items = 30_000
    var scannedItems = 120_000
    var cancellationLatencyP50Nanoseconds = 40_000.0
    var buildConfiguration = "release"
    var plannedDrains: Int? = 100
    var gitCommit = "0123456789abcdef0123456789abcdef01234567"
    var timestampUTC = "2026-11-22T02:39:43Z"
    /// Instructions per page counted once per identity (`run --count-instructions`): on the
    /// first repetition's row only, as `run` writes it; nil for none.
    var instructionsPerPage: Double?
    /// `target_kind`: empty in-process.
    var targetKind = ""
    /// Each repetition's CPU seconds, times this: a busier machine (docs/contract.md H10).
    var cpuFactor = 1.0

    func rows(seed: UInt64) -> [ResultRow] {
        var generator = SampleGenerator(seed: seed)
        return (1...repetitions).map { repetition in
            func noisy(_ value: Double) -> Double { value * (1 + noise * generator.normal()) }
            var row = ResultRow()
            row.timestampUTC = timestampUTC
            row.pagebenchVersion = "0.1.0"
            row.gitCommit = gitCommit
            row.swiftVersion = "6.3"
            row.buildConfiguration = buildConfiguration
            row.host = "ci"
            row.cores = 2
            row.scenario = scenario
            row.configHash = configHash
            row.seed = 42
            row.pagerKind = pagerKind
            row.loadModel = "closed"
            row.concurrency = concurrency
            row.repetition = repetition
            row.limit = limit
            row.label = label
            row.filter = filter
            row.plannedDrains = plannedDrains
            row.targetDurationSeconds = plannedDrains == nil ? 10 : nil
            row.warmupSeconds = 0.5
            row.pagesPerSecond = noisy(pagesPerSecond)
            row.itemsPerSecond = row.pagesPerSecond * Double(items) / Double(pages)
            row.scannedBytesPerSecond = row.pagesPerSecond * 900_000
            row.drainsPerSecond = row.pagesPerSecond / 12
            row.drains = 100
            row.pages = pages
            row.items = items
            row.scannedItems = scannedItems
            row.scannedBytes = 1_080_000_000
            row.emptyPagesWasted = emptyPagesWasted
            row.emptyPagesFinal = 3
            row.emptyPageRate = Double(emptyPagesWasted) / Double(pages)
            row.pagesPerDrainMean = Double(pages) / 100
            row.pagesPerDrainMax = 19
            let p50 = noisy(pageLatencyP50Nanoseconds)
            row.pageLatency = LatencyPercentiles(
                p50Nanoseconds: UInt64(p50),
                p90Nanoseconds: UInt64(p50 * 1.8),
                p99Nanoseconds: UInt64(p50 * 3),
                p999Nanoseconds: UInt64(p50 * 5),
                maxNanoseconds: UInt64(p50 * 9)
            )
            let drain = noisy(pageLatencyP50Nanoseconds * 12)
            row.drainLatency = LatencyPercentiles(
                p50Nanoseconds: UInt64(drain),
                p90Nanoseconds: UInt64(drain * 1.5),
                p99Nanoseconds: UInt64(drain * 2),
                p999Nanoseconds: UInt64(drain * 2.5),
                maxNanoseconds: UInt64(drain * 3)
            )
            row.cancellations = 8
            let cancel = noisy(cancellationLatencyP50Nanoseconds)
            row.cancellationLatency = LatencyPercentiles(
                p50Nanoseconds: UInt64(cancel),
                p90Nanoseconds: UInt64(cancel * 2),
                p99Nanoseconds: UInt64(cancel * 4),
                p999Nanoseconds: UInt64(cancel * 5),
                maxNanoseconds: UInt64(cancel * 6)
            )
            row.pagesAfterCancel = 1
            row.errors.other = errorsOther
            row.cpuUserSeconds = noisy(1.5 * cpuFactor)
            row.cpuSystemSeconds = noisy(0.2)
            row.allocations = UInt64(noisy(600_000))
            row.allocationsPerPage = Double(row.allocations) / Double(pages)
            row.peakAllocatedBytes = Int(noisy(12_000_000))
            row.peakRSSBytes = Int(noisy(40_000_000))
            row.durationSeconds = Double(pages) / row.pagesPerSecond
            if repetition == 1 { row.instructionsPerPage = instructionsPerPage }
            row.targetKind = targetKind
            return row
        }
    }
}

/// A time series for the memory plot: two runs (concurrency 1 and 4), 2 s of warm-up, then
/// memory that ramps up and saw-tooths as pages are dropped.
func syntheticTimeSeries(seconds: Int = 10) -> [TimeSeriesRow] {
    var rows: [TimeSeriesRow] = []
    for concurrency in [1, 4] {
        for tick in 1...(seconds + 2) {
            let ramp = min(Double(tick) / 5, 1)
            let saw = Double(tick % 4) * 250_000 * Double(concurrency)
            rows.append(
                TimeSeriesRow(
                    scenario: "even",
                    pagerKind: "loop",
                    concurrency: concurrency,
                    repetition: 1,
                    elapsedSeconds: Double(tick) * 0.5,
                    isWarmup: tick <= 2,
                    pagesPerSecond: 9_000 * Double(concurrency).squareRoot() + Double(tick * 37 % 200),
                    pageLatencyP99Nanoseconds: 600_000,
                    allocatedBytes: Int(4_000_000 + ramp * 3_000_000 * Double(concurrency) + saw),
                    rssBytes: Int(24_000_000 + ramp * 6_000_000 * Double(concurrency) + saw / 2)
                )
            )
        }
    }
    return rows
}

/// Reads back the CSV text of `rows`: every verdict test goes through the real CSV reader.
func roundTrip(_ rows: [ResultRow], file: String = "synthetic.csv") throws -> [ResultRow] {
    try ResultRow.parseCSV(ResultRow.csvText(rows), file: file)
}
