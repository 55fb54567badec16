import ArgumentParser
import Foundation
import PagebenchCLI
import PagebenchHarness
import PagebenchMetrics
import PagebenchScaleOut
import Testing

#if canImport(Glibc)
import Glibc
import PagebenchCLITestSupport
import PagebenchTestSupport
#endif

/// `pagebench run --shard/--start-at/--workers` and `pagebench merge`: shards run in-process
/// merge to the one-process figures; bad flags exit 64, bad shards 65, missing ones 66; a
/// killed worker fails the run with 71 and keeps the finished shards.
@Suite struct ScaleOutCommandTests {
    struct Capture: TextOutputStream {
        var text = ""
        mutating func write(_ string: String) { text += string }
    }

    static let scenario = """
        {
          "name": "tiny",
          "store": { "partitions": 6, "itemsPerPartition": 250, "itemSize": "fixed:100", "selectivity": 0.2, "clustering": "runs:15" },
          "workload": { "pager": "streaming", "concurrency": [1, 3], "filter": "match", "limit": 10, "drains": 23,
                        "drain": "abandon:0.1", "warmupSeconds": 0 }
        }
        """

    /// The `pagebench` executable beside the test bundle: built by `swift build` (as
    /// `.ci/run` does before `swift test`), not by `swift test` alone.
    static let pagebench: String? = {
        guard let tests = WorkerPool.currentExecutable else { return nil }
        let path = (tests as NSString).deletingLastPathComponent + "/pagebench"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    func temporaryDirectory() throws -> String {
        let url = try PagebenchTestSupport.temporaryDirectory("pagebench-scaleout")
        try Self.scenario.write(toFile: url.path + "/tiny.json", atomically: true, encoding: .utf8)
        return url.path
    }

    func run(
        _ arguments: [String],
        executable: String? = nil,
        launched: @escaping @Sendable (Int, Int32) -> Void = { _, _ in }
    ) async -> (SweepRunner.Output?, CommandError?) {
        let result = await runPagebench(arguments, workerExecutable: executable, workerLaunched: launched)
        return (result.output, result.failure)
    }

    func merge(_ arguments: [String]) -> ([ResultRow]?, CommandError?) {
        var capture = Capture()
        do {
            let command = try #require(try PagebenchCommand.parseAsRoot(["merge"] + arguments) as? MergeCommand)
            return (try command.execute(into: &capture), nil)
        } catch let failure as CommandError {
            return (nil, failure)
        } catch {
            Issue.record("unexpected \(error)")
            return (nil, nil)
        }
    }

    func parseExitCode(_ arguments: [String]) -> (Int32, String) {
        do {
            _ = try PagebenchCommand.parseAsRoot(arguments)
            return (0, "")
        } catch {
            return (PagebenchCommand.exitCode(for: error).rawValue, PagebenchCommand.message(for: error))
        }
    }

    static func deterministic(_ row: ResultRow) -> [String] {
        [
            row.scenario, row.configHash, String(row.concurrency), String(row.drains), String(row.pages),
            String(row.items), "\(row.scannedItems as Int?)", "\(row.scannedBytes as Int?)",
            String(row.emptyPagesWasted),
            String(row.emptyPagesFinal), String(row.pagesPerDrainMean), String(row.pagesPerDrainMax),
        ]
    }

    @Test func invalidScaleOutFlagsExit64() {
        let past = RunContext.timestamp(Date().addingTimeInterval(-120))
        for (arguments, expected) in [
            (["run", "--shard", "4/4"], "the index must be between 0 and 3"),
            (["run", "--shard", "x"], "expected INDEX/COUNT"),
            (["run", "--workers", "0"], "--workers must be between 1"),
            (["run", "--workers", "2", "--shard", "0/2"], "exclude each other"),
            (["run", "--shard", "0/2", "--output", "x.csv"], "--output does not apply to --shard"),
            (["run", "--shard", "0/2", "--history", "h.csv"], "--history does not apply to --shard"),
            (["run", "--workers", "2", "--timeseries", "t.csv"], "--timeseries is not supported with --workers"),
            (["run", "--start-at", "tomorrow"], "ISO 8601"),
            (["run", "--start-at", past], "s in the past"),
        ] {
            let (code, message) = parseExitCode(arguments)
            #expect(code == 64, "\(arguments)")
            #expect(message.contains(expected), "\(arguments): \(message)")
        }
        #expect(parseExitCode(["merge"]).0 == 64)
    }

    @Test func measuringOverheadCannotBeSharded() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (_, failure) = await run([
            directory + "/tiny.json", "--shard", "0/2", "--measure-overhead", "--shard-output", directory,
        ])
        #expect(failure?.exitStatus == ExitCodes.usage)
        #expect(failure?.message.contains("cannot merge") == true)
    }

