import PagebenchPage

/// One row of the results CSV: one scenario × concurrency × repetition of a `pagebench run`.
///
/// Every field maps to one column (``ResultRow/csvColumns``, documented in docs/csv-columns.md
/// with unit, polarity and kind). Fields are plain values with defaults: the harness
/// fills in what it measured; optional fields stay nil (an empty cell) when they do not apply
/// to the run, e.g. open-loop columns in a closed-loop run or cancellation latency when nothing
/// was cancelled.
///
/// Bump ``currentSchemaVersion`` whenever a column is added, removed, renamed or changes meaning.
public struct ResultRow: CSVRecord, Hashable {
    /// The schema this build writes and reads.
    public static let currentSchemaVersion = 10

    /// The columns version 3 added: real targets (issue 14), `partial` (H6), `slo_held` (H5).
    static let addedInVersion3: Set<String> = [
        "target_kind", "target_hash", "http_responses", "target_errors_transport", "target_errors_unauthorized",
        "target_errors_http_status", "target_errors_not_json", "target_errors_missing_items",
        "target_errors_bad_continuation", "target_errors_graphql", "target_errors_api",
        "target_errors_repeated_continuation", "consumed_capacity_units", "partial", "slo_held",
    ]
    /// The columns version 4 added: stages (H4), `allocation_counting` (issue 12, measurement
    /// integrity), writes during pagination (S25) and watching (P16).
    static let addedInVersion4: Set<String> = [
        "stage", "stage_start_s", "stage_pagers_from", "stage_pagers_to", "stage_rate_from", "stage_rate_to",
        "allocation_counting",
        "duplicate_items", "skipped_items", "inconsistent_drains", "watch_refreshes", "watch_latency_p50_ns",
        "watch_latency_p90_ns", "watch_latency_p99_ns", "watch_latency_p999_ns", "watch_latency_max_ns",
    ]
    /// The columns version 5 added: `late_starts` (H8), when `missed_starts` came to count only
    /// intended starts that found every slot busy (before, it counted every late pickup too),
    /// and `instructions_per_page`, counted under callgrind (`run --count-instructions`; H10,
    /// a figure another process cannot move). Version 5 also empties `harness_overhead_ratio`
    /// where it did not measure the harness (H7) and counts a stage row's rates from what
    /// completed during the stage.
    static let addedInVersion5: Set<String> = ["late_starts", "instructions_per_page"]
    /// The columns version 6 added (issue 26): a human `label` per row and the workload
    /// parameters users vary that had no column (`filter`, `read`, `continuation`), and the
    /// SLOs a row was judged on (`slos`), so a report can draw their bounds.
    static let addedInVersion6: Set<String> = ["label", "filter", "read", "continuation", "slos"]
    /// The column version 7 added (issue 36): the row's whole page latency histogram, losslessly,
    /// so that `pagebench export --format hgrm` writes its percentile distribution from the CSV.
    static let addedInVersion7: Set<String> = ["page_latency_histogram"]
    /// The columns version 8 added (issue 35): the work of drains cut off at the end of a
    /// time-bound phase, counted apart so that figures per drain count whole drains (before,
    /// `pages`, `items` and empty pages included their pages), and a real target's response
    /// bytes (before, `scanned_bytes` held the JSON bytes of its items), and the requests of a
    /// remote source's warm-up (before, only "outside the rows"), and an open-loop row's started
    /// drains per second (before, `knee` printed it and the report did not). Version 8 also leaves
    /// `limit`, `filter`, `read`, `scanned_items`, `scanned_bytes` and `scanned_bytes_per_s`
    /// empty where a real target was not sent or did not report them.
    static let addedInVersion8: Set<String> = [
        "cut_off_drains", "cut_off_pages", "response_bytes", "warmup_requests", "started_drains_per_s",
    ]
    /// The columns version 9 added (issue 35): the fast end of page latency, which the load of
    /// other processes hardly moves: what `check` gates a remote target's latency on.
    static let addedInVersion9: Set<String> = ["page_latency_min_ns", "page_latency_p10_ns"]
    /// The column version 10 added (issue 36): the row's whole drain latency histogram, so that
    /// `pagebench export --format hgrm` writes drain latency as well as page latency.
    static let addedInVersion10: Set<String> = ["drain_latency_histogram"]
    /// Version 1 had no `harness_overhead_ratio` (added in 2) and neither had the columns
    /// of versions 3 to 10; their files read with those columns empty (`partial` 0).
    public static var earlierSchemaVersions: [Int: Set<String>] {
        let since9 = addedInVersion9.union(addedInVersion10)
        let since8 = addedInVersion8.union(since9)
        let since7 = addedInVersion7.union(since8)
        let since6 = addedInVersion6.union(since7)
        let since5 = addedInVersion5.union(since6)
        return [
            1: addedInVersion3.union(addedInVersion4).union(since5).union(["harness_overhead_ratio"]),
            2: addedInVersion3.union(addedInVersion4).union(since5),
            3: addedInVersion4.union(since5),
            4: since5,
            5: since6,
            6: since7,
            7: since8,
            8: since9,
            9: addedInVersion10,
        ]
    }

