import PagebenchHarness
import PagebenchLiveMetrics
import PagebenchMetrics
import PagebenchPage
import PagebenchStore
import PagebenchTestSupport
import Synchronization
import Testing

/// Live metrics (issue 36, docs/live-metrics.md): what a sweep's observer makes of its phases.
@Suite struct LiveMetricsTests {
    static let context = RunContext(
        timestampUTC: "2026-12-07T00:00:00Z",
        pagebenchVersion: "test",
        gitCommit: "abc",
        swiftVersion: "6.3",
        buildConfiguration: "debug",
        host: "test-host",
        cores: 2
    )

    /// A sweep of two concurrencies on a store that throttles and fails some pages, observed.
    static func observedSweep() async throws -> (LiveMetrics, SweepRunner.Output) {
        let store = StoreConfiguration(partitions: 20, throttleRate: 0.05, faultRate: 0.02)
        let scenario = scenario(store: store) { workload in
            workload.concurrency = [1, 3]
            workload.bound = .drains(40)
        }
        try scenario.validate()
        let metrics = LiveMetrics(
            version: "test",
            target: "in-process",
            configurations: [.init(label: "test", configHash: "h", pager: "loop", loadModel: "closed")],
            context: context
        )
        var options = SweepRunner.Options(context: context)
        options.observer = metrics
        options.progressInterval = .milliseconds(10)
        options.timeSeries = true
        let output = try await SweepRunner(scenarios: [scenario], options: options).run()
        return (metrics, output)
    }

    static func value(
        _ families: [MetricFamily],
        _ name: String,
        _ suffix: String,
        phase: String,
        extra: (String, String)? = nil
    ) -> Double? {
        families.first { $0.name == name }?.samples.first { sample in
            sample.suffix == suffix && sample.labels.contains { $0 == ("phase", phase) }
                && (extra.map { wanted in sample.labels.contains { $0 == wanted } } ?? true)
        }?.value
    }

