import PagebenchHarness
import PagebenchMetrics
import PagebenchPage
import Synchronization

/// The live metrics of one run (`--metrics-listen`, `--remote-write`): counters, histograms
/// and gauges per phase, kept up to date as a ``PhaseObserver`` of the sweep and read as
/// ``MetricFamily`` values by the scrape server and the remote writer (docs/live-metrics.md).
///
/// It listens where the harness already aggregates, never on a pager's per-page path: the
/// progress ticker's snapshots (what the pagers' ended drains counted, published as each
/// drain ends, and the page latencies folded into the phase's shared histograms, H7), and
/// each phase's result. While a phase runs its counters follow the published counts, which
/// only grow and never pass the row's; when it ends they are set to its result, so a phase's
/// final counter values are exactly its CSV row's and its histograms hold every latency of
/// the row's. A staged run's counters and histograms per stage are set as its stages'
/// results arrive (its gauges are live, and its page latency with `--timeseries`).
///
/// Series are labelled `configuration` (the row's `label`), `pager`, `target` (`in-process`,
/// `serve`, or a target file's name) and `phase` (`c8-r1`, `c8-r1-s2` for a stage): never a
/// URL, a token or an item key.
package final class LiveMetrics: PhaseObserver {
    /// What a phase's series are told apart by.
    struct PhaseKey: Hashable, Comparable {
        var configuration: String
        var pager: String
        var phase: String

        static func < (lhs: PhaseKey, rhs: PhaseKey) -> Bool {
            (lhs.configuration, lhs.pager, lhs.phase) < (rhs.configuration, rhs.pager, rhs.phase)
        }
    }

    /// The values of one phase's series.
    struct Series {
        var counters = [Int](repeating: 0, count: LiveCounter.allCases.count)
        var errors = [Int](repeating: 0, count: ErrorCounts.liveKindLabels.count)
        var histograms = [BucketedLatencies](repeating: BucketedLatencies(), count: LiveHistogram.allCases.count)
        var itemsPerPage = ItemsPerPageHistogram()
        var pagersInFlight: Double = 0
        var offeredDrainsPerSecond: Double?
        var achievedPagesPerSecond: Double = 0
        var achievedDrainsPerSecond: Double = 0
    }

    /// What the process is doing (`pagebench_phase_state`).
    package enum PhaseState: String, CaseIterable, Sendable {
        case idle, warmup, measured, overhead, between, done
    }

    struct State {
        var series: [PhaseKey: Series] = [:]
        var current: PhaseKey?
        var currentIsStaged = false
        var phaseState = PhaseState.idle
        var phaseOrdinal = 0
        var phasesPlanned = 0
        var lastDrains: (count: Int, at: Double)?
        var phasesEnded = 0
        var phasePrefix = ""
    }

    /// A scenario of the run, for `pagebench_run_info`.
    package struct Configuration: Sendable {
        package var label: String
        package var configHash: String
        package var pager: String
        package var loadModel: String

        package init(label: String, configHash: String, pager: String, loadModel: String) {
            self.label = label
            self.configHash = configHash
            self.pager = pager
            self.loadModel = loadModel
        }
    }

    package let version: String
    /// The `target` label of every series.
    package let target: String
    package let configurations: [Configuration]
    private let context: RunContext
    private let state = Mutex(State())
    /// Told when a phase ends (the remote writer pushes then).
    private let phaseEndedHook: Mutex<(@Sendable () -> Void)?> = Mutex(nil)

    /// - Parameters:
    ///   - target: the `target` label (`in-process`, `serve`, a target file's name).
    ///   - context: what the rows are made with (``PhaseResult/row(context:)``).
    package init(version: String, target: String, configurations: [Configuration], context: RunContext) {
        self.version = version
        self.target = target
        self.configurations = configurations
        self.context = context
    }

    /// Calls `hook` after each phase's final values are set.
    package func onPhaseEnded(_ hook: @escaping @Sendable () -> Void) {
        phaseEndedHook.withLock { $0 = hook }
    }

    /// Put before every later phase's `phase` label (`knee`: `step3-`), so that phases of
    /// several runs in one process keep series of their own.
    package var phasePrefix: String {
        get { state.withLock { $0.phasePrefix } }
        set { state.withLock { $0.phasePrefix = newValue } }
    }

    /// Whether any phase has ended (a linger is worth it).
    package var phasesEnded: Int { state.withLock { $0.phasesEnded } }

    /// The run is over: the state gauge says `done`.
    package func finish() {
        state.withLock { state in
            state.phaseState = .done
            state.current = nil
            for key in state.series.keys { state.series[key]!.pagersInFlight = 0 }
        }
    }

    // MARK: PhaseObserver

    package func phaseStarted(_ phase: PhaseDescription) {
        state.withLock { state in
            state.phaseOrdinal = phase.ordinal
            state.phasesPlanned = phase.total
            guard !phase.isOverheadPhase else {
                state.phaseState = .overhead
                state.current = nil
                return
            }
            let key = Self.key(phase, stage: nil, prefix: state.phasePrefix)
            state.current = key
            state.currentIsStaged = phase.isStaged
            state.lastDrains = nil
            state.phaseState = phase.warmupSeconds > 0 ? .warmup : .measured
            if !phase.isStaged {
                var series = state.series[key] ?? Series()
                series.pagersInFlight = Double(phase.pagers)
                series.offeredDrainsPerSecond = phase.offeredDrainsPerSecond
                state.series[key] = series
            }
        }
    }

    package func progress(_ snapshot: ProgressSnapshot) {
        state.withLock { state in
            guard let key = state.current else { return }
            if snapshot.isWarmup {
                state.phaseState = .warmup
                return
            }
            state.phaseState = .measured
            guard !state.currentIsStaged, var series = state.series[key] else { return }
            // The published counts only grow within a phase (max keeps them so should a
            // snapshot be read out of order); the result sets the exact values.
            for counter in LiveCounter.allCases {
                guard let value = counter.value(snapshot.counts, drains: snapshot.drains) else { continue }
                series.counters[counter.index] = max(series.counters[counter.index], value)
            }
            for (index, count) in snapshot.counts.errors.liveCounts.enumerated() {
                series.errors[index] = max(series.errors[index], count)
            }
            if snapshot.counts.pageCounts.itemsPerPage.pages >= series.itemsPerPage.pages {
                series.itemsPerPage = snapshot.counts.pageCounts.itemsPerPage
            }
            if let latencies = snapshot.pageLatency {
                let buckets = BucketedLatencies(latencies)
                let page = LiveHistogram.pageLatency.index
                if buckets.count >= series.histograms[page].count { series.histograms[page] = buckets }
            }
            series.achievedPagesPerSecond = snapshot.pagesPerSecond
            if let last = state.lastDrains, snapshot.phaseElapsedSeconds > last.at {
                series.achievedDrainsPerSecond =
                    Double(snapshot.drains - last.count) / (snapshot.phaseElapsedSeconds - last.at)
            }
            state.lastDrains = (snapshot.drains, snapshot.phaseElapsedSeconds)
            state.series[key] = series
        }
    }

    /// The progress snapshots of an unstaged phase carry its page latencies so far.
    package var wantsPageLatency: Bool { true }

    package func intervalEnded(_ row: TimeSeriesRow, pageLatencies: LatencyRecorder) {
        guard !row.isWarmup else { return }
        state.withLock { state in
            guard var key = state.current else { return }
            if state.currentIsStaged, let stage = row.stage { key.phase += "-s\(stage)" }
            var series = state.series[key] ?? Series()
            if state.currentIsStaged {
                // A staged phase's page latencies come with its time series' batches only.
                let buckets = BucketedLatencies(pageLatencies)
                let page = LiveHistogram.pageLatency.index
                series.histograms[page].counts = zip(series.histograms[page].counts, buckets.counts).map { $0 + $1 }
                series.histograms[page].count += buckets.count
                series.histograms[page].sumSeconds += buckets.sumSeconds
            }
            series.achievedPagesPerSecond = row.pagesPerSecond
            series.achievedDrainsPerSecond = row.drainsPerSecond
            if state.currentIsStaged {
                series.pagersInFlight = Double(row.activePagers ?? 0)
                series.offeredDrainsPerSecond = row.plannedDrainsPerSecond
            }
            state.series[key] = series
        }
    }

    package func phaseEnded(_ phase: PhaseDescription, result: PhaseResult) {
        guard !phase.isOverheadPhase, result.measured else { return }
        // The row the CSV gets (less what RunSession adds after: SLO marks, target tags).
        let row = result.row(context: context)
        var series = Series()
        for counter in LiveCounter.allCases { series.counters[counter.index] = counter.value(row) }
        series.errors = row.errors.liveCounts
        series.itemsPerPage = result.metrics.itemsPerPage
        for histogram in LiveHistogram.allCases {
            if let recorder = histogram.recorder(result.metrics) {
                series.histograms[histogram.index] = BucketedLatencies(recorder)
            }
        }
        state.withLock { state in
            let key = Self.key(phase, stage: row.stage, prefix: state.phasePrefix)
            let live = state.series[key]
            series.offeredDrainsPerSecond = live?.offeredDrainsPerSecond ?? row.plannedDrainsPerSecond
            series.achievedPagesPerSecond = row.pagesPerSecond
            series.achievedDrainsPerSecond = row.drainsPerSecond
            series.pagersInFlight = 0
            state.series[key] = series
            state.phasesEnded += 1
            // A staged run ends once per stage: the last stage's result ends the phase.
            if !phase.isStaged || row.stage == nil || result.partial || state.current == nil {
                state.phaseState = .between
            }
        }
        phaseEndedHook.withLock { $0 }?()
    }

    static func key(_ phase: PhaseDescription, stage: Int?, prefix: String) -> PhaseKey {
        var name = prefix + "c\(phase.concurrency)-r\(phase.repetition)"
        if let stage { name += "-s\(stage)" }
        return PhaseKey(configuration: phase.scenario, pager: phase.pager, phase: name)
    }

    // MARK: Reading

    /// Every metric now, in a fixed order (families by name, series by label).
    package func families() -> [MetricFamily] {
        let (series, state) = self.state.withLock { ($0.series, $0) }
        let keys = series.keys.sorted()
        func labels(_ key: PhaseKey) -> [(name: String, value: String)] {
            [("configuration", key.configuration), ("pager", key.pager), ("phase", key.phase), ("target", target)]
        }
        var families: [MetricFamily] = []
        families.append(
            MetricFamily(
                name: "pagebench_run",
                kind: .info,
                help:
                    "The run: pagebench's version and each configuration (scenario label, configuration hash, pager, load model).",
                samples: configurations.map { configuration in
                    MetricFamily.Sample(
                        suffix: "_info",
                        labels: [
                            ("config_hash", configuration.configHash), ("configuration", configuration.label),
                            ("load_model", configuration.loadModel), ("pager", configuration.pager), ("target", target),
                            ("version", version),
                        ],
                        value: 1
                    )
                }
            )
        )
        for counter in LiveCounter.allCases {
            families.append(
                MetricFamily(
                    name: counter.name,
                    kind: .counter,
                    help: counter.help,
                    samples: keys.map {
                        MetricFamily.Sample(
                            suffix: "_total",
                            labels: labels($0),
                            value: Double(series[$0]!.counters[counter.index])
                        )
                    }
                )
            )
        }
        families.append(
            MetricFamily(
                name: "pagebench_errors",
                kind: .counter,
                help:
                    "Failed drains by the page contract's kind of the failure (PageError.Kind; the CSV's error columns group them).",
                samples: keys.flatMap { key in
                    ErrorCounts.liveKindLabels.enumerated().map { index, kind in
                        MetricFamily.Sample(
                            suffix: "_total",
                            labels: labels(key) + [("kind", kind)],
                            value: Double(series[key]!.errors[index])
                        )
                    }
                }
            )
        )
        for histogram in LiveHistogram.allCases {
            var samples: [MetricFamily.Sample] = []
            for key in keys {
                let values = series[key]!.histograms[histogram.index]
                if histogram != .pageLatency, values.count == 0 { continue }
                for (index, cumulative) in values.cumulative.enumerated() {
                    let bound =
                        index < LatencyBuckets.upperBoundLabels.count ? LatencyBuckets.upperBoundLabels[index] : "+Inf"
                    samples.append(
                        .init(suffix: "_bucket", labels: labels(key) + [("le", bound)], value: Double(cumulative))
                    )
                }
                samples.append(.init(suffix: "_sum", labels: labels(key), value: values.sumSeconds))
                samples.append(.init(suffix: "_count", labels: labels(key), value: Double(values.count)))
            }
            families.append(
                MetricFamily(
                    name: histogram.name,
                    kind: .histogram,
                    help: histogram.help,
                    unit: "seconds",
                    samples: samples
                )
            )
        }
        var itemSamples: [MetricFamily.Sample] = []
        for key in keys {
            let values = series[key]!
            for (index, cumulative) in values.itemsPerPage.cumulative.enumerated() {
                let bound =
                    index < ItemsPerPageHistogram.upperBounds.count
                    ? String(ItemsPerPageHistogram.upperBounds[index]) : "+Inf"
                itemSamples.append(
                    .init(suffix: "_bucket", labels: labels(key) + [("le", bound)], value: Double(cumulative))
                )
            }
            itemSamples.append(
                .init(suffix: "_sum", labels: labels(key), value: Double(values.counters[LiveCounter.items.index]))
            )
            itemSamples.append(.init(suffix: "_count", labels: labels(key), value: Double(values.itemsPerPage.pages)))
        }
        families.append(
            MetricFamily(
                name: "pagebench_items_per_page",
                kind: .histogram,
                help: "Items each page returned (count: the pages counter; sum: the items counter).",
                samples: itemSamples
            )
        )
        let gauges: [(String, String, (Series) -> Double?)] = [
            (
                "pagebench_pagers_in_flight", "Pagers of this process paging now (a staged run: admitted).",
                { $0.pagersInFlight }
            ),
            (
                "pagebench_offered_drains_per_second",
                "Open loop: the planned arrival rate of drains (this process's share of a fixed rate; a staged plan's rate now).",
                { $0.offeredDrainsPerSecond }
            ),
            (
                "pagebench_achieved_drains_per_second",
                "Drains ended as the drains counter counts them, per second over the last interval (at a phase's end: its row's drains_per_s).",
                { $0.achievedDrainsPerSecond }
            ),
            (
                "pagebench_achieved_pages_per_second",
                "Pages per second over the last interval (at a phase's end: its row's pages_per_s).",
                { $0.achievedPagesPerSecond }
            ),
        ]
        for (name, help, value) in gauges {
            families.append(
                MetricFamily(
                    name: name,
                    kind: .gauge,
                    help: help,
                    samples: keys.compactMap { key in value(series[key]!).map { .init(labels: labels(key), value: $0) }
                    }
                )
            )
        }
        families.append(
            MetricFamily(
                name: "pagebench_phase_state",
                kind: .gauge,
                help:
                    "1 for what the process is doing now (idle, warmup, measured, overhead, between phases, done), 0 for the rest.",
                samples: PhaseState.allCases.map {
                    .init(labels: [("state", $0.rawValue)], value: $0 == state.phaseState ? 1 : 0)
                }
            )
        )
        families.append(
            MetricFamily(
                name: "pagebench_phase_ordinal",
                kind: .gauge,
                help: "The 1-based position of the phase running (or last run) in the sweep.",
                samples: [.init(labels: [], value: Double(state.phaseOrdinal))]
            )
        )
        families.append(
            MetricFamily(
                name: "pagebench_phases_planned",
                kind: .gauge,
                help: "Phases the sweep runs in all (timing-off reruns included).",
                samples: [.init(labels: [], value: Double(state.phasesPlanned))]
            )
        )
        return families.sorted { $0.name < $1.name }
    }
}