    // MARK: Context: identifies the run; matched on, never compared.

    public var schemaVersion: Int = ResultRow.currentSchemaVersion
    /// When the measured phase started, UTC, ISO 8601 (`2026-11-22T02:39:43Z`).
    public var timestampUTC: String = ""
    public var pagebenchVersion: String = ""
    /// `git rev-parse HEAD` of the working tree, `-dirty` appended if it had changes, or `unknown`.
    public var gitCommit: String = "unknown"
    /// The Swift compiler that built pagebench (e.g. `6.3`).
    public var swiftVersion: String = ""
    /// `debug` or `release`: never compare one with the other.
    public var buildConfiguration: String = ""
    public var host: String = ""
    /// CPU cores available to the process.
    public var cores: Int = 0
    public var scenario: String = ""
    /// Stable hash of the scenario's full configuration (store + workload), hex.
    public var configHash: String = ""
    public var seed: UInt64 = 0
    /// Which pager drove the drains (e.g. `loop`, `streaming`, `apollo-loadAll`, `apollo-loadNext`).
    public var pagerKind: String = ""
    /// `closed`, `open-fixed` or `open-poisson`.
    public var loadModel: String = ""
    /// Open loop: intended drain starts per second. Nil in closed loop.
    public var plannedDrainsPerSecond: Double?
    /// Concurrent pagers (closed loop) or maximum drains in flight (open loop).
    public var concurrency: Int = 0
    /// 1-based repetition of this scenario × concurrency.
    public var repetition: Int = 0
    /// The `limit` of each page request; nil when none was sent (a target whose request has
    /// no `${limit}`).
    public var limit: Int?
    /// Drain count the run was bounded by, or nil when bounded by duration.
    public var plannedDrains: Int?
    /// Duration the run was bounded by, or nil when bounded by drain count.
    public var targetDurationSeconds: Double?
    /// Warm-up excluded from the figures.
    public var warmupSeconds: Double = 0

    // MARK: Throughput (measured, higher is better)

    public var pagesPerSecond: Double = 0
    public var itemsPerSecond: Double = 0
    /// Bytes evaluated per second; nil for a real target, which does not report them.
    public var scannedBytesPerSecond: Double?
    public var drainsPerSecond: Double = 0

    // MARK: Deterministic counts (docs/contract.md H1, H3)

    /// Drains that ended (fully drained, stopped after K pages, or abandoned) in the measured phase.
    public var drains: Int = 0
    public var pages: Int = 0
    /// Items returned.
    public var items: Int = 0
    /// Items evaluated (S2), returned or not; nil for a real target that does not report its
    /// own count (`scannedCount`).
    public var scannedItems: Int?
    /// Bytes evaluated, charged against the scan budget (S3); nil for a real target, which
    /// does not report them (its ``responseBytes`` say what came back).
    public var scannedBytes: Int?
    /// A real target's page responses' body bytes (issue 35); nil in-process and for `serve`.
    public var responseBytes: Int?
    /// Drains still running when the phase's time was up (a duration-bound phase, a stage that
    /// ramped pagers down): cancelled, and not in ``drains`` (nor their pages in ``pages``),
    /// so that figures per drain count whole drains only (issue 35).
    public var cutOffDrains: Int = 0
    /// Pages of the ``cutOffDrains``, not in ``pages``.
    public var cutOffPages: Int = 0
    /// Open loop: drains started per second of the phase's planned length (`target_duration_s`,
    /// else its measured length): those that ended, failed, were cancelled or cut off (issue 35:
    /// one definition of the achieved rate, beside ``drainsPerSecond``, the drains completed per
    /// second). Nil in closed loop.
    public var startedDrainsPerSecond: Double?
    /// A remote source's requests during the warm-up before this phase (issue 35: requests in
    /// no row are named); nil in-process and without a warm-up.
    public var warmupRequests: Int?
    /// Pages with zero items and a non-nil token: wasted round trips (H1).
    public var emptyPagesWasted: Int = 0
    /// Pages with zero items and a nil token: the exact-end page of S6 or an empty last page/segment.
    public var emptyPagesFinal: Int = 0
    /// `emptyPagesWasted / pages` (H1), 0 when there were no pages.
    public var emptyPageRate: Double = 0
    public var pagesPerDrainMean: Double = 0
    public var pagesPerDrainMax: Int = 0

