import Foundation
import PagebenchHarness
import PagebenchMetrics
import PagebenchStore
import PagebenchTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// docs/contract.md H6: an interruption stops new work, cancels the pagers (timed as
/// cancellations) and keeps the rows of every phase that ran, the cut-short one partial.
@Suite struct InterruptionTests {
    static let context = RunContext(
        timestampUTC: "2026-11-24T00:00:00Z",
        pagebenchVersion: "test",
        gitCommit: "abc",
        swiftVersion: "6.3",
        buildConfiguration: "debug",
        host: "test-host",
        cores: 2
    )
    static let store = StoreConfiguration(partitions: 4, itemsPerPartition: .uniform(200))

    /// Requests the interruption at the first progress snapshot of `scenario` in the
    /// chosen part of its phase (warm-up or measured) once it has paged.
    final class InterruptingObserver: PhaseObserver {
        let interruption: Interruption
        let scenario: String
        let duringWarmup: Bool
        let started = Mutex<[String]>([])

        init(_ interruption: Interruption, scenario: String, duringWarmup: Bool) {
            self.interruption = interruption
            self.scenario = scenario
            self.duringWarmup = duringWarmup
        }

        func phaseStarted(_ run: PhaseDescription) { started.withLock { $0.append(run.scenario) } }
        func progress(_ snapshot: ProgressSnapshot) {
            if snapshot.scenario == scenario, snapshot.isWarmup == duringWarmup, snapshot.pages > 0 {
                interruption.request(signal: SIGINT)
            }
        }
        func phaseEnded(_ run: PhaseDescription, result: PhaseResult) {}
    }

    /// `first` (short, finishes), then `long` (never finishes on its own), then `never`.
    static func sweep(longWarmup: Double) -> [Scenario] {
        let first = scenario("first", store: store) { workload in
            workload.read = .scan
            workload.concurrency = [1]
            workload.bound = .drains(3)
        }
        let long = scenario("long", store: store) { workload in
            workload.read = .scan
            workload.concurrency = [2]
            workload.bound = .duration(seconds: 3600)
            workload.warmupSeconds = longWarmup
        }
        let never = scenario("never", store: store) { workload in
            workload.read = .scan
            workload.concurrency = [1]
            workload.bound = .drains(3)
        }
        return [first, long, never]
    }

    static func run(_ scenarios: [Scenario], duringWarmup: Bool) async throws -> (SweepRunner.Output, [String]) {
        let interruption = Interruption()
        let observer = InterruptingObserver(interruption, scenario: "long", duringWarmup: duringWarmup)
        var options = SweepRunner.Options(context: context)
        options.interruption = interruption
        options.observer = observer
        options.progressInterval = .milliseconds(5)
        for scenario in scenarios { try scenario.validate() }
        let output = try await SweepRunner(scenarios: scenarios, options: options).run()
        return (output, observer.started.withLock { $0 })
    }

    @Test(
        "H6: the phase that was interrupted ends partial with its pagers cancelled; earlier rows are whole; no later phase starts"
    )
    func h6InterruptedPhaseIsPartial() async throws {
        let (output, started) = try await Self.run(Self.sweep(longWarmup: 0), duringWarmup: false)
        #expect(started == ["first", "long"])
        try #require(output.rows.count == 2)
        let whole = output.rows[0]
        let cut = output.rows[1]
        #expect(whole.scenario == "first" && whole.partial == 0 && whole.drains == 3)
        #expect(cut.scenario == "long" && cut.partial == 1)
        // Pages were answered, in drains that ended or in those cut off (H14): the pagers stop
        // at their next checkpoint, so no drain need have ended by then.
        #expect(cut.pages + cut.cutOffPages > 0)
        // Both pagers were cancelled, and the cancellations were timed (H2).
        #expect(cut.cancellations == 2)
        #expect(cut.cancellationLatency != nil)
        #expect(cut.durationSeconds < 3600)
    }

