/// One second of a run, for `--timeseries FILE`: throughput, tail latency and memory over time.
///
/// Rows of several runs can share a file; scenario, concurrency and repetition tell them apart.
/// A staged run (H4) marks every row with its stage, the pagers admitted and the plan's
/// target; its intervals end at every stage boundary as well as every second, so no row
/// straddles two stages.
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
    /// Drains ended in this interval ÷ its length. Higher is better.
    public var drainsPerSecond: Double = 0
    /// Median page latency of this interval; nil when no page completed or timing was off.
    public var pageLatencyP50Nanoseconds: UInt64?
    /// A staged run's stage (1-based) this interval belongs to; nil without stages.
    public var stage: Int?
    /// A staged run: pagers admitted at the end of the interval (this process's; open loop:
    /// its drain slots).
    public var activePagers: Int?
    /// Pager stages: the plan's pagers at the end of the interval (the whole run's).
    public var plannedPagers: Double?
    /// Rate stages: the plan's arrival rate at the end of the interval (the whole run's).
    public var plannedDrainsPerSecond: Double?

    /// The columns a file written before stages lacks; it reads with them empty.
    public static var earlierSchemaVersions: [Int: Set<String>] {
        [1: ["drains_per_s", "page_latency_p50_ns", "stage", "active_pagers", "target_pagers", "target_drains_per_s"]]
    }

    public init() {}

    public init(
        scenario: String,
        pagerKind: String,
        concurrency: Int,
        repetition: Int,
        elapsedSeconds: Double,
        isWarmup: Bool,
        pagesPerSecond: Double,
        pageLatencyP99Nanoseconds: UInt64?,
        allocatedBytes: Int,
        rssBytes: Int
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
        .decimal(
            "elapsed_s",
            \.elapsedSeconds,
            unit: "s",
            .neutral,
            .context,
            "Seconds since the run started (warm-up included), at the end of the interval."
        ),
        CSVColumn(
            descriptor: ColumnDescriptor(
                name: "warmup",
                unit: "",
                polarity: .neutral,
                kind: .context,
                type: .integer,
                isOptional: false,
                summary: "1 if the interval was warm-up (excluded from results), else 0."
            ),
            value: { .integer($0.isWarmup ? 1 : 0) },
            store: { row, value in if case .integer(let flag) = value { row.isWarmup = flag != 0 } }
        ),
        .decimal(
            "pages_per_s",
            \.pagesPerSecond,
            unit: "pages/s",
            .higherIsBetter,
            .measured,
            "Pages completed in the interval ÷ its length (H7: a page of 50 µs or more is counted as it completes, faster pages every 64 and at each drain's end)."
        ),
        .unsigned(
            "page_latency_p99_ns",
            \.pageLatencyP99Nanoseconds,
            unit: "ns",
            .lowerIsBetter,
            .measured,
            "99th percentile latency of the pages completed in the interval (a pager hands its latencies over at least every millisecond of pages); empty if no page completed."
        ),
        .integer(
            "allocated_bytes",
            \.allocatedBytes,
            unit: "bytes",
            .lowerIsBetter,
            .measured,
            "jemalloc `stats.allocated` at the end of the interval."
        ),
        .integer(
            "rss_bytes",
            \.rssBytes,
            unit: "bytes",
            .lowerIsBetter,
            .measured,
            "Resident set size (`VmRSS`) at the end of the interval."
        ),
        .decimal(
            "drains_per_s",
            \.drainsPerSecond,
            unit: "drains/s",
            .higherIsBetter,
            .measured,
            "Drains that ended in the interval as `drains` counts them (drained, stopped or abandoned; not failed or cancelled) ÷ its length."
        ),
        .unsigned(
            "page_latency_p50_ns",
            \.pageLatencyP50Nanoseconds,
            unit: "ns",
            .lowerIsBetter,
            .measured,
            "Median page latency in the interval; empty if no page completed."
        ),
        .integer(
            "stage",
            \.stage,
            .neutral,
            .context,
            "Staged runs (H4): the stage (1-based) the interval belongs to; empty without stages."
        ),
        .integer(
            "active_pagers",
            \.activePagers,
            unit: "pagers",
            .neutral,
            .measured,
            "Staged runs: pagers admitted at the end of the interval (open loop: drain slots); empty without stages."
        ),
        .decimal(
            "target_pagers",
            \.plannedPagers,
            unit: "pagers",
            .neutral,
            .context,
            "Pager stages: the plan's pagers at the end of the interval, before rounding; empty otherwise."
        ),
        .decimal(
            "target_drains_per_s",
            \.plannedDrainsPerSecond,
            unit: "drains/s",
            .neutral,
            .context,
            "Rate stages: the plan's arrival rate at the end of the interval; empty otherwise."
        ),
    ]
}
