import ArgumentParser
import Foundation
import PagebenchBase
import PagebenchCLI
import PagebenchCLITestSupport
import PagebenchHarness
import PagebenchMetrics
import PagebenchTestSupport
import Testing

/// `pagebench run`, parsed and executed in-process on tiny scenarios: files written, rows
/// and exit codes checked; a failing invocation never touches the output file.
@Suite struct RunCommandTests {
    struct Capture: TextOutputStream {
        var text = ""
        mutating func write(_ string: String) { text += string }
    }

    static let tinyScenario = """
        {
          "name": "tiny",
          "description": "two small partitions",
          "store": { "partitions": 4, "itemsPerPartition": 300, "itemSize": "fixed:100", "selectivity": 0.1, "clustering": "runs:20" },
          "workload": { "pager": "streaming", "concurrency": [1, 3], "filter": "match", "limit": 10, "drains": 12, "repetitions": 2 }
        }
        """

    func run(_ arguments: [String]) async -> (Capture, SweepRunner.Output?, CommandError?) {
        let result = await runPagebench(arguments)
        return (Capture(text: result.text), result.output, result.failure)
    }

    /// The exit code of `pagebench run ARGUMENTS…`'s parse and validation.
    func runExitCode(_ arguments: [String]) -> Int32 {
        PagebenchCLITests.parseExitCode(["run"] + arguments)
    }

