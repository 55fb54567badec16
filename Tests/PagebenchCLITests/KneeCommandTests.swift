import ArgumentParser
import Foundation
import PagebenchCLI
import PagebenchHarness
import PagebenchMetrics
import Testing

/// `run --slo` (thresholds: results written, then exit 99) and `pagebench knee` (H5), run
/// in-process on a tiny store. The search logic itself is checked against simulated queues
/// in KneeSearchTests; these check the wiring: steps are open-loop phases, rows are written,
/// exit codes are the documented ones.
@Suite struct KneeCommandTests {
    typealias Capture = RunCommandTests.Capture

    func temporaryDirectory() throws -> String { try RunCommandTests().temporaryDirectory() }

    static let tinyScenario = """
        {
          "name": "tiny",
          "description": "four small partitions",
          "store": { "partitions": 4, "itemsPerPartition": 50, "itemSize": "fixed:100" },
          "workload": { "pager": "streaming", "concurrency": [2], "limit": 10, "drains": 8 }
        }
        """

    func scenario(in directory: String) throws -> String {
        let path = directory + "/tiny.json"
        try Self.tinyScenario.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aBrokenSLOExits99AfterTheResultsAreWritten() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/out.csv"
        let command = try #require(
            try PagebenchCommand.parseAsRoot([
                "run", try scenario(in: directory), "--output", output, "--quiet",
                "--slo", "page_latency_p99_ns<1ns", "--slo", "empty_page_rate<=1",
            ]) as? RunCommand)
        var capture = Capture()
        do {
            try await command.execute(into: &capture)
            Issue.record("a run that broke its SLO succeeded")
        } catch {
            #expect(error.exitCode == ExitCodes.sloBroken)
            #expect(error.message.contains("page_latency_p99_ns<1ns broke"))
            #expect(error.message.contains("tiny streaming ×2 rep 1"))
            #expect(!error.message.contains("empty_page_rate"))
        }
        // The rows were written before the verdict, with it.
        #expect(try CSVFile.read(ResultRow.self, from: output).map(\.sloHeld) == [0])
    }

    @Test func anSLOThatHoldsExitsZero() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let command = try #require(
            try PagebenchCommand.parseAsRoot([
                "run", try scenario(in: directory), "--output", directory + "/out.csv", "--slo", "error_rate<1%",
            ]) as? RunCommand)
        var capture = Capture()
        try await command.execute(into: &capture)
        #expect(capture.text.contains("every SLO held on every row: error_rate<0.01"))
    }

    @Test func badSLOsAndKneeFlagsAreUsageErrors() {
        #expect(parseExitCode(["run", "--slo", "page_latency_p99_ns"]) == 64)
        #expect(parseExitCode(["run", "--slo", "no_such_column<5"]) == 64)
        #expect(parseExitCode(["run", "--slo", "error_rate<1%", "--shard", "0/2"]) == 64)
        #expect(parseExitCode(["run", "--slo", "error_rate<1%", "--slo", "pages_per_s>"]) == 64)
        #expect(parseExitCode(["knee"]) == 64)  // no --slo
        // H5: uncorrected drain latency hides the queue.
        #expect(parseExitCode(["knee", "--slo", "drain_latency_p99_ns<10ms"]) == 64)
        #expect(parseExitCode(["knee", "--slo", "drain_latency_corrected_p99_ns<10ms", "--resolution", "0%"]) == 64)
        #expect(parseExitCode(["knee", "--slo", "drain_latency_corrected_p99_ns<10ms", "--from", "0"]) == 64)
        #expect(parseExitCode(["knee", "--slo", "drain_latency_corrected_p99_ns<10ms", "--", "--load", "closed"]) == 64)
        #expect(parseExitCode(["knee", "--slo", "drain_latency_corrected_p99_ns<10ms", "--", "--output=x.csv"]) == 64)
        #expect(parseExitCode(["knee", "--slo", "drain_latency_corrected_p99_ns<10ms", "--", "--limit", "20"]) == 0)
    }

    func knee(_ arguments: [String]) async throws -> (Capture, Result<KneeSearch.Result, CommandFailure>) {
        let command = try #require(try PagebenchCommand.parseAsRoot(["knee"] + arguments) as? KneeCommand)
        var capture = Capture()
        let outcome: Result<KneeSearch.Result, CommandFailure>
        do {
            outcome = .success(try await command.execute(into: &capture).result)
        } catch {
            outcome = .failure(error)
        }
        return (capture, outcome)
    }

    /// H5 steps hold one rate; a scenario with stages (H4) is refused, naming what to do.
    @Test func aStagedScenarioIsRefused() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/staged.json"
        try #"{"name": "staged", "workload": {"stages": "1s:0-4"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let (_, outcome) = try await knee([path, "--slo", "error_rate<1%", "--output", directory + "/knee.csv"])
        guard case .failure(let error) = outcome else {
            Issue.record("a staged scenario was searched")
            return
        }
        #expect(error.exitCode == ExitCodes.usage)
        #expect(error.message.contains("has stages"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/knee.csv"))
    }

    @Test func stepsAreOpenLoopPhasesAndEveryStepIsARow() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/knee.csv"
        let (capture, outcome) = try await knee([
            try scenario(in: directory), "--slo", "error_rate<1%", "--from", "20", "--max-rate", "70",
            "--step-duration", "0.2", "--pagers", "3", "--output", output,
        ])
        let result = try outcome.get()
        #expect(result.ending == .heldAtMaxRate)
        #expect(result.steps.map(\.rate) == [20, 40, 70])
        let rows = try CSVFile.read(ResultRow.self, from: output)
        #expect(rows.map(\.targetDrainsPerSecond) == [20, 40, 70])
        #expect(rows.allSatisfy { $0.loadModel == "open-fixed" && $0.concurrency == 3 && $0.repetition == 1 })
        #expect(rows.map(\.sloHeld) == [1, 1, 1])
        #expect(capture.text.contains("knee: at least 70 drains/s"))
    }

    /// Requests a stop (as SIGINT would, H6) as soon as step 1's line is printed.
    struct InterruptingCapture: TextOutputStream {
        var text = ""
        let interruption: Interruption
        mutating func write(_ string: String) {
            text += string
            if string.hasPrefix("step 1:") { interruption.request(signal: SIGINT) }
        }
    }

    /// H6 for `knee`: a stop requested between steps ends the search with what the judged steps
    /// found, writes them, and exits 130; no later step runs.
    @Test func anInterruptionEndsTheSearchWithTheStepsSoFar() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/knee.csv"
        let command = try #require(
            try PagebenchCommand.parseAsRoot([
                "knee", try scenario(in: directory), "--slo", "error_rate<1%", "--from", "20", "--max-rate", "70",
                "--step-duration", "0.2", "--pagers", "3", "--output", output,
            ]) as? KneeCommand)
        let interruption = Interruption()
        var capture = InterruptingCapture(interruption: interruption)
        do {
            try await command.execute(into: &capture, interruption: interruption)
            Issue.record("an interrupted knee search returned normally")
        } catch {
            #expect(error.exitCode.rawValue == 130)
            #expect(error.message == "interrupted by SIGINT: kept 1 judged step in \(output)")
        }
        let rows = try CSVFile.read(ResultRow.self, from: output)
        #expect(rows.map(\.targetDrainsPerSecond) == [20])
        #expect(rows.map(\.sloHeld) == [1] && rows.map(\.partial) == [0])
        #expect(capture.text.contains("knee so far: 20 drains/s, the highest rate at which every SLO held; interrupted"))
    }

    @Test func anSLOThatNeverHoldsExits99() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/knee.csv"
        let (_, outcome) = try await knee([
            try scenario(in: directory), "--slo", "drain_latency_corrected_p99_ns<1ns", "--from", "1024",
            "--step-duration", "0.1", "--output", output, "--quiet",
        ])
        switch outcome {
        case .success(let result):
            Issue.record("a search where nothing held succeeded: \(result)")
        case .failure(let failure):
            #expect(failure.exitCode == ExitCodes.sloBroken)
            #expect(failure.message.contains("held at no rate"))
        }
        // Every step's row is kept all the same.
        #expect(try CSVFile.read(ResultRow.self, from: output).count == KneeSearch.maxHalvings + 1)
    }
}