    @Test(
        "H6: an interruption during warm-up keeps the rows before it and writes none for the phase that measured nothing"
    )
    func h6InterruptedWarmupHasNoRow() async throws {
        let (output, started) = try await Self.run(Self.sweep(longWarmup: 3600), duringWarmup: true)
        #expect(started == ["first", "long"])
        #expect(output.rows.map(\.scenario) == ["first"])
        #expect(output.rows.map(\.partial) == [0])
    }

    @Test("H6: without an interruption nothing is partial")
    func h6UninterruptedSweepIsWhole() async throws {
        let scenarios = [Self.sweep(longWarmup: 0)[0], Self.sweep(longWarmup: 0)[2]]
        let (output, _) = try await Self.run(scenarios, duringWarmup: false)
        #expect(output.rows.map(\.partial) == [0, 0])
    }

    @Test("Interruption: waiters wake on the request, at once after it, and on cancellation; the first signal is kept")
    func interruptionWaits() async {
        let interruption = Interruption()
        #expect(!interruption.isRequested)
        // A cancelled waiter returns without a request.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await interruption.wait() }
            group.cancelAll()
        }
        #expect(!interruption.isRequested)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 { group.addTask { await interruption.wait() } }
            interruption.request(signal: SIGTERM)
        }
        interruption.request(signal: SIGINT)
        #expect(interruption.signal == SIGTERM)
        await interruption.wait()  // already requested: returns at once
    }
}

/// Issue 12, H2: the cancellation probe cancels inside drains whatever their length, and
/// says when it could not.
@Suite struct CancellationProbeTests {
    /// Drains of 20 pages in-process: far shorter than any timer tick.
    static func fastStore(cancelFraction: Double, limit: Int = 10) throws -> PhaseRunner<StoreSource> {
        try storeRunner(
            scenario(store: StoreConfiguration(partitions: 8, itemsPerPartition: .uniform(200))) { workload in
                workload.pager = .loop
                workload.read = .partition(.uniform)
                workload.filter = nil
                workload.limit = limit
                workload.concurrency = [1]
                workload.bound = .drains(60)
                workload.cancelFraction = cancelFraction
            }
        )
    }

    /// A probe timer that never fires: only cancellation by page count can cancel, whatever
    /// the load on the machine running the tests (a loaded machine slows CPU-bound pages to
    /// milliseconds, where a timer could land inside them).
    static var timerNeverFires: PhaseRunner<StoreSource>.Options {
        var options = PhaseRunner<StoreSource>.Options()
        options.probeSleep = { _ in try await Task.sleep(for: .seconds(3600)) }
        return options
    }

    @Test("H2: on a store whose drains end within microseconds, the probe still cancels the drains it picks")
    func h2FastDrainsAreCancelled() async throws {
        let result = try await Self.fastStore(cancelFraction: 0.5).run(
            concurrency: 1,
            repetition: 1,
            options: Self.timerNeverFires
        )
        #expect(result.probesArmed >= 10)
        #expect(result.probesCancelled * 2 >= result.probesArmed)
        #expect(result.metrics.cancellations == result.probesCancelled)
        #expect(result.probeWarning == nil)
    }

    @Test("H2: at cancelFraction 1 cancel points move into the drains instead of staying at their start")
    func h2EveryDrainProbedStillSpreads() async throws {
        let result = try await Self.fastStore(cancelFraction: 1).run(
            concurrency: 1,
            repetition: 1,
            options: Self.timerNeverFires
        )
        #expect(result.probesArmed == 60)
        #expect(result.metrics.cancellations > 0)
        // Cancelled drains average more than two pages: the estimate grew past the first page.
        let pagesOfCancelled = result.metrics.pages - result.metrics.pagesInEndedDrains
        #expect(pagesOfCancelled > 2 * result.metrics.cancellations)
    }