/// The counters of live metrics, each equal to its CSV column at a phase's end.
enum LiveCounter: String, CaseIterable {
    case pages, items
    case emptyPagesWasted = "empty_pages_wasted"
    case emptyPagesFinal = "empty_pages_final"
    case drains, retries,
        throttles, cancellations
    case pagesAfterCancel = "pages_after_cancel"
    case cutOffDrains = "cut_off_drains"
    case
        cutOffPages = "cut_off_pages"

    var index: Int { Self.allCases.firstIndex(of: self)! }
    var name: String { "pagebench_" + rawValue }

    var help: String {
        switch self {
        case .pages: "Pages completed (CSV: pages)."
        case .items: "Items those pages returned (CSV: items)."
        case .emptyPagesWasted: "Empty pages with a continuation: a round trip for nothing (CSV: empty_pages_wasted)."
        case .emptyPagesFinal: "Empty last pages of drains (CSV: empty_pages_final)."
        case .drains: "Drains ended drained, stopped or abandoned (CSV: drains)."
        case .retries: "Page requests retried after a retryable failure (CSV: retries)."
        case .throttles: "Throttled page answers (CSV: throttles)."
        case .cancellations: "Drains cancelled (CSV: cancellations)."
        case .pagesAfterCancel: "Pages completed after their drain was cancelled (CSV: pages_after_cancel)."
        case .cutOffDrains: "Drains cut off when a time-bound phase was up (CSV: cut_off_drains; at the phase's end)."
        case .cutOffPages: "Pages of the drains cut off (CSV: cut_off_pages; at the phase's end)."
        }
    }

