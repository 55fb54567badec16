import Foundation
import PagebenchBase
import PagebenchHarness
import PagebenchMetrics
import PagebenchProcessStats
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
        scenario: "s",
        concurrency: 4,
        repetition: 2,
        isOverheadPhase: false,
        ordinal: 3,
        total: 5,
        expectedSeconds: nil
    )

    static func snapshot(fraction: Double) -> ProgressSnapshot {
        ProgressSnapshot(
            scenario: "s",
            concurrency: 4,
            repetition: 2,
            isWarmup: false,
            phaseElapsedSeconds: 2,
            phaseFraction: fraction,
            pagesPerSecond: 1_234_567,
            pages: 100,
            drainsPerSecond: 12_345
        )
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
        // Issue 35: requests/s beside drains/s, as every rate the console shows.
        #expect(text.hasSuffix("12.3k drains/s, 1.23M requests/s"), "\(text)")
        #expect(!text.contains("\n"))
    }

    @Test func plainProgressWritesWholeLines() {
        let lines = Lines()
        let printer = ProgressPrinter(isTerminal: false, plainIntervalSeconds: 0, write: lines.write)
        printer.phaseStarted(Self.run)
        printer.progress(Self.snapshot(fraction: 0.25))
        #expect(lines.value.split(separator: "\n").map(String.init).first == "[3/5] s ×4 rep 2: started")
        #expect(!lines.value.contains("\r"))
        // 100 pages and no drain in the phase's 2 s.
        #expect(lines.value.hasSuffix("  0 drains/s, 50 requests/s\n"), "\(lines.value)")
    }

    /// H7: a plain line (every 5 s in CI logs) shows the pages completed since the previous
    /// line, not the rate of the last snapshot's second (which read 0 in 5 of 6 lines of a
    /// run that averaged 711 pages/s, when pages were published in batches); issue 35: the
    /// drains completed in the same time beside them, as drains/s and requests/s.
    @Test func plainProgressRateCoversTheTimeSinceThePreviousLine() {
        let lines = Lines()
        let printer = ProgressPrinter(isTerminal: false, plainIntervalSeconds: 0, write: lines.write)
        printer.phaseStarted(Self.run)
        func snapshot(warmup: Bool, elapsed: Double, pages: Int, drains: Int, lastSecond: Double) -> ProgressSnapshot {
            ProgressSnapshot(
                scenario: "s",
                concurrency: 4,
                repetition: 2,
                isWarmup: warmup,
                phaseElapsedSeconds: elapsed,
                phaseFraction: 0.5,
                pagesPerSecond: lastSecond,
                pages: pages,
                drains: drains,
                drainsPerSecond: lastSecond
            )
        }
        printer.progress(snapshot(warmup: true, elapsed: 0.5, pages: 40, drains: 2, lastSecond: 0))
        // The measured phase began after that line: its rate runs from the phase's start.
        printer.progress(snapshot(warmup: false, elapsed: 1, pages: 100, drains: 5, lastSecond: 999))
        printer.progress(snapshot(warmup: false, elapsed: 6, pages: 3_100, drains: 155, lastSecond: 0))
        let rates = lines.value.split(separator: "\n").dropFirst().map {
            $0.split(separator: " ").suffix(4).joined(separator: " ")
        }
        #expect(rates == ["4 drains/s, 80 requests/s", "5 drains/s, 100 requests/s", "30 drains/s, 600 requests/s"])
    }

    /// Issue 35: a phase's end line gives its rate as drains/s beside requests/s, and what one
    /// pager did the same way.
    @Test func thePhaseEndLineGivesDrainsAndRequestsPerSecond() {
        let lines = Lines()
        let printer = ProgressPrinter(isTerminal: false, write: lines.write)
        var metrics = TaskMetrics()
        metrics.drains = 40
        metrics.pages = 1_000
        let result = PhaseResult(
            scenario: scenario("s", store: .default) { _ in },
            concurrency: 4,
            repetition: 2,
            pageTiming: false,
            metrics: metrics,
            pagersReturned: 4,
            measuredSeconds: 2,
            cpu: CPUTime(userSeconds: 0, systemSeconds: 0),
            allocations: 0,
            peakAllocatedBytes: 0,
            peakRSSBytes: 0,
            timeSeries: [],
            startedAt: Date()
        )
        printer.phaseEnded(Self.run, result: result)
        #expect(
            lines.value.hasPrefix("[3/5] s ×4 rep 2: 20 drains/s, 500 requests/s, 1000 pages, 40 drains in 2.0s"),
            "\(lines.value)"
        )
        #expect(lines.value.contains("; a pager: 5 drains/s, 125 requests/s"), "\(lines.value)")
    }

    @Test func summaryTableHasOneAlignedLinePerRow() {
        var row = ResultRow()
        row.scenario = "default"
        row.pagerKind = "streaming"
        row.concurrency = 64
        row.repetition = 1
        row.pagesPerSecond = 2_310_000
        row.drainsPerSecond = 23_100
        row.pageLatency = LatencyPercentiles(p50Nanoseconds: 611, p99Nanoseconds: 752)
        row.peakAllocatedBytes = 28_835_840
        row.harnessOverheadRatio = 1.734
        let table = SummaryTable.render([row, row])
        let lines = table.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(Set(lines.map(\.count)).count == 1, "columns are aligned")
        // Issue 35: requests/s beside drains/s (a page is one request).
        let header = lines[0].split(separator: " ").map(String.init)
        let cells = lines[1].split(separator: " ").map(String.init)
        #expect(Array(header[4...5]) == ["drains/s", "requests/s"])
        #expect(Array(cells[4...5]) == ["23.1k", "2.31M"])
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
            partitions: 4,
            itemsPerPartition: .uniform(500),
            serviceTime: ServiceTimeModel(base: .fixed(nanoseconds: 200_000))
        )
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
        #expect(
            answered == 0 || result.timeSeries.contains { $0.pageLatencyP99Nanoseconds != nil },
            "\(answered) pages"
        )
        #expect(result.timeSeries.map(\.elapsedSeconds) == result.timeSeries.map(\.elapsedSeconds).sorted())
    }
}
