/// One second of a run, for `--timeseries FILE`: throughput, tail latency and memory over time.
///
/// Rows of several runs can share a file; scenario, concurrency and repetition tell them apart.
public struct TimeSeriesRow: CSVRecord, Hashable {
    public var scenario: String = ""
    public var pagerKind: String = ""
    public var concurrency: Int = 0
    public var repetition: Int = 0
    /// Seconds since the run (warm-up included) started, at the end of this interval.
    public var elapsedSeconds: Double = 0
    /// Whether this interval was warm-up (excluded from the results row).
    public var isWarmup: Bool = false
    /// Pages completed in this interval ÷ its length. Higher is better.
    public var pagesPerSecond: Double = 0
    /// 99th percentile page latency of this interval; nil when no page completed or timing was off.
    public var pageLatencyP99Nanoseconds: UInt64?
    /// jemalloc `stats.allocated` at the end of the interval.
    public var allocatedBytes: Int = 0
    /// Resident set size (`VmRSS`) at the end of the interval.
    public var rssBytes: Int = 0

    public init() {}

    public init(
        scenario: String, pagerKind: String, concurrency: Int, repetition: Int, elapsedSeconds: Double,
        isWarmup: Bool, pagesPerSecond: Double, pageLatencyP99Nanoseconds: UInt64?, allocatedBytes: Int, rssBytes: Int
    ) {
        self.scenario = scenario
        self.pagerKind = pagerKind
        self.concurrency = concurrency
        self.repetition = repetition
        self.elapsedSeconds = elapsedSeconds
        self.isWarmup = isWarmup
        self.pagesPerSecond = pagesPerSecond
        self.pageLatencyP99Nanoseconds = pageLatencyP99Nanoseconds
        self.allocatedBytes = allocatedBytes
        self.rssBytes = rssBytes
    }

    public static var blank: TimeSeriesRow { TimeSeriesRow() }

    public static let csvColumns: [CSVColumn<TimeSeriesRow>] = [
        .text("scenario", \.scenario, .context, "Scenario name."),
        .text("pager_kind", \.pagerKind, .context, "Pager that drove the drains."),
        .integer("concurrency", \.concurrency, unit: "pagers", .neutral, .context, "Concurrent pagers."),
        .integer("repetition", \.repetition, .neutral, .context, "1-based repetition."),
        .decimal("elapsed_s", \.elapsedSeconds, unit: "s", .neutral, .context, "Seconds since the run started (warm-up included), at the end of the interval."),
        CSVColumn(
            descriptor: ColumnDescriptor(
                name: "warmup", unit: "", polarity: .neutral, kind: .context, type: .integer, isOptional: false,
                summary: "1 if the interval was warm-up (excluded from results), else 0."),
            value: { .integer($0.isWarmup ? 1 : 0) },
            store: { row, value in if case .integer(let flag) = value { row.isWarmup = flag != 0 } }
        ),
        .decimal("pages_per_s", \.pagesPerSecond, unit: "pages/s", .higherIsBetter, .measured, "Pages completed in the interval ÷ its length."),
        .unsigned("page_latency_p99_ns", \.pageLatencyP99Nanoseconds, unit: "ns", .lowerIsBetter, .measured, "99th percentile page latency in the interval; empty if no page completed."),
        .integer("allocated_bytes", \.allocatedBytes, unit: "bytes", .lowerIsBetter, .measured, "jemalloc `stats.allocated` at the end of the interval."),
        .integer("rss_bytes", \.rssBytes, unit: "bytes", .lowerIsBetter, .measured, "Resident set size (`VmRSS`) at the end of the interval."),
    ]
}