    func value(_ row: ResultRow) -> Int {
        switch self {
        case .pages: row.pages
        case .items: row.items
        case .emptyPagesWasted: row.emptyPagesWasted
        case .emptyPagesFinal: row.emptyPagesFinal
        case .drains: row.drains
        case .retries: row.retries
        case .throttles: row.throttles
        case .cancellations: row.cancellations
        case .pagesAfterCancel: row.pagesAfterCancel
        case .cutOffDrains: row.cutOffDrains
        case .cutOffPages: row.cutOffPages
        }
    }

    /// Its value while a phase runs: what the ended drains counted (``LiveCounts``) and the
    /// drains that ended; nil for a count known only when the phase ends (cut-off drains).
    func value(_ counts: LiveCounts, drains: Int) -> Int? {
        switch self {
        case .pages: counts.pageCounts.pages
        case .items: counts.pageCounts.items
        case .emptyPagesWasted: counts.pageCounts.emptyPagesWasted
        case .emptyPagesFinal: counts.pageCounts.emptyPagesFinal
        case .drains: drains
        case .retries: counts.retries
        case .throttles: counts.throttles
        case .cancellations: counts.cancellations
        case .pagesAfterCancel: counts.pagesAfterCancel
        case .cutOffDrains, .cutOffPages: nil
        }
    }
}