    // MARK: Latency (measured, lower is better, nanoseconds)

    /// Per-page request latency. Nil when per-page timing was off (measurement-overhead runs).
    public var pageLatency: LatencyPercentiles?
    /// Drain latency from the drain's actual start (uncorrected).
    public var drainLatency: LatencyPercentiles?
    /// Open loop: drain latency from the drain's intended start (coordinated-omission corrected).
    public var drainLatencyCorrected: LatencyPercentiles?
    /// Open loop: intended starts that found every slot busy (H8).
    public var missedStarts: Int?
    /// Open loop: drains that had a free slot at their intended start but began more than
    /// 1 ms after it (the load generator was late, H8); not counted in ``missedStarts``.
    public var lateStarts: Int?

    // MARK: Workload parameters without a column before schema 6 (issue 26; context)

    /// What a person calls this configuration: the scenario's `label`, or the parameters that
    /// set it apart from the other configurations of its run (`limit=100 filter=category=0`),
    /// or the scenario's name when nothing does. Empty in files of schema 5 and earlier.
    public var label: String = ""
    /// The filter of every page request as `--filter` writes it (`category=0`, `match`), or
    /// `none`. Empty in files of schema 5 and earlier.
    public var filter: String = ""
    /// What each drain read as `--read` writes it (`partition:uniform`, `scan`, `segment:4`).
    /// Empty in files of schema 5 and earlier.
    public var read: String = ""
    /// The store's continuation mode (`keyset` or `offset`, S25). Empty in files of
    /// schema 5 and earlier.
    public var continuation: String = ""
    /// The SLOs `slo_held` judged, `;`-separated as written (`drain_latency_corrected_p99_ns<60ms;error_rate<1%`).
    /// Empty without SLOs and in files of schema 5 and earlier.
    public var slos: String = ""
    /// The page latency histogram of the measured phase in ``LatencyRecorder``'s lossless text
    /// form (`hdr1 digits=3 …`): every percentile of ``pageLatency`` and any other can be read
    /// back from it. Empty when per-page timing was off, nothing was recorded, and in files of
    /// schema 6 and earlier.
    public var pageLatencyHistogram: String = ""
    /// The drain latency histogram of the measured phase in the same form (``drainLatency``'s
    /// samples). Empty when no drain ended, and in files of schema 9 and earlier.
    public var drainLatencyHistogram: String = ""

    // MARK: Cancellation (H2)

    /// Drains cancelled by the cancellation probe or the final cancel-everything.
    public var cancellations: Int = 0
    /// From the cancel request to the pager's task having returned. Nil when nothing was cancelled.
    public var cancellationLatency: LatencyPercentiles?
    /// Pages fetched after a cancel was requested: wasted work.
    public var pagesAfterCancel: Int = 0

    // MARK: Retries and errors

    public var retries: Int = 0
    /// Throttling responses received (each may have been retried).
    public var throttles: Int = 0
    public var errors: ErrorCounts = ErrorCounts()

    // MARK: Target (issue 14; empty or zero for in-process rows)

    /// `serve` (`--target URL`), `http`, `graphql` or `dynamodb`; empty in-process.
    public var targetKind: String = ""
    /// SHA-256 prefix of the target file without header values; empty otherwise.
    public var targetHash: String = ""
    /// Responses by HTTP status in the measured phase (`200=1234 429=5 transport=0`); empty in-process.
    public var httpResponses: String = ""
    /// Drains ended by a response that is not a page, by kind (T2).
    public var targetErrors: TargetErrorCounts = TargetErrorCounts()
    /// DynamoDB consumed capacity units over the measured phase (W4); nil when not reported.
    public var consumedCapacityUnits: Double?
    /// 1 when SIGINT or SIGTERM ended the phase before its bound (H6), else 0.
    public var partial: Int = 0
    /// 1 when every `--slo` held on this row, 0 when one broke; nil without SLOs. Knee steps
    /// always carry it (H5).
    public var sloHeld: Int?