    /// Issue 12: exact allocation counts need jemalloc's thread caches off from the process's
    /// start; a run made in this (test) process, whose caches are on, is refused rather than
    /// written with counts that say `exact` and are not. Rows otherwise say how they counted.
    @Test func exactAllocationsInAProcessWithThreadCachesIsRefused() async throws {
        let directory = try temporaryDirectoryPath("pagebench-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/out.csv"
        let (_, _, failure) = await run([
            "--drains", "2", "--concurrency", "1", "--quiet", "--exact-allocations", "--output", output,
        ])
        #expect(failure?.exitStatus.rawValue == 64)
        #expect(failure?.message.contains("--exact-allocations needs jemalloc's thread caches off") == true)
        #expect(!FileManager.default.fileExists(atPath: output))
        let (_, result, none) = await run(["--drains", "2", "--concurrency", "1", "--quiet", "--output", output])
        #expect(none == nil)
        #expect(result?.rows.map(\.allocationCounting) == ["cached"])
    }

    @Test func runWritesOneRowPerConcurrencyAndRepetition() async throws {
        let directory = try temporaryDirectoryPath("pagebench-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = directory + "/tiny.json"
        try Self.tinyScenario.write(toFile: scenario, atomically: true, encoding: .utf8)
        let output = directory + "/out/latest.csv"
        let history = directory + "/history.csv"
        let series = directory + "/series.csv"
        let (capture, result, failure) = await run([
            scenario, "--output", output, "--history", history, "--timeseries", series, "--warmup", "0",
        ])
        #expect(failure == nil)
        #expect(result?.rows.count == 4)
        let rows = try CSVFile.read(ResultRow.self, from: output)
        #expect(rows == result?.rows)
        #expect(rows.map(\.concurrency) == [1, 1, 3, 3])
        #expect(rows.map(\.repetition) == [1, 2, 1, 2])
        #expect(rows.allSatisfy { $0.scenario == "tiny" && $0.pagerKind == "streaming" && $0.drains == 12 })
        // Deterministic figures (H3) agree between every row of the same scenario.
        #expect(Set(rows.map(\.pages)).count == 1)
        #expect(Set(rows.map(\.emptyPagesWasted)).count == 1)
        #expect(rows[0].emptyPagesWasted > 0)
        #expect(rows.allSatisfy { $0.configHash == rows[0].configHash && !$0.timestampUTC.isEmpty && $0.cores > 0 })
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(text.split(separator: "\n").first.map(String.init) == ResultRow.csvHeader.joined(separator: ","))
        // History: appended on a second run, header once.
        _ = await run([scenario, "--output", output, "--history", history, "--quiet", "--warmup", "0"])
        #expect(try CSVFile.read(ResultRow.self, from: history).count == 8)
        _ = try CSVFile.read(TimeSeriesRow.self, from: series)
        // Issue 35: the summary table's rate is drains/s beside requests/s, each row's own figures
        // (the progress lines go to standard error: ReportingTests).
        let table = capture.text.split(separator: "\n").map(String.init)
        let header = try #require(table.first { $0.hasPrefix("configuration") })
        #expect(header.split(separator: " ").map(String.init)[4...5] == ["drains/s", "requests/s"])
        let tableRows = table.filter { $0.hasPrefix("tiny ") }.map { $0.split(separator: " ").map(String.init) }
        #expect(
            tableRows.map { Array($0[4...5]) }
                == rows.map { [NumberText.count($0.drainsPerSecond), NumberText.count($0.pagesPerSecond)] }
        )
        #expect(capture.text.contains("wrote 4 rows"))
    }

    @Test func flagsOverrideTheScenario() async throws {
        let directory = try temporaryDirectoryPath("pagebench-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = directory + "/tiny.json"
        try Self.tinyScenario.write(toFile: scenario, atomically: true, encoding: .utf8)
        let (_, result, failure) = await run([
            scenario, "--output", directory + "/o.csv", "--quiet", "--concurrency", "2", "--drains", "5",
            "--pager", "apollo-loadNext", "--partitions", "2", "--repetitions", "1", "--limit", "7",
        ])
        #expect(failure == nil)
        let row = try #require(result?.rows.first)
        #expect(result?.rows.count == 1)
        #expect(row.concurrency == 2)
        #expect(row.drains == 5)
        #expect(row.pagerKind == "apollo-loadNext")
        #expect(row.limit == 7)
        #expect(result?.results.first?.scenario.store.partitions == 2)
    }

    @Test func printScenariosShowsTheBuiltInDefault() async throws {
        let (capture, _, failure) = await run(["--print-scenarios"])
        #expect(failure == nil)
        let scenario = try Scenario.load(json: Data(capture.text.utf8), defaultName: "x")
        // Alone in its run, the default is labelled by its name (issue 26), which the printed
        // file leaves out: a copy whose name is edited must not keep reading "default".
        #expect(scenario.label == nil)
        #expect(scenario == Scenario.default)
        #expect(!capture.text.contains("\"label\""))
    }

    // MARK: Sweeps and labels (issue 26)

    /// `--limit 10,100 --filter none,category=0` runs the cross product in one command, limits
    /// varying slowest, every row labelled by what sets it apart; the hash stays the identity.
    @Test func aSweepRunsTheCrossProductEachRowLabelled() async throws {
        let directory = try temporaryDirectoryPath("pagebench-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = directory + "/tiny.json"
        try Self.tinyScenario.write(toFile: scenario, atomically: true, encoding: .utf8)
        let output = directory + "/sweep.csv"
        let (capture, result, failure) = await run([
            scenario, "--output", output, "--concurrency", "1", "--repetitions", "1", "--drains", "4",
            "--limit", "10,100", "--filter", "none,category=0",
        ])
        #expect(failure == nil)
        let rows = try CSVFile.readResults(output)
        #expect(
            rows.map(\.label) == [
                "limit=10 filter=none", "limit=10 filter=category=0", "limit=100 filter=none",
                "limit=100 filter=category=0",
            ]
        )
        #expect(rows.map(\.limit) == [10, 10, 100, 100])
        #expect(rows.map(\.filter) == ["none", "category=0", "none", "category=0"])
        #expect(
            rows.allSatisfy { $0.scenario == "tiny" && $0.read == "partition:uniform" && $0.continuation == "keyset" }
        )
        #expect(Set(rows.map(\.configHash)).count == 4)
        #expect(result?.rows.count == 4)
        #expect(capture.text.contains("limit=100 filter=category=0"))
    }

    @Test func aSweepListingAValueTwiceOrAnEmptyElementIsRefused() {
        #expect(runExitCode(["--limit", "10,10"]) == 64)
        #expect(runExitCode(["--limit", "10,,100"]) == 64)
        #expect(runExitCode(["--limit", "10,x"]) == 64)
        #expect(runExitCode(["--filter", "none,colour=red"]) == 64)
        #expect(runExitCode(["--read", "scan,everything"]) == 64)
        #expect(runExitCode(["--limit", "10,100", "--read", "scan,segment:4", "--print-scenarios"]) == 0)
    }

    /// Issue 39: a sweep's points are counted before any is built; more than a thousand are
    /// refused naming the count (300 × 300 did not finish in 60 s).
    @Test func aSweepOfMoreThanAThousandPointsIsRefusedNamingTheCount() async {
        let limits = (1...40).map(String.init).joined(separator: ",")
        let reads = (["scan"] + (2...30).map { "segment:\($0)" }).joined(separator: ",")
        #expect(runExitCode(["--limit", limits, "--read", reads, "--print-scenarios"]) == 64)
        let (_, _, failure) = await run(["--limit", limits, "--read", reads, "--print-scenarios"])
        #expect(failure?.exitStatus.rawValue == 64)
        #expect(
            failure?.message.contains(
                "--limit × --filter × --read: 40 × 1 × 30 = 1200 points, more than the 1000 one run sweeps"
            ) == true,
            "\(String(describing: failure))"
        )
        let (capture, _, none) = await run([
            "--limit", (1...20).map(String.init).joined(separator: ","), "--read", reads, "--print-scenarios",
        ])
        #expect(none == nil)
        #expect(capture.text.components(separatedBy: "\"name\"").count - 1 == 600)
    }