    /// Every counter's value at the end equals its CSV column in the phase's row, exactly;
    /// the page-latency histogram holds as many samples as the row has pages timed.
    @Test func h11FinalCountersEqualTheRows() async throws {
        let (metrics, output) = try await Self.observedSweep()
        let families = metrics.families()
        #expect(output.rows.count == 2)
        for row in output.rows {
            let phase = "c\(row.concurrency)-r\(row.repetition)"
            #expect(Self.value(families, "pagebench_pages", "_total", phase: phase) == Double(row.pages))
            #expect(Self.value(families, "pagebench_items", "_total", phase: phase) == Double(row.items))
            #expect(Self.value(families, "pagebench_drains", "_total", phase: phase) == Double(row.drains))
            #expect(Self.value(families, "pagebench_retries", "_total", phase: phase) == Double(row.retries))
            #expect(Self.value(families, "pagebench_throttles", "_total", phase: phase) == Double(row.throttles))
            #expect(
                Self.value(families, "pagebench_empty_pages_wasted", "_total", phase: phase)
                    == Double(row.emptyPagesWasted)
            )
            #expect(
                Self.value(families, "pagebench_errors", "_total", phase: phase, extra: ("kind", "transient"))
                    == Double(row.errors.fault)
            )
            #expect(
                Self.value(families, "pagebench_errors", "_total", phase: phase, extra: ("kind", "throttled"))
                    == Double(row.errors.throttled)
            )
            #expect(
                Self.value(families, "pagebench_page_latency_seconds", "_count", phase: phase) == Double(row.pages)
            )
            #expect(Self.value(families, "pagebench_items_per_page", "_count", phase: phase) == Double(row.pages))
            #expect(Self.value(families, "pagebench_items_per_page", "_sum", phase: phase) == Double(row.items))
            #expect(
                Self.value(families, "pagebench_items_per_page", "_bucket", phase: phase, extra: ("le", "+Inf"))
                    == Double(row.pages)
            )
            #expect(
                Self.value(families, "pagebench_cut_off_drains", "_total", phase: phase) == Double(row.cutOffDrains)
            )
            #expect(Self.value(families, "pagebench_cut_off_pages", "_total", phase: phase) == Double(row.cutOffPages))
        }
        #expect(output.rows.contains { $0.retries > 0 }, "the store's throttling was retried")
        let state = try #require(families.first { $0.name == "pagebench_phase_state" })
        #expect(state.samples.first { $0.labels.contains { $0 == ("state", "between") } }?.value == 1)
    }

    /// Reads the live metrics at each progress snapshot, after they took it in.
    final class Scraper: PhaseObserver {
        let metrics: LiveMetrics
        let watched: [(name: String, suffix: String)]
        /// Each reading of the watched series during a measured phase, and after the phase.
        let readings = Mutex<[[Double]]>([])
        let final = Mutex<[Double]>([])
        /// Requested once every watched series but `except` read above 0 (the phase then ends).
        let interruption = Interruption()
        let except: Set<Int>

        init(_ metrics: LiveMetrics, watching watched: [(name: String, suffix: String)], except: Set<Int> = []) {
            self.metrics = metrics
            self.watched = watched
            self.except = except
        }

        func read() -> [Double] {
            let families = metrics.families()
            return watched.map { LiveMetricsTests.value(families, $0.name, $0.suffix, phase: "c2-r1") ?? -1 }
        }

        func phaseStarted(_ phase: PhaseDescription) {}
        func progress(_ snapshot: ProgressSnapshot) {
            guard !snapshot.isWarmup else { return }
            let values = read()
            let all = readings.withLock { readings in
                readings.append(values)
                return readings
            }
            let moved = watched.indices.allSatisfy { index in except.contains(index) || all.contains { $0[index] > 0 } }
            if moved, !interruption.isRequested { interruption.request(signal: 2) }
        }
        func phaseEnded(_ phase: PhaseDescription, result: PhaseResult) {
            let values = read()
            final.withLock { $0 = values }
        }
        var wantsPageLatency: Bool { metrics.wantsPageLatency }
    }

    /// H11: while a phase runs, every counter moves (not only pages and drains: retries,
    /// throttles, errors, items per page) and page latency is live without a time series,
    /// each series only growing and never past its final value, which is the row's. The
    /// phase is time-bound (60 s) and ends as soon as a reading saw every series move (the
    /// scraper interrupts it, H6), whatever the machine's load: its end cuts drains off (H14),
    /// and the pages counter, counting ended drains only, does not fall back when they leave
    /// `pages`.
    @Test func h11CountersMoveDuringThePhaseAndNeverPassTheRow() async throws {
        // Small partitions: drains of a few pages, so that many end while the phase runs.
        let store = StoreConfiguration(
            partitions: 20,
            itemsPerPartition: .uniform(200),
            throttleRate: 0.05,
            faultRate: 0.02
        )
        let scenario = scenario(store: store) { workload in
            workload.concurrency = [2]
            workload.bound = .duration(seconds: 60)
        }
        try scenario.validate()
        let metrics = LiveMetrics(
            version: "test",
            target: "in-process",
            configurations: [.init(label: "test", configHash: "h", pager: "loop", loadModel: "closed")],
            context: Self.context
        )
        let watched: [(name: String, suffix: String)] = [
            ("pagebench_pages", "_total"), ("pagebench_items", "_total"), ("pagebench_retries", "_total"),
            ("pagebench_throttles", "_total"), ("pagebench_errors", "_total"), ("pagebench_items_per_page", "_count"),
            ("pagebench_page_latency_seconds", "_count"), ("pagebench_drains", "_total"),
        ]
        let scraper = Scraper(metrics, watching: watched, except: [4])
        var options = SweepRunner.Options(context: Self.context)
        options.observer = PhaseObservers([metrics, scraper])
        options.interruption = scraper.interruption
        options.progressInterval = .milliseconds(10)
        let output = try await SweepRunner(scenarios: [scenario], options: options).run()
        let row = try #require(output.rows.first)
        let readings = scraper.readings.withLock { $0 }
        let final = scraper.final.withLock { $0 }
        #expect(final[0] == Double(row.pages) && final[1] == Double(row.items) && final[2] == Double(row.retries))
        #expect(final[5] == Double(row.pages))
        #expect(row.cutOffDrains > 0, "the phase's end cut drains off")
        #expect(row.partial == 1 && row.durationSeconds < 60, "the scraper ended the phase")
        // Live: some reading before the end had each of them under way.
        for (index, series) in watched.enumerated() where series.name != "pagebench_errors" {
            #expect(
                readings.contains { $0[index] > 0 },
                "\(series.name) moved during the phase: \(readings.count) readings, last \(readings.last ?? [])"
            )
        }
        #expect(readings.contains { $0[5] > 0 && $0[5] == $0[0] }, "items per page counts the pages counter's pages")
        // Only growing, and never past the row's.
        for (index, series) in watched.enumerated() {
            let values = readings.map { $0[index] } + [final[index]]
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }, "\(series.name): \(values)")
        }
    }

    /// H11 for a staged run (H4): each stage's series ends equal to its own row. Its stage
    /// clock is a manual one, stepped by the test after pages came in each stage, so that
    /// every stage exists and ran whatever the machine's load (the stage clock itself is
    /// tested in StagedRunTests, h4APlanStartsWhenItsClockFirstRuns).
    @Test(.timeLimit(.minutes(2))) func h11EachStageEndsEqualToItsRow() async throws {
        let store = StoreConfiguration(partitions: 20, itemsPerPartition: .uniform(200), throttleRate: 0.05)
        var scenario = scenario(store: store) { workload in
            workload.pager = .loop
        }
        scenario.workload.setStages(try StagePlan(parsing: "300ms:1-2,300ms:2"))
        let runner = try storeRunner(scenario)
        let metrics = LiveMetrics(
            version: "test",
            target: "in-process",
            configurations: [.init(label: "test", configHash: "h", pager: "loop", loadModel: "closed")],
            context: Self.context
        )
        let counter = PageCounter()
        var options = PhaseRunner<StoreSource>.Options()
        options.observer = PhaseObservers([metrics, counter])
        options.progressInterval = .milliseconds(5)
        var description = PhaseDescription(
            scenario: "test",
            concurrency: 2,
            repetition: 1,
            isOverheadPhase: false,
            ordinal: 1,
            total: 1,
            expectedSeconds: 0.6
        )
        description.isStaged = true
        description.pager = "loop"
        metrics.phaseStarted(description)
        let clock = ManualClock()
        let stagedOptions = options
        let results = try await withThrowingTaskGroup(of: [PhaseResult].self) { group in
            group.addTask { await runner.runStages(repetition: 1, options: stagedOptions, clock: clock) }
            for boundary in [300, 600] {
                try await clock.waitForSleepers(1)
                // Drains started in this stage ended (bounded: the pagers run on the real clock):
                // past the one drain per pager (2) that may have begun in the stage before, and
                // whatever a snapshot had not seen yet (another 2).
                let before = counter.drains.withLock { $0 }
                for _ in 0..<6_000 {
                    guard counter.drains.withLock({ $0 }) < before + 5 else { break }
                    try await Task.sleep(for: .milliseconds(5))
                }
                clock.advance(to: ManualClock.Instant(offset: .milliseconds(boundary)))
            }
            return try await group.next()!
        }
        for result in results { metrics.phaseEnded(description, result: result) }
        let rows = results.map { $0.row(context: Self.context) }
        #expect(rows.count == 2)
        let families = metrics.families()
        for row in rows {
            let stage = try #require(row.stage)
            let phase = "c2-r1-s\(stage)"
            #expect(row.pages > 0)
            #expect(Self.value(families, "pagebench_pages", "_total", phase: phase) == Double(row.pages))
            #expect(Self.value(families, "pagebench_retries", "_total", phase: phase) == Double(row.retries))
            #expect(Self.value(families, "pagebench_items_per_page", "_count", phase: phase) == Double(row.pages))
            #expect(Self.value(families, "pagebench_items_per_page", "_sum", phase: phase) == Double(row.items))
        }
    }

    /// Keeps the drain count of the last progress snapshot.
    final class PageCounter: PhaseObserver {
        let drains = Mutex(0)
        func phaseStarted(_ phase: PhaseDescription) {}
        func progress(_ snapshot: ProgressSnapshot) { drains.withLock { $0 = snapshot.drains } }
        func phaseEnded(_ phase: PhaseDescription, result: PhaseResult) {}
    }

    /// Issue 36/39: the error counter's `kind` label is the page contract's kind
    /// (`PageError.Kind`'s name) and `unclassified`, one series per kind, each equal to the
    /// row's count of that kind.
    @Test func h11ErrorKindLabelsArePageErrorKinds() async throws {
        let (metrics, output) = try await Self.observedSweep()
        let families = metrics.families()
        let errors = try #require(families.first { $0.name == "pagebench_errors" })
        let kinds = Set(errors.samples.compactMap { sample in sample.labels.first { $0.name == "kind" }?.value })
        #expect(kinds == Set(PageError.Kind.allCases.map(\.rawValue) + ["unclassified"]))
        for row in output.rows {
            let phase = "c\(row.concurrency)-r\(row.repetition)"
            for kind in PageError.Kind.allCases {
                #expect(
                    Self.value(families, "pagebench_errors", "_total", phase: phase, extra: ("kind", kind.rawValue))
                        == Double(row.errors[kind]),
                    "\(kind)"
                )
            }
        }
    }

    /// Labels are the configuration, pager, phase and target: nothing else a series could
    /// explode on.
    @Test func h11SeriesCarryOnlyTheDocumentedLabels() async throws {
        let (metrics, _) = try await Self.observedSweep()
        let allowed: Set<String> = [
            "configuration", "pager", "phase", "target", "kind", "le", "state", "config_hash", "load_model", "version",
        ]
        for family in metrics.families() {
            for sample in family.samples {
                for label in sample.labels { #expect(allowed.contains(label.name), "\(family.name): \(label.name)") }
            }
        }
    }

    /// The fixed buckets put a value in the first bucket whose bound is at least the value.
    @Test func h11BucketsAreFixedAndCumulative() {
        var recorder = LatencyRecorder()
        recorder.record(nanoseconds: 9_000)
        recorder.record(nanoseconds: 1_000)
        recorder.record(nanoseconds: 700_000)
        recorder.record(nanoseconds: 120_000_000_000)
        let buckets = BucketedLatencies(recorder)
        #expect(buckets.count == 4)
        #expect(buckets.counts[0] == 2)
        #expect(buckets.counts[LatencyBuckets.upperBoundsNanoseconds.firstIndex(of: 1_000_000)!] == 1)
        #expect(buckets.counts.last == 1)
        #expect(buckets.cumulative.last == 4)
        #expect(LatencyBuckets.upperBoundLabels.prefix(3) == ["0.00001", "0.000025", "0.00005"])
        #expect(LatencyBuckets.upperBoundLabels.last == "60")
    }
}
