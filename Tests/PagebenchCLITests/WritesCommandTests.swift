import ArgumentParser
import Foundation
import PagebenchCLI
import PagebenchCLITestSupport
import PagebenchHarness
import PagebenchMetrics
import PagebenchStore
import Testing

/// The write flags (S22, S24) and where writes are refused: parsed and run in-process.
@Suite struct WritesCommandTests {
    struct Capture: TextOutputStream {
        var text = ""
        mutating func write(_ string: String) { text += string }
    }

    func run(_ arguments: [String]) async -> (SweepRunner.Output?, CommandError?) {
        let result = await runPagebench(arguments)
        return (result.output, result.failure)
    }

    static let small = [
        "--partitions", "2", "--items-per-partition", "40", "--item-size", "fixed:100", "--concurrency", "1",
        "--drains", "6", "--limit", "5", "--read", "partition:uniform", "--warmup", "0", "--quiet",
    ]

    @Test func writeFlagsBuildTheConfiguration() throws {
        let command = try #require(
            try PagebenchCommand.parseAsRoot([
                "items", "--insert-rate", "0.5", "--delete-rate", "0.25", "--write-rate-unit", "second",
                "--write-position", "tail", "--write-hot-partitions", "1,3", "--write-hot-fraction", "0.5",
                "--continuation", "offset",
            ]) as? ItemsCommand
        )
        let configuration = try command.store.configuration(writes: command.writes)
        #expect(
            configuration.writes
                == WritesConfiguration(
                    insertRate: 0.5,
                    deleteRate: 0.25,
                    per: .second,
                    position: .tail,
                    hotPartitions: [1, 3],
                    hotFraction: 0.5
                )
        )
        #expect(configuration.continuation == .offset)
        #expect(try StoreOptions.parse([]).configuration().writes == nil)
    }

    @Test func badWriteFlagsExitWith64() async {
        // A value out of range is refused when the configuration is built, naming the field.
        let (_, failure) = await run(Self.small + ["--insert-rate", "-1"])
        #expect(failure?.exitStatus.rawValue == 64 && failure?.message.contains("insertRate") == true)
        #expect(parseExitCode(["run", "--write-position", "middle"]) == 64)
        #expect(parseExitCode(["run", "--write-rate-unit", "minute"]) == 64)
        #expect(parseExitCode(["run", "--continuation", "cursor"]) == 64)
        #expect(parseExitCode(["run", "--write-hot-partitions", "a"]) == 64)
        #expect(parseExitCode(["run", "--insert-rate", "0.5", "--continuation", "offset"]) == 0)
    }

    /// S25 columns come out of `run` under writes: keyset drains neither repeat nor skip
    /// (S24); offset drains under head inserts repeat items.
    @Test func runReportsDuplicatesAndSkips() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-writes-\(UUID()).csv")
            .path
        defer { try? FileManager.default.removeItem(atPath: output) }
        for continuation in ["keyset", "offset"] {
            let (result, failure) = await run(
                Self.small + [
                    "--insert-rate", "1", "--write-position", "head", "--continuation", continuation, "--output",
                    output,
                ]
            )
            #expect(failure == nil)
            let row = try #require(result?.rows.first)
            if continuation == "keyset" {
                #expect(row.duplicateItems == 0 && row.skippedItems == 0 && row.inconsistentDrains == 0)
            } else {
                #expect((row.duplicateItems ?? 0) > 0 && (row.inconsistentDrains ?? 0) > 0)
            }
            #expect(row.harnessOverheadRatio == nil)
        }
        // Without writes the columns stay empty.
        let (plain, _) = await run(Self.small + ["--output", output])
        #expect(plain?.rows.first?.duplicateItems == nil)
    }

    /// Writes run in-process only: workers, shards and targets are refused naming why.
    @Test func writesAreRefusedWhereTheyCannotBeCounted() async throws {
        for extra in [["--workers", "2"], ["--shard", "0/2"], ["--target", "http://127.0.0.1:9"]] {
            let (_, failure) = await run(Self.small + ["--insert-rate", "1"] + extra)
            #expect(failure?.exitStatus.rawValue == 64, "\(extra)")
            #expect(failure?.message.contains("has writes (S22)") == true, "\(extra): \(failure?.message ?? "")")
        }
        // serve takes no write flag (issue 27: nor lists one in --help) …
        #expect(throws: (any Error).self) { _ = try PagebenchCommand.parseAsRoot(["serve", "--insert-rate", "1"]) }
        #expect(!ServeCommand.helpMessage().contains("--insert-rate"))
        #expect(!ServeCommand.helpMessage().contains("--write-"))
        #expect(RunCommand.helpMessage().contains("--insert-rate"))
        // … and refuses a configuration file with writes.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-writes-\(getpid()).json")
            .path
        try #"{"writes": {"insertRate": 1}}"#.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let serve = try #require(try PagebenchCommand.parseAsRoot(["serve", "--config", file]) as? ServeCommand)
        #expect(throws: CommandError.self) { _ = try serve.makeServer() }
    }

    /// Stages share one store across their rows, so S25's counts would mix stages: refused
    /// with writes; without writes `--stages` still passes the flag checks (H4).
    @Test func stagesWithWritesAreRefused() async {
        let plan = ["--partitions", "2", "--items-per-partition", "40", "--stages", "1s:1-2", "--quiet"]
        let (_, failure) = await run(plan + ["--insert-rate", "1"])
        #expect(failure?.exitStatus.rawValue == 64)
        #expect(failure?.message.contains("stages") == true && failure?.message.contains("writes") == true)
        #expect(parseExitCode(["run", "--stages", "1s:1-2"]) == 0)
    }
}
