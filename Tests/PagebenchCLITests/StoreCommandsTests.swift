import ArgumentParser
import Foundation
import PagebenchCLI
import PagebenchStore
import Testing

/// `pagebench items` and `pagebench pages`: parsed and run in-process, output and exit codes checked.
@Suite struct StoreCommandsTests {
    struct Capture: TextOutputStream {
        var text = ""
        mutating func write(_ string: String) { text += string }
        var lines: [[String: Any]] {
            text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
    }

    func parse<C: ParsableCommand>(_ arguments: [String], as type: C.Type) throws -> C {
        let command = try PagebenchCommand.parseAsRoot(arguments)
        return try #require(command as? C)
    }

    func pages(_ arguments: [String]) async throws -> (Capture, CommandError?) {
        let command = try parse(["pages"] + arguments, as: PagesCommand.self)
        var capture = Capture()
        do {
            try await command.execute(into: &capture)
            return (capture, nil)
        } catch {
            return (capture, error)
        }
    }

    let small = ["--partitions", "2", "--items-per-partition", "5", "--item-size", "fixed:100"]

    @Test func itemsPrintsEveryItemWithItsFilterVerdict() throws {
        let command = try parse(
            ["items"] + small + ["--filter", "match", "--selectivity", "0.4"],
            as: ItemsCommand.self
        )
        var capture = Capture()
        try command.execute(into: &capture)
        let lines = capture.lines
        #expect(lines.count == 10)
        #expect(lines.map { $0["partition"] as? Int } == [0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
        #expect(lines.map { $0["sortKey"] as? Int } == [0, 1, 2, 3, 4, 0, 1, 2, 3, 4])
        #expect(lines.allSatisfy { $0["sizeBytes"] as? Int == 100 })
        #expect(lines.filter { $0["matches"] as? Bool == true }.count == 4)
        #expect(lines.allSatisfy { ($0["matches"] as? Bool) == (($0["category"] as? Int) == 0) })
    }

    @Test func itemsHonoursRangeAndDirection() throws {
        let command = try parse(["items"] + small + ["--partition", "1", "--reverse"], as: ItemsCommand.self)
        var capture = Capture()
        try command.execute(into: &capture)
        #expect(capture.lines.map { $0["sortKey"] as? Int } == [4, 3, 2, 1, 0])
        #expect(capture.lines.allSatisfy { $0["partition"] as? Int == 1 && $0["matches"] as? Bool == true })
    }

    @Test func pagesFollowsTokensToTheEnd() async throws {
        let (capture, failure) = try await pages(small + ["--limit", "4"])
        #expect(failure == nil)
        let lines = capture.lines
        #expect(lines.map { $0["page"] as? Int } == [1, 2, 3])
        #expect(lines.map { $0["scanned"] as? Int } == [4, 4, 2])
        #expect(lines.map { $0["returned"] as? Int } == [4, 4, 2])
        #expect(lines.map { $0["scannedBytes"] as? Int } == [400, 400, 200])
        #expect(lines[0]["nextToken"] is String && lines[2]["nextToken"] is NSNull)
        let keys = lines.flatMap { ($0["keys"] as? [[Int]]) ?? [] }
        #expect(keys == (0..<2).flatMap { partition in (0..<5).map { [partition, $0] } })
    }

    @Test func pagesStopsAtMaxPagesAndContinuesFromToken() async throws {
        let (first, _) = try await pages(small + ["--limit", "3", "--max-pages", "1"])
        #expect(first.lines.count == 1)
        let token = try #require(first.lines[0]["nextToken"] as? String)
        let (rest, failure) = try await pages(small + ["--limit", "3", "--token", token])
        #expect(failure == nil)
        #expect(rest.lines.first?["keys"] as? [[Int]] == [[0, 3], [0, 4], [1, 0]])
        // The same token with another limit: 65, naming the change.
        let (_, mismatch) = try await pages(small + ["--limit", "4", "--token", token])
        #expect(mismatch?.exitStatus == ExitCodes.dataError)
        #expect(mismatch?.message.contains("limit was 3, now 4") == true)
        let (_, invalid) = try await pages(small + ["--token", "not-a-token"])
        #expect(invalid?.exitStatus == ExitCodes.dataError)
    }