    /// A scenario file's `label` names its rows, whatever else runs with it.
    @Test func aScenarioLabelIsKept() async throws {
        let directory = try temporaryDirectoryPath("pagebench-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = directory + "/tiny.json"
        try Self.tinyScenario.replacingOccurrences(
            of: "\"name\": \"tiny\",",
            with: "\"name\": \"tiny\", \"label\": \"our list\","
        )
        .write(toFile: scenario, atomically: true, encoding: .utf8)
        let (_, result, failure) = await run([
            scenario, "--output", directory + "/o.csv", "--quiet", "--concurrency", "1", "--repetitions", "1",
            "--drains", "2",
            "--limit", "5,10",
        ])
        #expect(failure == nil)
        // A sweep of it tells its rows apart by what varies.
        #expect(result?.rows.map(\.label) == ["our list limit=5", "our list limit=10"])
        #expect(Set(result?.rows.map(\.configHash) ?? []).count == 2)
    }

    @Test func badFlagsExitWith64() {
        #expect(runExitCode(["--concurrency", "0"]) == 64)
        #expect(runExitCode(["--concurrency", "1,x"]) == 64)
        #expect(runExitCode(["--pager", "pigeon"]) == 64)
        #expect(runExitCode(["--read", "everything"]) == 64)
        #expect(runExitCode(["--drain", "first:0"]) == 64)
        #expect(runExitCode(["--load", "open-fixed:-3"]) == 64)
        #expect(runExitCode(["--drains", "5", "--duration", "2"]) == 64)
        #expect(runExitCode(["--cancel-fraction", "2"]) == 64)
        #expect(runExitCode(["--filter", "colour=red"]) == 64)
        #expect(runExitCode(["--output", "results/"]) == 64)
        #expect(runExitCode(["--pager", "apollo-loadAll", "--drain", "abandon:0.3"]) == 64)
        #expect(runExitCode(["--drains", "5"]) == 0)
    }

    /// Bad input never touches the output file: a scenario file with bad content (65), a
    /// missing file (66), a flag that makes a valid scenario invalid (64).
    @Test func badInputExitsWithItsCodeAndLeavesTheOutputAlone() async throws {
        let directory = try temporaryDirectoryPath("pagebench-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/latest.csv"
        try "untouched\n".write(toFile: output, atomically: true, encoding: .utf8)
        let bad = directory + "/bad.json"
        try #"{"workload": {"concurrency": [1, -4]}}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        let good = directory + "/good.json"
        try Self.tinyScenario.write(toFile: good, atomically: true, encoding: .utf8)

        let (_, _, badContent) = await run([bad, "--output", output, "--quiet"])
        #expect(badContent?.exitStatus == ExitCodes.dataError)
        #expect(badContent?.message.contains("bad.json") == true)
        #expect(badContent?.message.contains("workload.concurrency") == true)

        let (_, _, missing) = await run([directory + "/missing.json", "--output", output, "--quiet"])
        #expect(missing?.exitStatus == ExitCodes.noInput)
        #expect(missing?.message.contains("missing.json") == true)

        let (_, _, overridden) = await run([good, "--read", "partition:9", "--output", output, "--quiet"])
        #expect(overridden?.exitStatus == ExitCodes.usage)
        #expect(overridden?.message.contains("workload.read") == true)

        let (_, _, storeFlag) = await run([good, "--partitions", "0", "--output", output, "--quiet"])
        #expect(storeFlag?.exitStatus == ExitCodes.usage)
        #expect(storeFlag?.message.contains("partitions") == true)

        #expect(try String(contentsOfFile: output, encoding: .utf8) == "untouched\n")
    }

    @Test func unwritableOutputExitsWith73() async throws {
        let directory = try temporaryDirectoryPath("pagebench-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = directory + "/tiny.json"
        try Self.tinyScenario.write(toFile: scenario, atomically: true, encoding: .utf8)
        try "x".write(toFile: directory + "/file", atomically: true, encoding: .utf8)
        let (_, _, failure) = await run([
            scenario, "--output", directory + "/file/latest.csv", "--quiet", "--drains", "1", "--concurrency", "1",
            "--repetitions", "1",
        ])
        #expect(failure?.exitStatus == ExitCodes.cannotCreate)
    }

    /// H10: `--count-instructions` counts in one process; the option its callgrind process
    /// gets is refused anywhere else, before anything runs or is written.
    @Test func instructionCountingIsRefusedWhereItCannotCount() async throws {
        #expect(runExitCode(["--count-instructions", "--workers", "2"]) == 64)
        #expect(runExitCode(["--count-instructions", "--shard", "0/2"]) == 64)
        let directory = try temporaryDirectoryPath("pagebench-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/out.csv"
        let (_, _, failure) = await run([
            "--drains", "2", "--concurrency", "1", "--quiet", "--instruction-dumps", directory + "/callgrind.out",
            "--output", output,
        ])
        #expect(failure?.exitStatus == ExitCodes.usage)
        #expect(failure?.message.contains("use --count-instructions") == true)
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// The callgrind run pages the same configurations (so its rows have the same identities)
    /// without what it must not do: judge SLOs on valgrind's latencies, rerun phases with timing
    /// off, repeat them, or run a stage plan (a time, not a number of pages).
    @Test func instructionCountingRunsEachConfigurationOnce() throws {
        var judged = try Scenario.load(json: Data(Self.tinyScenario.utf8), defaultName: "tiny")
        judged.slo = ["page_latency_p99_ns<1ms"]
        judged.workload.measureOverhead = true
        var staged = judged
        staged.name = "staged"
        staged.workload.stages = try StagePlan(parsing: "1s:2")
        let counted = RunSession.instructionScenarios([judged, staged])
        #expect(counted.map(\.name) == ["tiny"])
        #expect(counted[0].slo.isEmpty)
        #expect(!counted[0].workload.measureOverhead)
        #expect(counted[0].workload.repetitions == 1)
        #expect(counted[0].configurationHash == judged.configurationHash)
    }

    /// The count goes on the first repetition's row of each identity, once.
    @Test func instructionCountsGoOnTheFirstRepetition() {
        var rows: [ResultRow] = []
        for (scenario, repetition) in [("a", 1), ("a", 2), ("b", 1), ("c", 1)] {
            var row = ResultRow()
            row.scenario = scenario
            row.configHash = "00"
            row.pagerKind = "loop"
            row.concurrency = 2
            row.repetition = repetition
            rows.append(row)
        }
        let identity = { (name: String) in
            ResultIdentity(scenario: name, configHash: "00", pagerKind: "loop", concurrency: 2)
        }
        RunSession.apply(instructions: [identity("a"): 5_100.5, identity("b"): 6_000], to: &rows)
        #expect(rows.map(\.instructionsPerPage) == [5_100.5, nil, 6_000, nil])
    }

    @Test func runIsRegistered() {
        #expect(PagebenchCommand.configuration.subcommands.contains { $0 == RunCommand.self })
    }
}