    // MARK: Stages (H4; empty for rows of a fixed concurrency or rate)

    /// The stage of a staged phase this row measured, 1-based; nil when the workload has no stages.
    public var stage: Int?
    /// When the stage began, seconds after the stage plan started.
    public var stageStartSeconds: Double?
    /// Pager stages: the pagers at the stage's start and end (ramped linearly between).
    public var stagePagersFrom: Int?
    public var stagePagersTo: Int?
    /// Rate stages: the arrival rate at the stage's start and end, drains per second.
    public var stageRateFrom: Double?
    public var stageRateTo: Double?

    // MARK: Writes during pagination (S25) and watching (P16); nil without them

    /// Items returned again by the drain that had already returned them (S25), summed over
    /// the drains that reached their last page. Nil for a store without writes.
    public var duplicateItems: Int?
    /// Items that existed and matched from a drain's first request to its last and that the
    /// drain never returned (S25), summed over the drains that reached their last page.
    public var skippedItems: Int?
    /// Drains with at least one duplicate or skip.
    public var inconsistentDrains: Int?
    /// Outputs a watching pager published because a write touched its pages (P16).
    public var watchRefreshes: Int?
    /// Write committed → the watching pager's new output published (P16).
    public var watchLatency: LatencyPercentiles?

    // MARK: Resources (measured, lower is better)

    public var cpuUserSeconds: Double = 0
    public var cpuSystemSeconds: Double = 0
    /// jemalloc allocation requests during the measured phase (whole process).
    public var allocations: UInt64 = 0
    /// `allocations / pages`.
    public var allocationsPerPage: Double = 0
    /// How ``allocations`` was counted: `exact` (jemalloc's thread caches off,
    /// `run --exact-allocations`), `cached` (on), or empty (unknown; files of schema 3 and
    /// earlier, which were all counted with the caches on unless `MALLOC_CONF` said otherwise).
    public var allocationCounting: String = ""
    /// Highest jemalloc `stats.allocated` sampled during the measured phase.
    public var peakAllocatedBytes: Int = 0
    /// Peak resident set size of the process (`VmHWM`) at the end of the run.
    public var peakRSSBytes: Int = 0
    /// pages/s with per-page timing off ÷ pages/s with it on; nil when not measured.
    public var measurementOverheadRatio: Double?
    /// Bare store loop pages/s (calibrated just before the phase) ÷ this row's pages/s; nil
    /// where the bare loop is not the phase's floor (H7: a target, service time, injected
    /// failures, writes, open loop, stages, shards).
    public var harnessOverheadRatio: Double?
    /// Wall-clock length of the measured phase.
    public var durationSeconds: Double = 0

    // MARK: Instructions (measured, lower is better; H10)

    /// Instructions the whole process executed per page in the phase's workload run once
    /// more under valgrind's callgrind (`run --count-instructions`), on the first
    /// repetition's row; nil otherwise.
    public var instructionsPerPage: Double?

    // MARK: The fast end of page latency (measured, lower is better; issue 35)

    /// The fastest page of the phase: the service time plus the bare round trip, the pages
    /// that found a CPU at once. Another process's load adds to the slow end of the
    /// distribution, hardly to this (docs/gate.md). Nil when per-page timing was off.
    public var pageLatencyMinNanoseconds: UInt64?
    /// The 10th percentile of page latency. Nil when per-page timing was off.
    public var pageLatencyP10Nanoseconds: UInt64?

    public init() {}

    public static var blank: ResultRow { ResultRow() }

    /// The identity the checker matches rows by: scenario, configuration, pager, concurrency,
    /// and the stage of a staged run (its stages are different measurements, not repetitions).
    public var identity: ResultIdentity {
        ResultIdentity(
            scenario: scenario,
            configHash: configHash,
            pagerKind: pagerKind,
            concurrency: concurrency,
            stage: stage
        )
    }

