import Foundation
import PagebenchCLI
import PagebenchCLITestSupport
import PagebenchHTTPClient
import PagebenchHTTPTestSupport
import PagebenchHarness
import PagebenchMetrics
import PagebenchPage
import PagebenchScaleOut
import PagebenchServer
import PagebenchStore
import PagebenchTestSupport
import PagebenchWire
import Testing

/// `pagebench run --target URL`: the same workload driven over HTTP gives the same
/// deterministic figures (H3) as in-process, and a server with another store is refused.
@Suite struct RunTargetTests {
    struct Capture: TextOutputStream {
        var text = ""
        mutating func write(_ string: String) { text += string }
    }

    static func scenarioFile(in directory: URL, seed: UInt64 = 7) throws -> String {
        var store = TestStores.configuration
        store.seed = seed
        let scenario = """
            {
              "name": "remote",
              "store": \(try store.jsonText()),
              "workload": { "pager": "streaming", "concurrency": [1, 3], "filter": "match", "limit": 7,
                            "drains": 15, "read": "partition:uniform" }
            }
            """
        let path = directory.appendingPathComponent("remote-\(seed).json").path
        try scenario.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Rows of the same phases, in-process and over HTTP, agree on every deterministic figure (H3).
    func expectSameDeterministicFigures(_ local: [ResultRow], _ remote: [ResultRow]) {
        #expect(local.count == remote.count)
        for (a, b) in zip(local, remote) {
            #expect(a.concurrency == b.concurrency)
            #expect(a.drains == b.drains)
            #expect(a.pages == b.pages)
            #expect(a.items == b.items)
            #expect(a.scannedBytes == b.scannedBytes)
            #expect(a.emptyPagesWasted == b.emptyPagesWasted)
            #expect(a.pages > 0)
        }
    }

    func run(_ arguments: [String]) async throws -> SweepRunner.Output {
        let result = await runPagebench(arguments)
        if let failure = result.failure { throw failure }
        return try #require(result.output)
    }

    @Test func h3RunOverHTTPGivesTheInProcessDeterministicFigures() async throws {
        let directory = try temporaryDirectory("pagebench-target")
        defer { try? FileManager.default.removeItem(at: directory) }
        let scenario = try Self.scenarioFile(in: directory)
        let local = try await run([scenario, "--quiet", "--output", directory.appendingPathComponent("local.csv").path])
        let server = StoreServer(store: try TestStores.store())
        let remote = try await withLiveServer(server) { target in
            try await run([
                scenario, "--quiet", "--target", target, "--output",
                directory.appendingPathComponent("remote.csv").path,
            ])
        }
        #expect(remote.rows.count == 2)
        #expect(remote.rows.allSatisfy { $0.scenario == "remote@http" })
        expectSameDeterministicFigures(local.rows, remote.rows)
    }

    /// The `pagebench` executable next to the test binary (`swift build` puts it there).
    static let pagebench: String? = {
        guard let tests = WorkerPool.currentExecutable else { return nil }
        let path = (tests as NSString).deletingLastPathComponent + "/pagebench"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    /// The client the worker test asks for: async-http-client when this build has it (the
    /// `AsyncHTTPClientSupport` trait), so that the option reaches the workers; else lean.
    static let workerClient = HTTPStoreSource.Client.asyncHTTPClient.isAvailable ? "async-http-client" : "lean"

    /// `--workers 2 --target URL --http-client CLIENT`: the worker processes page the served
    /// store with the client asked for, and their merged rows carry the same deterministic
    /// figures as one in-process run (H3).
    @Test(.enabled(if: pagebench != nil, "needs the pagebench executable: run `swift build` first"))
    func h3WorkersPageTheTargetAndMergeToTheInProcessFigures() async throws {
        let directory = try temporaryDirectory("pagebench-target")
        defer { try? FileManager.default.removeItem(at: directory) }
        let scenario = try Self.scenarioFile(in: directory)
        let local = try await run([scenario, "--quiet", "--output", directory.appendingPathComponent("local.csv").path])
        let server = StoreServer(store: try TestStores.store())
        let merged = try await withLiveServer(server) { target in
            var capture = Capture()
            let command = try #require(
                try PagebenchCommand.parseAsRoot([
                    "run", scenario, "--quiet", "--target", target, "--http-client", Self.workerClient, "--workers",
                    "2",
                    "--shard-output", directory.appendingPathComponent("shards").path,
                    "--output", directory.appendingPathComponent("merged.csv").path,
                ]) as? RunCommand
            )
            return try await command.execute(into: &capture, workerExecutable: Self.pagebench)
        }
        #expect(merged.rows.count == 2)
        #expect(merged.rows.allSatisfy { $0.scenario == "remote@http" })
        expectSameDeterministicFigures(local.rows, merged.rows)
        // Each worker's shard carries its HTTP responses: every page plus its /health check.
        var responses = HTTPStatusCounts()
        for index in 0..<2 {
            let shard = try ShardFile.read(
                path: directory.appendingPathComponent("shards/shard-\(index)-of-2.json").path
            )
            responses.add(HTTPStatusCounts(keyedCounts: try #require(shard.httpResponses)))
        }
        let pages = merged.rows.map(\.pages).reduce(0, +)
        #expect(responses == HTTPStatusCounts(byStatus: [200: pages + 2]))
        // `pagebench merge` of those shards prints the same sum.
        var capture = Capture()
        let merge = try #require(
            try PagebenchCommand.parseAsRoot([
                "merge", directory.appendingPathComponent("shards").path,
                "--output", directory.appendingPathComponent("remerged.csv").path,
            ]) as? MergeCommand
        )
        #expect(try merge.execute(into: &capture) == merged.rows)
        // Issue 25: the /health checks are in no row, and said apart.
        #expect(
            capture.text.contains(
                "HTTP responses of the 2 --target shards: 200=\(pages) transport=0 in the rows; 200=2 transport=0 outside them"
            ),
            "\(capture.text)"
        )
    }

    @Test func aServerWithAnotherStoreIsRefusedNamingBothStores() async throws {
        let directory = try temporaryDirectory("pagebench-target")
        defer { try? FileManager.default.removeItem(at: directory) }
        let scenario = try Self.scenarioFile(in: directory, seed: 8)
        let output = directory.appendingPathComponent("remote.csv").path
        let server = StoreServer(store: try TestStores.store())
        let failure: CommandError? = try await withLiveServer(server) { target in
            do {
                _ = try await run([scenario, "--quiet", "--target", target, "--output", output])
                return nil
            } catch let failure as CommandError {
                return failure
            }
        }
        let refused = try #require(failure)
        #expect(refused.exitStatus.rawValue == 65)
        #expect(refused.message.contains("pagebench serve"))
        // Issue 25: which fields differ, not only two hashes.
        #expect(refused.message.contains("they differ in seed 8 ≠ 7 (scenario ≠ served)"), "\(refused.message)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// T6 holds for every remote source, the served store too (issue 24): a server that
    /// answers `/health` as the scenario's store and a good first page of every drain, then
    /// HTTP 500 without a store error body, ended no drain: the phase failed, its row is
    /// written with the error counts and the run exits 69 (it exited 0).
    @Test func t6AServedStoreWhoseDrainsAllFailAfterTheFirstPageFailsThePhase() async throws {
        let directory = try temporaryDirectory("pagebench-target")
        defer { try? FileManager.default.removeItem(at: directory) }
        let scenario = try Self.scenarioFile(in: directory)
        let output = directory.appendingPathComponent("remote.csv").path
        let hash = TestStores.configuration.configurationHash
        let page = String(
            buffer: PageBody.encode(
                Page(items: [], scannedCount: 0, scannedBytes: 0, nextToken: "abc"),
                includePayload: false
            )
        )
        let server = try await ScriptedHTTPServer { _, _, line in
            if line.contains("/health") {
                return .respond(
                    ScriptedHTTPServer.response(
                        200,
                        #"{"status":"ok","configurationHash":"\#(hash)","partitions":5,"items":200}"#
                    )
                )
            }
            return .respond(
                line.contains("nextToken=")
                    ? ScriptedHTTPServer.response(500, "page two failed") : ScriptedHTTPServer.response(200, page)
            )
        }
        var failure: CommandError?
        do {
            _ = try await run([
                scenario, "--quiet", "--target", server.target, "--concurrency", "1", "--output", output,
            ])
        } catch let error as CommandError {
            failure = error
        }
        await server.shutdown()
        let refused = try #require(failure, "a phase in which every drain failed is not a result")
        #expect(refused.exitStatus.rawValue == 69)
        #expect(
            refused.message.contains("ended no drain in phase remote@http")
                && refused.message.contains("15 of 15 drains failed"),
            "\(refused.message)"
        )
        let row = try #require(try CSVFile.read(ResultRow.self, from: output).first)
        #expect(row.pages == 15 && row.drains == 0 && row.errors.total == 15)
        #expect(row.httpResponses == "200=15 500=15 transport=0")
    }

    /// Without the `AsyncHTTPClientSupport` trait, asking for async-http-client is a usage
    /// error (exit 64) that says how to build it in, before anything runs.
    @Test(.enabled(if: !HTTPStoreSource.Client.asyncHTTPClient.isAvailable))
    func asyncHTTPClientOutsideItsBuildIsAUsageErrorNamingTheTrait() throws {
        for arguments in [
            ["run", "scenario.json", "--target", "http://127.0.0.1:9", "--http-client", "async-http-client"],
            ["http-bench", "--target", "http://127.0.0.1:9", "--http-client", "async-http-client"],
        ] {
            #expect(throws: (any Error).self) { try PagebenchCommand.parseAsRoot(arguments) }
            do {
                _ = try PagebenchCommand.parseAsRoot(arguments)
            } catch {
                #expect(PagebenchCommand.exitCode(for: error).rawValue == 64, "\(arguments)")
                #expect(
                    PagebenchCommand.message(for: error).contains("--traits AsyncHTTPClientSupport"),
                    "\(arguments)"
                )
            }
        }
    }

