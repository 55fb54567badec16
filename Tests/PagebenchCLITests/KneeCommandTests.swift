import ArgumentParser
import Foundation
import PagebenchBase
import PagebenchCLI
import PagebenchHarness
import PagebenchMetrics
import PagebenchTestSupport
import Testing

/// `run --slo` (thresholds: results written, then exit 99) and `pagebench knee` (H5), run
/// in-process on a tiny store. The search logic itself is checked against simulated queues
/// in KneeSearchTests; these check the wiring: steps are open-loop phases, rows are written,
/// exit codes are the documented ones.
@Suite struct KneeCommandTests {
    typealias Capture = RunCommandTests.Capture

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
        let directory = try temporaryDirectoryPath("pagebench-knee")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/out.csv"
        let command = try #require(
            try PagebenchCommand.parseAsRoot([
                "run", try scenario(in: directory), "--output", output, "--quiet",
                "--slo", "page_latency_p99_ns<1ns", "--slo", "empty_page_rate<=1",
            ]) as? RunCommand
        )
        var capture = Capture()
        do {
            try await command.execute(into: &capture)
            Issue.record("a run that broke its SLO succeeded")
        } catch {
            #expect(error.exitStatus == ExitCodes.sloBroken)
            #expect(error.message.contains("page_latency_p99_ns<1ns broke"))
            #expect(error.message.contains("tiny streaming ×2 rep 1"))
            #expect(!error.message.contains("empty_page_rate"))
        }
        // The rows were written before the verdict, with it.
        #expect(try CSVFile.read(ResultRow.self, from: output).map(\.sloHeld) == [0])
    }

    @Test func anSLOThatHoldsExitsZero() async throws {
        let directory = try temporaryDirectoryPath("pagebench-knee")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let command = try #require(
            try PagebenchCommand.parseAsRoot([
                "run", try scenario(in: directory), "--output", directory + "/out.csv", "--slo", "error_rate<1%",
            ]) as? RunCommand
        )
        var capture = Capture()
        try await command.execute(into: &capture)
        #expect(capture.text.contains("every SLO held on every row: error_rate<0.01"))
    }

    /// Writes the tiny scenario with `slo` as its `slo` value (JSON text).
    func scenario(in directory: String, slo: String) throws -> String {
        let path = directory + "/tiny.json"
        try Self.tinyScenario.replacingOccurrences(
            of: "\"name\": \"tiny\",",
            with: "\"name\": \"tiny\", \"slo\": \(slo),"
        )
        .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func run(_ arguments: [String]) async -> (Capture, CommandError?) {
        let (capture, _, failure) = await RunCommandTests().run(arguments)
        return (capture, failure)
    }

    /// A scenario's `slo` list judges its rows as --slo does; --slo adds to it (both apply).
    @Test func aScenarioSLOListJudgesItsRowsAndAddsToSLOFlags() async throws {
        let directory = try temporaryDirectoryPath("pagebench-knee")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/out.csv"
        let broken = try scenario(in: directory, slo: #"["page_latency_p99_ns<1ns", "error_rate<1%"]"#)
        let (_, failure) = await run([broken, "--output", output, "--quiet", "--slo", "empty_page_rate<=1"])
        #expect(failure?.exitStatus == ExitCodes.sloBroken)
        #expect(failure?.message.contains("1 SLO violation") == true)
        #expect(failure?.message.contains("tiny streaming ×2 rep 1: SLO page_latency_p99_ns<1ns broke") == true)
        #expect(try CSVFile.read(ResultRow.self, from: output).map(\.sloHeld) == [0])

        let held = try scenario(in: directory, slo: #"["error_rate<1%"]"#)
        let (capture, none) = await run([held, "--output", output, "--slo", "empty_page_rate<=1"])
        #expect(none == nil)
        #expect(capture.text.contains("every SLO held on every row: error_rate<0.01, empty_page_rate<=1"))
        #expect(try CSVFile.read(ResultRow.self, from: output).map(\.sloHeld) == [1])
        #expect(try CSVFile.read(ResultRow.self, from: output).map(\.slos) == ["error_rate<0.01;empty_page_rate<=1"])
        // A --slo the scenario's list does not meet breaks the run: the flag does not replace it.
        let (_, flagBroke) = await run([held, "--output", output, "--quiet", "--slo", "pages_per_s<1"])
        #expect(flagBroke?.message.contains("pages_per_s<1 broke") == true)
        // The list is part of the scenario as printed.
        let (printed, _) = await run([held, "--print-scenarios"])
        #expect(printed.text.contains("\"slo\" : [\n    \"error_rate<1%\"\n  ]"))
    }

    /// A bad `slo` list is an invalid scenario (exit 65) naming the file and the entry.
    @Test func aBadScenarioSLOListIsAnInvalidScenarioNamingTheEntry() async throws {
        let directory = try temporaryDirectoryPath("pagebench-knee")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (slo, expected) in [
            (#"["error_rate<1%", "no_such_column<5"]"#, "slo[1] 'no_such_column<5': no column 'no_such_column'"),
            (#"["pages_per_s>"]"#, "slo[0] 'pages_per_s>'"),
            (#""error_rate<1%""#, "slo: must be a list"),
            (#"[5]"#, "slo[0]: must be a non-empty string"),
            (#"[""]"#, "slo[0]: must be a non-empty string"),
        ] {
            let path = try scenario(in: directory, slo: slo)
            let (_, failure) = await run([path, "--output", directory + "/out.csv", "--quiet"])
            #expect(failure?.exitStatus == ExitCodes.dataError, "\(slo)")
            #expect(
                failure?.message.contains(path) == true && failure?.message.contains(expected) == true,
                "\(failure?.message ?? "")"
            )
            let (_, knee) = try await knee([path, "--output", directory + "/knee.csv"])
            guard case .failure(let kneeFailure) = knee else {
                Issue.record("knee searched with a bad slo list \(slo)")
                continue
            }
            #expect(
                kneeFailure.exitStatus == ExitCodes.dataError && kneeFailure.message.contains(expected),
                "\(kneeFailure.message)"
            )
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/out.csv"))
    }

    @Test func badSLOsAndKneeFlagsAreUsageErrors() {
        #expect(parseExitCode(["run", "--slo", "page_latency_p99_ns"]) == 64)
        #expect(parseExitCode(["run", "--slo", "no_such_column<5"]) == 64)
        #expect(parseExitCode(["run", "--slo", "error_rate<1%", "--shard", "0/2"]) == 64)
        #expect(parseExitCode(["run", "--slo", "error_rate<1%", "--slo", "pages_per_s>"]) == 64)
        #expect(parseExitCode(["knee"]) == 64)  // no --slo and no scenario
        // H5: uncorrected drain latency hides the queue.
        #expect(parseExitCode(["knee", "--slo", "drain_latency_p99_ns<10ms"]) == 64)
        #expect(parseExitCode(["knee", "--slo", "drain_latency_corrected_p99_ns<10ms", "--resolution", "0%"]) == 64)
        #expect(parseExitCode(["knee", "--slo", "drain_latency_corrected_p99_ns<10ms", "--from", "0"]) == 64)
        #expect(
            parseExitCode(["knee", "--slo", "drain_latency_corrected_p99_ns<10ms", "--", "--load", "closed"]) == 64
        )
        #expect(parseExitCode(["knee", "--slo", "drain_latency_corrected_p99_ns<10ms", "--", "--output=x.csv"]) == 64)
        #expect(parseExitCode(["knee", "--slo", "drain_latency_corrected_p99_ns<10ms", "--", "--limit", "20"]) == 0)
    }

    /// The exit code and message of arguments that fail to parse or validate.
    func refusal(_ arguments: [String]) -> (code: Int32, message: String) {
        do {
            _ = try PagebenchCommand.parseAsRoot(arguments)
            return (0, "")
        } catch {
            return (PagebenchCommand.exitCode(for: error).rawValue, PagebenchCommand.message(for: error))
        }
    }

    /// H5: page latency is not corrected, so `knee` refuses it and names the corrected drain
    /// latency to bound instead; `run` takes it.
    @Test func uncorrectedPageLatencyIsRefusedNamingTheCorrectedAlternative() {
        for (column, corrected) in [
            ("page_latency_p99_ns", "drain_latency_corrected_p99_ns"),
            ("page_latency_max_ns", "drain_latency_corrected_max_ns"),
            ("drain_latency_p90_ns", "drain_latency_corrected_p90_ns"),
        ] {
            let (code, message) = refusal(["knee", "--slo", "\(column)<5ms"])
            #expect(code == 64)
            #expect(message.contains("--slo '\(column)<5ms'") && message.contains(corrected), "\(message)")
        }
        #expect(parseExitCode(["run", "--slo", "page_latency_p99_ns<5ms"]) == 0)
    }

    @Test func badMinimumAchievedFractionsAreUsageErrors() {
        let slo = ["knee", "--slo", "error_rate<1%"]
        #expect(parseExitCode(slo + ["--min-achieved", "0.9"]) == 0)
        #expect(parseExitCode(slo + ["--min-achieved", "90%"]) == 0)
        #expect(parseExitCode(slo + ["--min-achieved", "0"]) == 0)
        for bad in ["120%", "-0.1", "most"] {
            let (code, message) = refusal(slo + ["--min-achieved", bad])
            #expect(code == 64, "\(bad)")
            #expect(message.contains("--min-achieved"), "\(message)")
        }
    }

    /// A store whose one pager completes about 36 drains/s (5 pages of a fixed 5 ms service time).
    static let slowScenario = """
        {
          "name": "slow",
          "store": { "partitions": 2, "itemsPerPartition": 40, "itemSize": "fixed:100", "serviceTime": { "base": "fixed:5ms" } },
          "workload": { "pager": "streaming", "concurrency": [1], "limit": 10, "drains": 8, "read": "partition:uniform" }
        }
        """

    /// H5: a step that did not sustain its rate breaks even when its SLOs held: one pager of
    /// ~36 drains/s offered 200/s completes a fifth of it. Its row says so (slo_held 0) and so
    /// does its line; --min-achieved 0 judges on the SLOs alone.
    @Test func aStepThatDidNotSustainItsRateBreaksByThroughput() async throws {
        let directory = try temporaryDirectoryPath("pagebench-knee")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/slow.json"
        try Self.slowScenario.write(toFile: path, atomically: true, encoding: .utf8)
        let output = directory + "/knee.csv"
        let common = [
            path, "--slo", "error_rate<1%", "--from", "200", "--step-duration", "0.3", "--pagers", "1", "--output",
            output,
        ]
        let (capture, outcome) = try await knee(common + ["--max-steps", "2"])
        let result = try outcome.get()
        #expect(result.steps.map(\.rate) == [200, 100])
        #expect(result.steps.allSatisfy { !$0.held })
        #expect(capture.text.contains("step 1: 200 drains/s: broke by throughput (error_rate=0; started "))
        #expect(capture.text.contains("under --min-achieved 0.95"))
        // Issue 26: requests/s beside drains/s.
        #expect(capture.text.contains(" requests/s"))
        let rows = try CSVFile.read(ResultRow.self, from: output)
        #expect(rows.map(\.sloHeld) == [0, 0])
        #expect(rows.allSatisfy { Double($0.drains + $0.cancellations) < 0.5 * $0.plannedDrainsPerSecond! * 0.3 })

        let (_, slosOnly) = try await knee(common + ["--max-rate", "200", "--min-achieved", "0"])
        #expect(try slosOnly.get().ending == .heldAtMaxRate)
        #expect(try CSVFile.read(ResultRow.self, from: output).map(\.sloHeld) == [1])
    }

    /// A scenario's `slo` list is the knee's SLO when no --slo is given, and adds to --slo.
    @Test func aScenarioSLOListIsTheKneesSLO() async throws {
        let directory = try temporaryDirectoryPath("pagebench-knee")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try scenario(in: directory, slo: #"["error_rate<1%"]"#)
        let output = directory + "/knee.csv"
        let (capture, outcome) = try await knee([
            path, "--from", "20", "--max-rate", "40", "--step-duration", "0.2", "--pagers", "3", "--output", output,
            "--slo", "empty_page_rate<=1", "--min-achieved", "0",
        ])
        #expect(try outcome.get().ending == .heldAtMaxRate)
        #expect(capture.text.contains("knee search: error_rate<0.01, empty_page_rate<=1; steps of 0.2 s"))
        #expect(try CSVFile.read(ResultRow.self, from: output).map(\.sloHeld) == [1, 1])
        // H5 holds for the scenario's list too.
        let (_, refused) = try await knee([
            try scenario(in: directory, slo: #"["page_latency_p99_ns<5ms"]"#), "--output", output,
        ])
        guard case .failure(let failure) = refused else {
            Issue.record("a scenario SLO on page latency was searched")
            return
        }
        #expect(failure.exitStatus == ExitCodes.usage)
        #expect(
            failure.message.contains("the scenario's slo 'page_latency_p99_ns<5ms'")
                && failure.message.contains("drain_latency_corrected_p99_ns")
        )
    }

    func knee(_ arguments: [String]) async throws -> (Capture, Result<KneeSearch.Result, CommandError>) {
        let command = try #require(try PagebenchCommand.parseAsRoot(["knee"] + arguments) as? KneeCommand)
        var capture = Capture()
        let outcome: Result<KneeSearch.Result, CommandError>
        do {
            outcome = .success(try await command.execute(into: &capture).result)
        } catch {
            outcome = .failure(error)
        }
        return (capture, outcome)
    }

    /// H5 steps hold one rate; a scenario with stages (H4) is refused, naming what to do.
    @Test func aStagedScenarioIsRefused() async throws {
        let directory = try temporaryDirectoryPath("pagebench-knee")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/staged.json"
        try #"{"name": "staged", "workload": {"stages": "1s:0-4"}}"#.write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        let (_, outcome) = try await knee([path, "--slo", "error_rate<1%", "--output", directory + "/knee.csv"])
        guard case .failure(let error) = outcome else {
            Issue.record("a staged scenario was searched")
            return
        }
        #expect(error.exitStatus == ExitCodes.usage)
        #expect(error.message.contains("has stages"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/knee.csv"))
    }

    @Test func stepsAreOpenLoopPhasesAndEveryStepIsARow() async throws {
        let directory = try temporaryDirectoryPath("pagebench-knee")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/knee.csv"
        // Judged on the SLO alone (--min-achieved 0): on a busy machine a step of 4 to 14 drains
        // can end before its last one started, 7 % of it (the throughput condition has its own tests).
        let (capture, outcome) = try await knee([
            try scenario(in: directory), "--slo", "error_rate<1%", "--from", "20", "--max-rate", "70",
            "--step-duration", "0.2", "--pagers", "3", "--output", output, "--min-achieved", "0",
        ])
        let result = try outcome.get()
        #expect(result.ending == .heldAtMaxRate)
        #expect(result.steps.map(\.rate) == [20, 40, 70])
        let rows = try CSVFile.read(ResultRow.self, from: output)
        #expect(rows.map(\.plannedDrainsPerSecond) == [20, 40, 70])
        #expect(rows.allSatisfy { $0.loadModel == "open-fixed" && $0.concurrency == 3 && $0.repetition == 1 })
        #expect(rows.map(\.sloHeld) == [1, 1, 1])
        // The SLOs the steps were judged on, so a report of this CSV draws their bounds (issue 26).
        #expect(rows.map(\.slos) == ["error_rate<0.01", "error_rate<0.01", "error_rate<0.01"])
        // The knee in requests (pages) per second as well, as its step achieved them (issue 26).
        let requests = NumberText.compact(rows[2].pagesPerSecond)
        #expect(
            capture.text.contains("knee: at least 70 drains/s (\(requests) requests/s completed): every SLO held"),
            "\(capture.text)"
        )
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
        let directory = try temporaryDirectoryPath("pagebench-knee")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/knee.csv"
        let command = try #require(
            try PagebenchCommand.parseAsRoot([
                "knee", try scenario(in: directory), "--slo", "error_rate<1%", "--from", "20", "--max-rate", "70",
                "--step-duration", "0.2", "--pagers", "3", "--output", output, "--min-achieved", "0",
            ]) as? KneeCommand
        )
        let interruption = Interruption()
        var capture = InterruptingCapture(interruption: interruption)
        do {
            try await command.execute(into: &capture, interruption: interruption)
            Issue.record("an interrupted knee search returned normally")
        } catch {
            #expect(error.exitStatus.rawValue == 130)
            #expect(error.message == "interrupted by SIGINT: kept 1 judged step in \(output)")
        }
        let rows = try CSVFile.read(ResultRow.self, from: output)
        #expect(rows.map(\.plannedDrainsPerSecond) == [20])
        #expect(rows.map(\.sloHeld) == [1] && rows.map(\.partial) == [0])
        let requests = NumberText.compact(rows[0].pagesPerSecond)
        #expect(
            capture.text.contains(
                "knee so far: 20 drains/s (\(requests) requests/s completed), the highest rate at which every SLO held; interrupted"
            )
        )
    }

    @Test func anSLOThatNeverHoldsExits99() async throws {
        let directory = try temporaryDirectoryPath("pagebench-knee")
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
            #expect(failure.exitStatus == ExitCodes.sloBroken)
            #expect(failure.message.contains("held at no rate"))
        }
        // Every step's row is kept all the same.
        #expect(try CSVFile.read(ResultRow.self, from: output).count == KneeSearch.maxHalvings + 1)
    }
}