    /// Issue 12: `--shard-output` is checked before anything is measured, as `--output` is
    /// (exit 73 naming the flag), not after the run: a file where the directory goes, or a
    /// directory where the shard file goes.
    @Test func anUnwritableShardOutputIsRefusedBeforeTheRun() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "a file, not a directory".write(toFile: directory + "/file", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(
            atPath: directory + "/shards/shard-1-of-2.json",
            withIntermediateDirectories: true
        )
        for (shardOutput, problem) in [
            (directory + "/file", "is not a directory"), (directory + "/shards", "it is a directory"),
        ] {
            let (output, failure) = await run([
                directory + "/tiny.json", "--shard", "1/2", "--shard-output", shardOutput, "--quiet",
            ])
            #expect(output == nil)
            #expect(failure?.exitStatus == ExitCodes.cannotCreate)
            let message = failure?.message ?? ""
            // The precheck's words, not those of a write that failed after the run.
            #expect(message.hasPrefix("--shard-output ") && message.contains(problem), "\(message)")
        }
    }

    /// Two shards run in this process one after the other, merged by `pagebench merge`, give
    /// the rows of one unsharded run (deterministic columns, H3).
    @Test func shardsRunSeparatelyMergeToTheWholeRun() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = directory + "/tiny.json"
        let (whole, wholeFailure) = await run([scenario, "--output", directory + "/whole.csv", "--quiet"])
        #expect(wholeFailure == nil)
        // Both shards at once, as independently launched workers would run, from a common
        // start ahead (the harness sleeps until then; nothing here is timed). 20 s ahead: with
        // every suite running at once on two cores, a task may not run for tens of seconds,
        // and a start more than 5 s in the past is refused (0.2 s ahead failed that way).
        let start = StartTime(date: Date().addingTimeInterval(20)).description
        func shard(_ index: Int) -> [String] {
            [
                scenario, "--shard", "\(index)/2", "--start-at", start, "--shard-output", directory + "/shards",
                "--quiet",
            ]
        }
        async let first = run(shard(0))
        async let second = run(shard(1))
        for (output, failure) in await [first, second] {
            #expect(failure == nil, "\(failure?.message ?? "")")
            #expect(output?.rows.count == 2)
        }
        let shard0 = try ShardFile.read(path: directory + "/shards/shard-0-of-2.json")
        #expect(shard0.startAt == start)
        #expect(shard0.phases.map(\.pagers) == [1, 2])
        // ×3: shard 0 runs slots 0 and 2, so drains d with d mod 3 ∈ {0, 2}: 8 + 7 of 23.
        #expect(shard0.phases.map(\.drains) == [23, 15])

        let (rows, failure) = merge([directory + "/shards", "--output", directory + "/merged.csv"])
        #expect(failure == nil)
        let written = try CSVFile.read(ResultRow.self, from: directory + "/merged.csv")
        #expect(written == rows)
        #expect(written.map(Self.deterministic) == (whole?.rows ?? []).map(Self.deterministic))
        #expect(written.allSatisfy { $0.plannedDrains == 23 })