    /// H5 over a served store: `pagebench knee … -- --target URL` runs every step against a
    /// `pagebench serve` process, writes every step's row (named SCENARIO@http, with its rate
    /// and verdict) and reports a knee. Behaviour only: a few short steps, no figure judged.
    @Test(.enabled(if: pagebench != nil, "needs the pagebench executable: run `swift build` first"))
    func kneeOverServeWritesEveryStepAndReportsAKnee() async throws {
        let directory = try temporaryDirectory("pagebench-target")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ServeProcess(arguments: [
            "--partitions", "5", "--items-per-partition", "40", "--item-size", "fixed:512", "--selectivity", "0.25",
            "--budget-bytes", "4096", "--seed", "7",
        ])
        defer { _ = server.stop() }
        let output = directory.appendingPathComponent("knee.csv").path
        let command = try #require(
            try PagebenchCommand.parseAsRoot([
                "knee", try Self.scenarioFile(in: directory), "--slo", "error_rate<1%", "--from", "20", "--max-rate",
                "80",
                "--step-duration", "0.4", "--pagers", "4", "--output", output, "--", "--target", server.target,
            ]) as? KneeCommand
        )
        var capture = Capture()
        let (result, steps) = try await command.execute(into: &capture)
        #expect(result.knee != nil)
        #expect(capture.text.contains("knee: "))
        #expect(capture.text.contains("wrote \(steps.count) step rows to \(output)"))
        let rows = try CSVFile.read(ResultRow.self, from: output)
        #expect(!rows.isEmpty && rows.count == result.steps.count)
        #expect(rows.map(\.plannedDrainsPerSecond) == result.steps.map(\.rate))
        #expect(rows.map { $0.sloHeld == 1 } == result.steps.map(\.held))
        #expect(
            rows.allSatisfy { $0.scenario == "remote@http" && $0.targetKind == "serve" && $0.loadModel == "open-fixed" }
        )
        // A short step may end inside every drain: its pages are then all cut off (issue 35). On a
        // loaded machine a 0.4 s step may even end before its first pager begins (pagers read the
        // phase's end before each drain, H6), so the run as a whole, not each step, did work.
        #expect(rows.allSatisfy { $0.concurrency == 4 })
        #expect(rows.reduce(0) { $0 + $1.pages + $1.cutOffPages } > 0)
    }
}