    /// How a remote target failed a phase, or nil: it "answered no page" (drains failed and not
    /// one page came), "stopped answering" (drains failed and requests got no response at
    /// all: refused, reset, timed out), or "ended no drain" (drains failed and none ended,
    /// whatever pages came first: T6). Such a phase is a failure, never a result (issue 12);
    /// the first of these that applies names it.
    public static func targetFailure(pages: Int, drains: Int, failedDrains: Int, unansweredRequests: Int) -> String? {
        guard failedDrains > 0 else { return nil }
        if pages == 0 { return "answered no page" }
        if unansweredRequests > 0 { return "stopped answering" }
        return drains == 0 ? "ended no drain" : nil
    }

    /// Requests of the phase that got no response (`http_responses`' `transport`).
    public var unansweredRequests: Int { RemoteCounts.responses(fromText: httpResponses)?["transport"] ?? 0 }

    /// Why this row must not join a history of results, or nil: cut short by a signal (H6), or
    /// a remote target that failed the phase (``targetFailure(pages:drains:failedDrains:unansweredRequests:)``).
    public var notAResult: String? {
        if partial == 1 { return "cut short by a signal" }
        guard !targetKind.isEmpty else { return nil }
        return Self.targetFailure(
            pages: pages + cutOffPages,
            drains: drains,
            failedDrains: errors.total,
            unansweredRequests: unansweredRequests
        )
    }

    /// Whether the row paged a real API through a target file (not in-process, not `serve`).
    public var pagedRealTarget: Bool { !targetKind.isEmpty && targetKind != "serve" }

    /// A real target's row says what the API reported (issue 35): its bytes are the responses'
    /// (``responseBytes``), not bytes evaluated, and scanned items only where the target
    /// names the API's own count. Call after ``apply(_:measuredSeconds:)``.
    public mutating func applyRealTarget(reportsScannedCount: Bool) {
        if let bytes = scannedBytes { responseBytes = bytes }
        scannedBytes = nil
        scannedBytesPerSecond = nil
        if !reportsScannedCount { scannedItems = nil }
    }

    /// Fills the target columns from what the target answered in the phase.
    public mutating func apply(_ remote: RemoteCounts) {
        httpResponses = remote.responsesText
        targetErrors = TargetErrorCounts(remote.targetErrors)
        consumedCapacityUnits = remote.consumedCapacityUnits
    }

    /// Fills the context columns from a ``RunContext``.
    public mutating func apply(_ context: RunContext) {
        timestampUTC = context.timestampUTC
        pagebenchVersion = context.pagebenchVersion
        gitCommit = context.gitCommit
        swiftVersion = context.swiftVersion
        buildConfiguration = context.buildConfiguration
        host = context.host
        cores = context.cores
        allocationCounting = context.allocationCounting
    }
}

/// Which rows of two results files describe the same experiment.
public struct ResultIdentity: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var scenario: String
    public var configHash: String
    public var pagerKind: String
    public var concurrency: Int
    /// The stage (1-based) of a staged run (H4); nil otherwise.
    public var stage: Int?

    public init(scenario: String, configHash: String, pagerKind: String, concurrency: Int, stage: Int? = nil) {
        self.scenario = scenario
        self.configHash = configHash
        self.pagerKind = pagerKind
        self.concurrency = concurrency
        self.stage = stage
    }

    public static func < (lhs: ResultIdentity, rhs: ResultIdentity) -> Bool {
        (lhs.scenario, lhs.configHash, lhs.pagerKind, lhs.concurrency, lhs.stage ?? 0)
            < (rhs.scenario, rhs.configHash, rhs.pagerKind, rhs.concurrency, rhs.stage ?? 0)
    }

    public var description: String {
        "\(scenario) [\(configHash)] \(pagerKind) ×\(concurrency)" + (stage.map { " stage \($0)" } ?? "")
    }
}

/// Failed drains by the page contract's kind of the failure that ended each
/// (``PagebenchPage/PageError/Kind``, the one classification of why a page failed, issue 39),
/// plus those whose error has no kind (not a page failure). Lower is better.
///
/// The CSV's six error columns group the kinds (docs/contract.md, "Where a broken rule shows
/// up"): `errors_throttled` (``PagebenchPage/PageError/Kind/throttled``), `errors_fault`
/// (``PagebenchPage/PageError/Kind/transient``), `errors_invalid_token`,
/// `errors_token_mismatch`, `errors_validation` (``validationKinds``) and `errors_other`
/// (``otherKinds`` and the unclassified). A row read back from a CSV has only the columns: a
/// group's count is kept on its first kind (`errors_other` as unclassified).
public struct ErrorCounts: Sendable, Hashable {
    /// The counts by kind, indexed by the kind's position in `PageError.Kind.allCases`; empty
    /// (no allocation: a pager's metrics hold one) until a failure is counted.
    private var counts: [Int] = []
    /// Failures whose error is no page failure (no ``PagebenchPage/PageError/Kind``).
    public var unclassified: Int = 0