    @Test("H2: a probe that could not cancel what it was asked to says so")
    func h2SinglePageDrainsWarn() async throws {
        // limit 1000 > 200 items: every drain is one page, over before any cancel instant.
        let result = try await Self.fastStore(cancelFraction: 0.5, limit: 1000).run(concurrency: 1, repetition: 1)
        #expect(result.probesArmed >= 10)
        #expect(result.probesCancelled == 0)
        let warning = try #require(result.probeWarning)
        #expect(warning.contains("asked to cancel \(result.probesArmed) drains") && warning.contains("cancelled 0"))
    }
}

/// Issue 12: nothing measured is lost to an output that cannot be written.
@Suite struct ResultWriterTests {
    @Test("rows that cannot be written where asked are saved to a rescue file the error names")
    func rowsAreRescued() throws {
        let row = ResultRow.fixture(scenario: "rescued")
        let output = SweepRunner.Output(rows: [row], results: [], timeSeries: [])
        // /proc/self exists but no file can be created in it: the write fails at its last step.
        #expect {
            try ResultWriter.write(output, to: "/proc/self/pagebench.csv", history: nil, timeSeries: nil)
        } throws: { error in
            guard let error = error as? HarnessError, error.kind == .outputFailed,
                let range = error.message.range(of: "rows were saved to ")
            else { return false }
            let rescue = String(error.message[range.upperBound...])
            defer { try? FileManager.default.removeItem(atPath: rescue) }
            return (try? CSVFile.readResults(rescue).map(\.scenario)) == ["rescued"]
        }
    }

    @Test("the precheck refuses a FIFO as --output and a history file of another format, before any run")
    func precheckRefusesBadOutputs() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-writer-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(mkfifo(directory + "/fifo", 0o644) == 0)
        #expect(throws: HarnessError.self) {
            try ResultWriter.checkWritable(output: directory + "/fifo", history: nil, timeSeries: nil)
        }
        try AtomicFile.write("name,value\na,1\n", to: directory + "/other.csv")
        #expect(throws: HarnessError.self) {
            try ResultWriter.checkWritable(
                output: directory + "/ok.csv",
                history: directory + "/other.csv",
                timeSeries: nil
            )
        }
        try ResultWriter.checkWritable(
            output: directory + "/ok.csv",
            history: directory + "/new-history.csv",
            timeSeries: nil
        )
        // A history of an earlier schema (what the append would refuse after the run) is refused before it.
        var earlier = ResultRow.csvHeader
        earlier.removeLast()
        try AtomicFile.write(earlier.joined(separator: ",") + "\n", to: directory + "/v2.csv")
        #expect(throws: HarnessError.self) {
            try ResultWriter.checkWritable(
                output: directory + "/ok.csv",
                history: directory + "/v2.csv",
                timeSeries: nil
            )
        }
    }

    @Test("a history keeps results only: rows cut short (H6) or of a target that failed them are not appended")
    func historyKeepsResultsOnly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-history-\(UUID())")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var whole = ResultRow.fixture(scenario: "whole")
        whole.pages = 10
        var partial = whole
        partial.scenario = "partial"
        partial.partial = 1
        var dead = whole
        dead.scenario = "dead@http"
        dead.targetKind = "http"
        dead.drains = 2  // some drains ended: it failed by stopping to answer (T6 is tested with targets)
        dead.errors.other = 3
        dead.httpResponses = "200=10 transport=3"
        let output = SweepRunner.Output(rows: [whole, partial, dead], results: [], timeSeries: [])
        try ResultWriter.write(output, to: directory + "/out.csv", history: directory + "/history.csv", timeSeries: nil)
        #expect(try CSVFile.readResults(directory + "/out.csv").map(\.scenario) == ["whole", "partial", "dead@http"])
        #expect(try CSVFile.readResults(directory + "/history.csv").map(\.scenario) == ["whole"])
        #expect(dead.notAResult == "stopped answering" && partial.notAResult != nil && whole.notAResult == nil)
    }
}