/// The histograms of live metrics, in seconds with ``LatencyBuckets``' bounds.
enum LiveHistogram: String, CaseIterable {
    case pageLatency = "page_latency"
    case drainLatency = "drain_latency"
    case drainLatencyCorrected = "drain_latency_corrected"
    case
        cancellationLatency = "cancellation_latency"

    var index: Int { Self.allCases.firstIndex(of: self)! }
    var name: String { "pagebench_\(rawValue)_seconds" }

    var help: String {
        switch self {
        case .pageLatency:
            "Page latency (live: the latencies pagers folded into the phase's histograms; at a phase's end: the row's)."
        case .drainLatency: "Drain latency, first request to last page (at a phase's end)."
        case .drainLatencyCorrected:
            "Open loop: drain latency from the drain's planned start (coordinated omission corrected; at a phase's end)."
        case .cancellationLatency: "From a cancel request to the drain's end (at a phase's end)."
        }
    }

    func recorder(_ metrics: TaskMetrics) -> LatencyRecorder? {
        switch self {
        case .pageLatency: metrics.pageLatency
        case .drainLatency: metrics.drainLatency
        case .drainLatencyCorrected: metrics.drainLatencyCorrected
        case .cancellationLatency: metrics.cancellationLatency
        }
    }
}

extension ErrorCounts {
    /// The `kind` labels of `pagebench_errors_total`: every ``PagebenchPage/PageError/Kind``
    /// by its name, then `unclassified` (a failure whose error is no page failure).
    static let liveKindLabels: [String] = PageError.Kind.allCases.map(\.rawValue) + ["unclassified"]

    /// The counts in the order of ``liveKindLabels``.
    var liveCounts: [Int] { PageError.Kind.allCases.map { self[$0] } + [unclassified] }
}