        // One shard alone, a shard twice, a missing path.
        let (_, missing) = merge([directory + "/shards/shard-0-of-2.json", "--output", directory + "/m.csv"])
        #expect(missing?.exitStatus == ExitCodes.dataError)
        #expect(missing?.message.contains("missing shard 1/2") == true)
        let (_, twice) = merge([
            directory + "/shards", directory + "/shards/shard-1-of-2.json", "--output", directory + "/m.csv",
        ])
        #expect(twice?.exitStatus == ExitCodes.dataError)
        let (_, absent) = merge([directory + "/nowhere", "--output", directory + "/m.csv"])
        #expect(absent?.exitStatus == ExitCodes.noInput)
        #expect(!FileManager.default.fileExists(atPath: directory + "/m.csv"))

        // A file that is not a shard.
        try "name,value\n".write(toFile: directory + "/shards/shard-9-of-9.json", atomically: true, encoding: .utf8)
        let (_, garbage) = merge([directory + "/shards", "--output", directory + "/m.csv"])
        #expect(garbage?.exitStatus == ExitCodes.dataError)
        #expect(garbage?.message.contains("shard-9-of-9.json: not a JSON object") == true, "\(garbage?.message ?? "")")
    }

    @Test(.enabled(if: pagebench != nil, "needs the pagebench executable: run `swift build` first"))
    func workersRunTheShardsAsProcessesAndMerge() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = directory + "/tiny.json"
        let (whole, _) = await run([scenario, "--output", directory + "/whole.csv", "--quiet"])
        let (merged, failure) = await run(
            [
                scenario, "--workers", "2", "--shard-output", directory + "/shards", "--output",
                directory + "/merged.csv", "--quiet",
            ],
            executable: Self.pagebench
        )
        #expect(failure == nil, "\(failure?.message ?? "")")
        let rows = try CSVFile.read(ResultRow.self, from: directory + "/merged.csv")
        #expect(rows == merged?.rows)
        #expect(rows.map(Self.deterministic) == (whole?.rows ?? []).map(Self.deterministic))
        #expect(FileManager.default.fileExists(atPath: directory + "/shards/shard-1-of-2.json"))
        #expect(FileManager.default.fileExists(atPath: directory + "/shards/scenarios/1-tiny.json"))
    }

    /// A worker killed with SIGKILL: the run fails with 71, names the worker and the signal,
    /// writes no CSV, and keeps the shard of the worker that finished.
    @Test(.enabled(if: pagebench != nil, "needs the pagebench executable: run `swift build` first"))
    func aKilledWorkerFailsTheRunAndKeepsTheFinishedShards() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A stale shard of an earlier run must not survive into this one.
        try FileManager.default.createDirectory(atPath: directory + "/shards", withIntermediateDirectories: true)
        try "stale".write(toFile: directory + "/shards/shard-1-of-2.json", atomically: true, encoding: .utf8)
        let (_, failure) = await run(
            [
                directory + "/tiny.json", "--workers", "2", "--shard-output", directory + "/shards", "--output",
                directory + "/merged.csv", "--quiet",
            ],
            executable: Self.pagebench,
            launched: { index, pid in if index == 1 { kill(pid, SIGKILL) } }
        )
        #expect(failure?.exitStatus == ExitCodes.workerFailed)
        let message = failure?.message ?? ""
        #expect(message.contains("worker 1 (shard 1/2, pid "), "\(message)")
        #expect(message.contains("was killed by signal 9 (SIGKILL)"), "\(message)")
        #expect(message.contains("kept the shards that finished: \(directory)/shards/shard-0-of-2.json"), "\(message)")
        #expect(!message.contains("worker 0"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/merged.csv"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/shards/shard-1-of-2.json"))
        #expect(try ShardFile.read(path: directory + "/shards/shard-0-of-2.json").shard.index == 0)
    }
}
