import PagebenchBase
import PagebenchHarness
import PagebenchMetrics
import PagebenchStore
import PagebenchTestSupport
import Synchronization
import Testing

@Suite struct ReportingTests {
    final class Lines: Sendable {
        let text = Mutex("")
        func write(_ string: String) { text.withLock { $0 += string } }
        var value: String { text.withLock { $0 } }
    }

    static let run = PhaseDescription(
        scenario: "s", concurrency: 4, repetition: 2, isOverheadPhase: false, ordinal: 3, total: 5, expectedSeconds: nil)

    static func snapshot(fraction: Double) -> ProgressSnapshot {
        ProgressSnapshot(
            scenario: "s", concurrency: 4, repetition: 2, isWarmup: false, phaseElapsedSeconds: 2,
            phaseFraction: fraction, pagesPerSecond: 1_234_567, pages: 100)
    }

    @Test func terminalProgressRewritesOneLineWithBarEtaAndRate() {
        let lines = Lines()
        let printer = ProgressPrinter(isTerminal: true, write: lines.write)
        printer.phaseStarted(Self.run)
        printer.progress(Self.snapshot(fraction: 0.5))
        let text = lines.value
        #expect(text.hasPrefix("\r\u{1B}[2K[3/5] s ×4 rep 2 "))
        #expect(text.contains("██████████░░░░░░░░░░"))
        #expect(text.contains("measuring 50%"))
        #expect(text.contains("ETA 2.0s"))
        #expect(text.contains("1.23M pages/s"))
        #expect(!text.contains("\n"))
    }

    @Test func plainProgressWritesWholeLines() {
        let lines = Lines()
        let printer = ProgressPrinter(isTerminal: false, plainIntervalSeconds: 0, write: lines.write)
        printer.phaseStarted(Self.run)
        printer.progress(Self.snapshot(fraction: 0.25))
        #expect(lines.value.split(separator: "\n").map(String.init).first == "[3/5] s ×4 rep 2: started")
        #expect(!lines.value.contains("\r"))
        #expect(lines.value.hasSuffix("pages/s\n"))
    }

    /// H7: a plain line (every 5 s in CI logs) shows the pages completed since the previous
    /// line, not the rate of the last snapshot's second (which read 0 in 5 of 6 lines of a
    /// run that averaged 711 pages/s, when pages were published in batches).
    @Test func plainProgressRateCoversTheTimeSinceThePreviousLine() {
        let lines = Lines()
        let printer = ProgressPrinter(isTerminal: false, plainIntervalSeconds: 0, write: lines.write)
        printer.phaseStarted(Self.run)
        func snapshot(warmup: Bool, elapsed: Double, pages: Int, lastSecond: Double) -> ProgressSnapshot {
            ProgressSnapshot(
                scenario: "s", concurrency: 4, repetition: 2, isWarmup: warmup, phaseElapsedSeconds: elapsed,
                phaseFraction: 0.5, pagesPerSecond: lastSecond, pages: pages)
        }
        printer.progress(snapshot(warmup: true, elapsed: 0.5, pages: 40, lastSecond: 0))
        // The measured phase began after that line: its rate runs from the phase's start.
        printer.progress(snapshot(warmup: false, elapsed: 1, pages: 100, lastSecond: 999))
        printer.progress(snapshot(warmup: false, elapsed: 6, pages: 3_100, lastSecond: 0))
        let rates = lines.value.split(separator: "\n").dropFirst().map { $0.split(separator: " ").suffix(2).joined(separator: " ") }
        #expect(rates == ["80 pages/s", "100 pages/s", "600 pages/s"])
    }

    @Test func summaryTableHasOneAlignedLinePerRow() {
        var row = ResultRow()
        row.scenario = "default"
        row.pagerKind = "streaming"
        row.concurrency = 64
        row.repetition = 1
        row.pagesPerSecond = 2_310_000
        row.pageLatency = LatencyPercentiles(p50Nanoseconds: 611, p99Nanoseconds: 752)
        row.peakAllocatedBytes = 28_835_840
        row.harnessOverheadRatio = 1.734
        let table = SummaryTable.render([row, row])
        let lines = table.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(Set(lines.map(\.count)).count == 1, "columns are aligned")
        #expect(lines[1].contains("2.31M"))
        #expect(lines[1].contains("611ns"))
        #expect(lines[1].contains("27.5MiB"))
        #expect(lines[1].hasSuffix("1.73"), "harness_overhead_ratio is the last column")
    }

    /// Issue 35: an open-loop row's corrected drain p99 is in the summary whether or not an
    /// `--slo` names it; closed-loop tables stay as they were.
    @Test func theSummaryShowsCorrectedLatencyInOpenLoop() {
        var row = ResultRow()
        row.scenario = "open"
        row.drainLatency = LatencyPercentiles(p50Nanoseconds: 1_000_000, p99Nanoseconds: 2_000_000)
        #expect(!SummaryTable.render([row]).contains("corr."))
        row.drainLatencyCorrected = LatencyPercentiles(p50Nanoseconds: 5_000_000, p99Nanoseconds: 42_000_000)
        let table = SummaryTable.render([row])
        #expect(table.contains("drain p99 corr."))
        #expect(table.contains("42.00ms"), "\(table)")
    }

    /// A duration-bound run with a time series: at least the closing interval is written,
    /// with the run's identity, and the pages in the rows add up to no more than the run's.
    @Test func timeSeriesRowsDescribeTheRun() async throws {
        let store = StoreConfiguration(
            partitions: 4, itemsPerPartition: .uniform(500), serviceTime: ServiceTimeModel(base: .fixed(nanoseconds: 200_000)))
        let scenario = scenario("series", store: store) {
            $0.bound = .duration(seconds: 0.3)
            $0.limit = 10
        }
        var options = PhaseRunner<StoreSource>.Options()
        options.timeSeries = true
        let result = try await storeRunner(scenario).run(concurrency: 3, repetition: 2, options: options)
        #expect(!result.timeSeries.isEmpty)
        #expect(result.timeSeries.allSatisfy { $0.scenario == "series" && $0.concurrency == 3 && $0.repetition == 2 })
        // Page latency in the rows whenever a page was answered: pagers that a loaded test
        // process starts only after the 0.3 s deadline begin no drain (they read the deadline).
        let answered = result.metrics.pages + result.metrics.cutOff.pages
        #expect(answered == 0 || result.timeSeries.contains { $0.pageLatencyP99Nanoseconds != nil }, "\(answered) pages")
        #expect(result.timeSeries.map(\.elapsedSeconds) == result.timeSeries.map(\.elapsedSeconds).sorted())
    }
}