    @Test func exactEndAndEmptyPagesAreVisible() async throws {
        let (capture, _) = try await pages(small + ["--limit", "5", "--partition", "0"])
        #expect(capture.lines.map { $0["scanned"] as? Int } == [5, 0])  // S6 continuation
        let (final, _) = try await pages(small + ["--limit", "5", "--partition", "0", "--exact-end", "final"])
        #expect(final.lines.map { $0["scanned"] as? Int } == [5])
        let (empty, _) = try await pages(small + ["--limit", "2", "--selectivity", "0", "--filter", "match"])
        #expect(empty.lines.dropLast().allSatisfy { $0["returned"] as? Int == 0 && $0["nextToken"] is String })
    }

    @Test func invalidArgumentsExitWith64() async throws {
        #expect(parseExitCode(["pages", "--segment", "1"]) == 64)
        #expect(parseExitCode(["pages", "--segment", "4", "--total-segments", "4"]) == 64)
        #expect(parseExitCode(["pages", "--partition", "1", "--segment", "0", "--total-segments", "2"]) == 64)
        #expect(parseExitCode(["pages", "--limit", "0"]) == 64)
        #expect(parseExitCode(["pages", "--item-size", "gauss:3"]) == 64)
        #expect(parseExitCode(["pages", "--filter", "colour=red"]) == 64)
        #expect(parseExitCode(["pages", "--budget-boundary", "sideways"]) == 64)
        #expect(parseExitCode(["items", "--clustering", "runs:x"]) == 64)
        let (_, unknown) = try await pages(small + ["--partition", "7"])
        #expect(unknown?.exitStatus == ExitCodes.usage)
        #expect(unknown?.message.contains("partitions 0 to 1") == true)
        let (_, invalid) = try await pages(["--partitions", "0"])
        #expect(invalid?.exitStatus == ExitCodes.usage)
        #expect(invalid?.message.contains("partitions") == true)
    }

    @Test func configFileIsLoadedAndFlagsOverrideIt() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("store.json")
        try Data(#"{"partitions": 3, "itemsPerPartition": 2, "itemSize": "fixed:10", "defaultLimit": 4}"#.utf8).write(
            to: file
        )
        let options = try parse(["pages", "--config", file.path, "--partitions", "1"], as: PagesCommand.self).store
        let configuration = try options.configuration()
        #expect(configuration.partitions == 1)  // the flag wins
        #expect(configuration.itemsPerPartition == .uniform(2) && configuration.defaultLimit == 4)
        let (capture, _) = try await pages(["--config", file.path])
        #expect(capture.lines.map { $0["scanned"] as? Int } == [4, 2])

        let (_, missing) = try await pages(["--config", directory.appendingPathComponent("none.json").path])
        #expect(missing?.exitStatus == ExitCodes.noInput)
        let bad = directory.appendingPathComponent("bad.json")
        try Data(#"{"partitions": -3}"#.utf8).write(to: bad)
        let (_, invalid) = try await pages(["--config", bad.path])
        #expect(invalid?.exitStatus == ExitCodes.dataError)
        #expect(invalid?.message.contains("partitions") == true)
    }

    @Test func injectedFailuresExitWith69() async throws {
        let (_, throttled) = try await pages(small + ["--throttle-rate", "1"])
        #expect(throttled?.exitStatus == ExitCodes.unavailable)
        #expect(throttled?.message.contains("throttled") == true)
    }

    @Test func theSubcommandsAreRegistered() {
        let names = PagebenchCommand.configuration.subcommands.map { $0._commandName }
        #expect(names.contains("items") && names.contains("pages"))
    }
}
