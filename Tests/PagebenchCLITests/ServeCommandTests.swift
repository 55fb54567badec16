import ArgumentParser
import Foundation
import PagebenchCLI
import PagebenchStore
import Testing

/// `serve --scenario FILE` (issue 25): the same file configures both sides of
/// `pagebench run FILE --target URL`.
@Suite struct ServeCommandTests {
    static let scenario = """
        {"name": "both-sides", "store": {"partitions": 3, "itemsPerPartition": 301, "seed": 9},
         "workload": {"concurrency": [2], "drains": 5, "limit": 7, "read": "partition:uniform"},
         "slo": ["error_rate<1%"]}
        """

    func serve(_ arguments: [String]) throws -> ServeCommand {
        try #require(try PagebenchCommand.parseAsRoot(["serve"] + arguments) as? ServeCommand)
    }

    @Test func serveTakesAScenarioFilesStoreSoBothSidesAgree() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-serve-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("both.json").path
        try Self.scenario.write(toFile: file, atomically: true, encoding: .utf8)
        let run = try #require(try PagebenchCommand.parseAsRoot(["run", file]) as? RunCommand)
        let expected = try #require(try run.options.scenarios().first).store
        let served = try serve(["--scenario", file]).makeServer().store.configuration
        #expect(served == expected)
        #expect(served.partitions == 3 && served.itemsPerPartition == .uniform(301))
        // Store flags override the file, on both sides alike.
        #expect(try serve(["--scenario", file, "--seed", "10"]).makeServer().store.configuration.seed == 10)
        // One source of the store.
        #expect(throws: CommandError.self) { _ = try serve(["--scenario", file, "--config", file]).makeServer() }
        let both = try serve(["--scenario", file, "--config", file])
        do {
            _ = try both.makeServer()
        } catch {
            #expect(error.exitStatus.rawValue == 64 && error.message.contains("--scenario and --config"))
        }
        let missing = try serve(["--scenario", directory.appendingPathComponent("missing.json").path])
        do {
            _ = try missing.makeServer()
            Issue.record("a missing scenario file was served")
        } catch {
            #expect(error.exitStatus.rawValue == 66)
        }
    }
}
