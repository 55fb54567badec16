import Foundation
import PagebenchEngine
import PagebenchHarness
import PagebenchMetrics
import PagebenchTestSupport
import Testing

/// A knee search in-process (H5): each step a ``RunSession`` of the request the caller makes
/// for its rate, judged by the search, every step's row written.
@Suite struct KneeSessionTests {
    @Test func aSearchWhoseSLOAlwaysHoldsStopsAtTheMaximumRateWithEveryStepWritten() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-knee-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let base = RunSessionTests.tiny()
        // In-process drains never fail: error_rate<0.1% holds at every rate; no throughput floor.
        let search = try KneeSearch(startRate: 5, maxRate: 10, resolution: 0.05, maxSteps: 4, minAchievedFraction: 0)
        var request = KneeRequest(
            scenarioFile: nil, sloExpressions: ["error_rate<0.1%"], search: search, startRate: 5, stepDuration: 0.2, pagers: 2,
            output: directory + "/knee.csv"
        ) { rate, output throws(RunError) in
            var scenario = base
            do {
                scenario.workload.load = try LoadModel(parsing: "open-fixed:\(rate)")
            } catch {
                throw RunError(wrapping: error)
            }
            scenario.workload.bound = .duration(seconds: 0.2)
            scenario.workload.concurrency = [2]
            var step = RunRequest(scenarios: [scenario])
            step.output = output
            step.quiet = true
            return step
        }
        request.quiet = true
        var printed = ""
        let (result, steps) = try await KneeSession(request).run(into: &printed)
        #expect(result.ending == .heldAtMaxRate && result.knee == 10)
        #expect(steps.map(\.rate) == [5, 10] && steps.allSatisfy { $0.held && $0.row.sloHeld == 1 })
        #expect(printed == KneeSession.summary(result, steps: steps) + "\n")
        #expect(try CSVFile.readResults(directory + "/knee.csv").map(\.sloHeld) == [1, 1])
    }

    @Test func uncorrectedLatencyAndNoSLOAreRefusedAsUsage() {
        for flags in [[], ["drain_latency_p99_ns<10ms"], ["page_latency_p99_ns<5ms"]] {
            do {
                _ = try KneeSession.objectives(scenario: nil, file: nil, flags: flags)
                Issue.record("\(flags) must be refused")
            } catch {
                #expect(error.exitStatus == ExitCodes.usage, "\(flags)")
            }
        }
        #expect((try? KneeSession.objectives(scenario: nil, file: nil, flags: ["drain_latency_corrected_p99_ns<10ms"]))?.count == 1)
    }
}
