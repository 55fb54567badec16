import PagebenchHarness
import PagebenchLiveMetrics
import PagebenchMetrics
import PagebenchPage
import PagebenchStore
import PagebenchTestSupport
import Testing

/// Live metrics (issue 36, docs/live-metrics.md): what a sweep's observer makes of its phases.
@Suite struct LiveMetricsTests {
    static let context = RunContext(
        timestampUTC: "2026-12-07T00:00:00Z", pagebenchVersion: "test", gitCommit: "abc", swiftVersion: "6.3",
        buildConfiguration: "debug", host: "test-host", cores: 2)

    /// A sweep of two concurrencies on a store that throttles and fails some pages, observed.
    static func observedSweep() async throws -> (LiveMetrics, SweepRunner.Output) {
        let store = StoreConfiguration(partitions: 20, throttleRate: 0.05, faultRate: 0.02)
        let scenario = scenario(store: store) { workload in
            workload.concurrency = [1, 3]
            workload.bound = .drains(40)
        }
        try scenario.validate()
        let metrics = LiveMetrics(
            version: "test", target: "in-process",
            configurations: [.init(label: "test", configHash: "h", pager: "loop", loadModel: "closed")], context: context)
        var options = SweepRunner.Options(context: context)
        options.observer = metrics
        options.progressInterval = .milliseconds(10)
        options.timeSeries = true
        let output = try await SweepRunner(scenarios: [scenario], options: options).run()
        return (metrics, output)
    }

    static func value(_ families: [MetricFamily], _ name: String, _ suffix: String, phase: String, extra: (String, String)? = nil) -> Double? {
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
                Self.value(families, "pagebench_empty_pages_wasted", "_total", phase: phase) == Double(row.emptyPagesWasted))
            #expect(
                Self.value(families, "pagebench_errors", "_total", phase: phase, extra: ("kind", "transient"))
                    == Double(row.errors.fault))
            #expect(
                Self.value(families, "pagebench_errors", "_total", phase: phase, extra: ("kind", "throttled"))
                    == Double(row.errors.throttled))
            #expect(
                Self.value(families, "pagebench_page_latency_seconds", "_count", phase: phase) == Double(row.pages))
        }
        #expect(output.rows.contains { $0.retries > 0 }, "the store's throttling was retried")
        let state = try #require(families.first { $0.name == "pagebench_phase_state" })
        #expect(state.samples.first { $0.labels.contains { $0 == ("state", "between") } }?.value == 1)
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
                        == Double(row.errors[kind]), "\(kind)")
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
