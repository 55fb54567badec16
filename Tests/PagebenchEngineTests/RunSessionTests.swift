import Foundation
import PagebenchEngine
import PagebenchHarness
import PagebenchMetrics
import PagebenchStore
import PagebenchTestSupport
import Testing

/// A run in-process, without a CLI or a child process: rows, files, SLO verdicts, repeats,
/// exit codes and interruption (H6) as ``RunSession`` reports them.
@Suite struct RunSessionTests {
    /// A small in-process store: 2 partitions of 200 items.
    static let store = StoreConfiguration(partitions: 2, itemsPerPartition: .uniform(200))

    /// `tiny` at 1 and 2 pagers, 4 drains a phase, one repetition.
    static func tiny(_ name: String = "tiny", configure: (inout Workload) -> Void = { _ in }) -> Scenario {
        scenario(name, store: store) { workload in
            workload.concurrency = [1, 2]
            workload.limit = 50
            workload.bound = .drains(4)
            workload.repetitions = 1
            configure(&workload)
        }
    }

    func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-engine-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func request(_ scenarios: [Scenario], output: String) throws -> RunRequest {
        var request = RunRequest(
            scenarios: try RunSession.scenarios(scenarios.map { .init($0, file: 0) }, sharded: false)
        )
        request.output = output
        request.quiet = true
        return request
    }

    @Test func aSessionRunsInProcessAndWritesOneRowPerPhase() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/rows.csv"
        var printed = ""
        let result = try await RunSession(try request([Self.tiny()], output: output)).run(into: &printed)
        #expect(printed.isEmpty)  // quiet
        #expect(result.rows.map(\.concurrency) == [1, 2])
        #expect(
            result.rows.allSatisfy { $0.scenario == "tiny" && $0.drains == 4 && $0.partial == 0 && $0.sloHeld == nil }
        )
        let written = try CSVFile.readResults(output)
        #expect(written.map(\.identity) == result.rows.map(\.identity))
        #expect(written.map(\.pages) == result.rows.map(\.pages))
    }

    @Test func slosAreMarkedOnTheRowsAndABreachIsExit99AfterWriting() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // In-process drains never fail: error_rate is 0 on every row.
        var held = try request([Self.tiny()], output: directory + "/held.csv")
        held.objectives = try RunObjectives(flags: ["error_rate<0.1%"], scenarios: held.scenarios)
        held.quiet = false
        var printed = ""
        let rows = try await RunSession(held).run(into: &printed).rows
        #expect(rows.allSatisfy { $0.sloHeld == 1 })
        #expect(printed.hasSuffix("every SLO held on every row: error_rate<0.001\n"), "\(printed)")

        var broken = try request([Self.tiny()], output: directory + "/broken.csv")
        broken.objectives = try RunObjectives(flags: ["error_rate>=0.5"], scenarios: broken.scenarios)
        do {
            try await RunSession(broken).run(into: &printed)
            Issue.record("a broken SLO must fail the run")
        } catch {
            #expect(error.isSLOBroken && error.exitStatus == ExitCodes.sloBroken)
            #expect(error.message.hasPrefix("2 SLO violations (results were written)"), "\(error.message)")
        }
        // Written before the failure, each row with its verdict.
        #expect(try CSVFile.readResults(directory + "/broken.csv").map(\.sloHeld) == [0, 0])
    }

    @Test func aScenarioNamedTwiceFromTwoFilesIsRefusedAsUsage() throws {
        #expect(throws: CommandError.self) {
            try RunSession.scenarios([.init(Self.tiny(), file: 0), .init(Self.tiny(), file: 1)], sharded: false)
        }
        do {
            _ = try RunSession.scenarios([.init(Self.tiny(), file: 0), .init(Self.tiny(), file: 1)], sharded: false)
        } catch {
            #expect(error.exitStatus == ExitCodes.usage && error.message.contains("scenario 'tiny' is given twice"))
        }
        // Points of one file's sweep are told apart by their labels.
        let points = try RunSession.scenarios(
            [.init(Self.tiny { $0.limit = 10 }, file: 0), .init(Self.tiny { $0.limit = 100 }, file: 0)],
            sharded: false
        )
        #expect(points.map(\.label) == ["limit=10", "limit=100"])
    }

    /// Requests the interruption when the first phase has ended: a marker, not a timer.
    final class InterruptAfterFirstPhase: PhaseObserver {
        let interruption: Interruption
        init(_ interruption: Interruption) { self.interruption = interruption }
        func phaseStarted(_ run: PhaseDescription) {}
        func progress(_ snapshot: ProgressSnapshot) {}
        func phaseEnded(_ run: PhaseDescription, result: PhaseResult) { interruption.request(signal: SIGINT) }
    }

    @Test func anInterruptedRunKeepsWhatItMeasuredAndExits130() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = directory + "/rows.csv"
        // Two phases (1 and 2 pagers); the signal comes as the first ends.
        var request = try request([Self.tiny()], output: output)
        let interruption = Interruption()
        request.observer = InterruptAfterFirstPhase(interruption)
        var printed = ""
        do {
            try await RunSession(request, interruption: interruption).run(into: &printed)
            Issue.record("an interrupted run must fail")
        } catch {
            #expect(error.signal == SIGINT && error.exitStatus.rawValue == 130)
            #expect(error.message == "interrupted by SIGINT: kept 1 row, none cut short", "\(error.message)")
        }
        let kept = try CSVFile.readResults(output)
        #expect(kept.count == 1 && kept.first?.partial == 0 && kept.first?.concurrency == 1 && kept.first?.drains == 4)
    }

    @Test func aRunInterruptedBeforeItBeganWritesNothing() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let interruption = Interruption()
        interruption.request(signal: SIGTERM)
        let session = RunSession(
            try request([Self.tiny()], output: directory + "/rows.csv"),
            interruption: interruption
        )
        var printed = ""
        do {
            try await session.run(into: &printed)
            Issue.record("an interrupted run must fail")
        } catch {
            #expect(error.exitStatus.rawValue == 143)
            #expect(error.message == "interrupted by SIGTERM: no phase had begun measuring; nothing was written")
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/rows.csv"))
    }

    @Test func aTargetFileThatIsMissingIs66AndAnInvalidOne65() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var missing = try request([Self.tiny()], output: directory + "/rows.csv")
        missing.targetFile = directory + "/no-such-target.json"
        var printed = ""
        await #expect { try await RunSession(missing).run(into: &printed) } throws: { error in
            (error as? CommandError)?.exitStatus == ExitCodes.noInput
        }
        try "{\"kind\": \"nonsense\"}".write(toFile: directory + "/bad.json", atomically: true, encoding: .utf8)
        var invalid = missing
        invalid.targetFile = directory + "/bad.json"
        await #expect { try await RunSession(invalid).run(into: &printed) } throws: { error in
            (error as? CommandError)?.exitStatus == ExitCodes.dataError
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/rows.csv"))
    }
}