    public init() {}

    /// The kinds `errors_validation` counts: requests the source refuses as written.
    public static let validationKinds: [PageError.Kind] = [
        .invalidLimit, .invalidSegment, .unknownPartition, .invalidRequest,
    ]
    /// The kinds `errors_other` counts (with the unclassified): no answer, a refusal, an
    /// answer that is not a page.
    public static let otherKinds: [PageError.Kind] = [.transport, .refused, .malformedAnswer]

    private static let indices: [PageError.Kind: Int] = Dictionary(
        uniqueKeysWithValues: PageError.Kind.allCases.enumerated().map { ($1, $0) }
    )

    /// The failures of `kind`.
    public subscript(kind: PageError.Kind) -> Int {
        get { counts.isEmpty ? 0 : counts[Self.indices[kind]!] }
        set {
            if counts.isEmpty {
                guard newValue != 0 else { return }
                counts = [Int](repeating: 0, count: PageError.Kind.allCases.count)
            }
            counts[Self.indices[kind]!] = newValue
        }
    }

    /// Every failed drain.
    public var total: Int { counts.reduce(unclassified, +) }

    public static func == (lhs: ErrorCounts, rhs: ErrorCounts) -> Bool {
        lhs.unclassified == rhs.unclassified && PageError.Kind.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }

    public func hash(into hasher: inout Hasher) {
        for kind in PageError.Kind.allCases { hasher.combine(self[kind]) }
        hasher.combine(unclassified)
    }

    /// Counts one failure of `kind`; nil: an error that is no page failure.
    public mutating func record(_ kind: PageError.Kind?) {
        if let kind { self[kind] += 1 } else { unclassified += 1 }
    }

    /// Adds another task's counts.
    public mutating func add(_ other: ErrorCounts) {
        for kind in PageError.Kind.allCases where other[kind] != 0 { self[kind] += other[kind] }
        unclassified += other.unclassified
    }

    // The CSV columns (ResultRow+Columns.swift).

    /// `errors_throttled`: throttled past the retry policy (S21).
    public var throttled: Int {
        get { self[.throttled] }
        set { self[.throttled] = newValue }
    }
    /// `errors_fault`: a transient fault past the retry policy (S21).
    public var fault: Int {
        get { self[.transient] }
        set { self[.transient] = newValue }
    }
    /// `errors_invalid_token` (S17).
    public var invalidToken: Int {
        get { self[.invalidToken] }
        set { self[.invalidToken] = newValue }
    }
    /// `errors_token_mismatch` (S18).
    public var tokenMismatch: Int {
        get { self[.tokenMismatch] }
        set { self[.tokenMismatch] = newValue }
    }
    /// `errors_validation`: the ``validationKinds`` (S1, S14, S15).
    public var validation: Int {
        get { Self.validationKinds.reduce(0) { $0 + self[$1] } }
        set { setGroup(Self.validationKinds, newValue, unclassified: false) }
    }
    /// `errors_other`: the ``otherKinds`` and the unclassified.
    public var other: Int {
        get { Self.otherKinds.reduce(unclassified) { $0 + self[$1] } }
        set { setGroup(Self.otherKinds, newValue, unclassified: true) }
    }

    private mutating func setGroup(_ kinds: [PageError.Kind], _ value: Int, unclassified toUnclassified: Bool) {
        for kind in kinds { self[kind] = 0 }
        if toUnclassified { unclassified = value } else { self[kinds[0]] = value }
    }
}

extension ErrorCounts: Codable {
    /// One key per kind (its name) and `unclassified`, every one present (shard files).
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
        static let unclassified = Key(stringValue: "unclassified")
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for kind in PageError.Kind.allCases {
            self[kind] = try container.decode(Int.self, forKey: Key(stringValue: kind.rawValue))
        }
        unclassified = try container.decode(Int.self, forKey: .unclassified)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for kind in PageError.Kind.allCases {
            try container.encode(self[kind], forKey: Key(stringValue: kind.rawValue))
        }
        try container.encode(unclassified, forKey: .unclassified)
    }
}
