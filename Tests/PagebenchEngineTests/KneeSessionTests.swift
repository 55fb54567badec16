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
            scenarioFile: nil,
            sloExpressions: ["error_rate<0.1%"],
            search: search,
            startRate: 5,
            stepDuration: 0.2,
            pagers: 2,
            output: directory + "/knee.csv"
        ) { rate, output throws(CommandError) in
            var scenario = base
            do {
                scenario.workload.load = try LoadModel(parsing: "open-fixed:\(rate)")
            } catch {
                throw CommandError(wrapping: error)
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
        // Issue 35: the achieved rate the search judged is the row's started_drains_per_s.
        #expect(steps.allSatisfy { $0.verdict?.achievedRate == $0.row.startedDrainsPerSecond })
        #expect(
            try CSVFile.readResults(directory + "/knee.csv").map(\.startedDrainsPerSecond)
                == steps.map(\.row.startedDrainsPerSecond)
        )
    }

    /// A step at 200 drains/s offered on 64 pagers whose drains take 0.4 s: the pool can start
    /// at most 160 drains/s (Little's law), it missed starts, and page latency stayed flat.
    static func poolLimitedStep(pageP50: UInt64 = 2_000_000) -> ResultRow {
        var row = ResultRow.fixture()
        row.loadModel = "open-fixed"
        row.plannedDrainsPerSecond = 200
        row.startedDrainsPerSecond = 158
        row.drainsPerSecond = 150
        row.concurrency = 64
        row.missedStarts = 400
        row.targetDurationSeconds = 10
        row.durationSeconds = 10
        row.cores = 8
        row.cpuUserSeconds = 4
        row.cpuSystemSeconds = 1
        row.drainLatency = LatencyPercentiles(
            p50Nanoseconds: 400_000_000,
            p90Nanoseconds: 450_000_000,
            p99Nanoseconds: 500_000_000,
            p999Nanoseconds: 500_000_000,
            maxNanoseconds: 500_000_000
        )
        row.pageLatency = LatencyPercentiles(
            p50Nanoseconds: pageP50,
            p90Nanoseconds: pageP50,
            p99Nanoseconds: pageP50,
            p999Nanoseconds: pageP50,
            maxNanoseconds: pageP50
        )
        return row
    }

    /// Issue 35, the thresholds calibrated (results/knee-client-limit.md): the knee step at 120
    /// drains/s on 4 pagers against `serve` at 5 ms a page (an API without a limit of its own)
    /// started 106 drains/s, missed 229 starts, page latency flat: the pool limited it, at 0.73
    /// of its capacity by Little's law (4 ÷ 27.5 ms median drain = 145 drains/s), under the 0.8
    /// that called it the API's knee before. A step that missed 5 % of its starts at the pool's
    /// capacity (a few slow drains) is not said to be limited by the pool.
    @Test func aStepLimitedByThePoolOnALoadedMachineIsSaidToBeSo() throws {
        var first = ResultRow.fixture()
        first.loadModel = "open-fixed"
        first.concurrency = 4
        first.cores = 2
        first.pageLatency = LatencyPercentiles(
            p50Nanoseconds: 5_799_935,
            p90Nanoseconds: 6_000_000,
            p99Nanoseconds: 7_000_000,
            p999Nanoseconds: 7_000_000,
            maxNanoseconds: 7_000_000
        )
        var step = first
        step.plannedDrainsPerSecond = 120
        step.startedDrainsPerSecond = 106
        step.missedStarts = 229
        step.targetDurationSeconds = 3
        step.durationSeconds = 3.02
        step.cpuUserSeconds = 0.165
        step.cpuSystemSeconds = 0.041
        step.drainLatency = LatencyPercentiles(
            p50Nanoseconds: 27_525_119,
            p90Nanoseconds: 40_000_000,
            p99Nanoseconds: 60_000_000,
            p999Nanoseconds: 60_000_000,
            maxNanoseconds: 60_000_000
        )
        step.pageLatency = LatencyPercentiles(
            p50Nanoseconds: 6_225_919,
            p90Nanoseconds: 7_000_000,
            p99Nanoseconds: 8_000_000,
            p999Nanoseconds: 8_000_000,
            maxNanoseconds: 8_000_000
        )
        guard
            case .pagerPool(let pagers, let missed, let capacity, _, let needed) = KneeSession.clientLimit(
                of: step,
                first: first
            )
        else {
            Issue.record("the pool limited this step")
            return
        }
        #expect(pagers == 4 && missed == 229 && needed > 4)
        #expect((capacity - 145.3).magnitude < 0.1, "\(capacity)")
        // A debug build's pool-limited step read page p50 1.54 times its first step's (its client
        // CPU per page on a loaded machine): still the pool's, under the 2 that a saturated API
        // exceeded (1.5 before).
        var debugStep = step
        debugStep.pageLatency = LatencyPercentiles(
            p50Nanoseconds: 8_931_900,
            p90Nanoseconds: 9_000_000,
            p99Nanoseconds: 9_000_000,
            p999Nanoseconds: 9_000_000,
            maxNanoseconds: 9_000_000
        )
        #expect(KneeSession.clientLimit(of: debugStep, first: first) != nil)
        var fewMissed = step
        fewMissed.startedDrainsPerSecond = 140
        fewMissed.missedStarts = 21  // 5 % of 420 starts
        #expect(KneeSession.clientLimit(of: fewMissed, first: first) == nil)
    }

    /// Issue 35: a step that pagebench's own pager pool limited (every pager busy, the rate at the
    /// pool's capacity, page latency flat) or its own CPU is said to be so, on the step and in the
    /// knee line, with the pagers it would take, instead of reporting a knee of the API.
    @Test func aStepLimitedByThePagerPoolOrTheClientCPUIsNotTheAPIsKnee() throws {
        var first = Self.poolLimitedStep()
        first.missedStarts = 0
        let limited = Self.poolLimitedStep()
        let limit = try #require(KneeSession.clientLimit(of: limited, first: first))
        #expect(limit == .pagerPool(pagers: 64, missedStarts: 400, capacity: 160, medianDrainSeconds: 0.4, needed: 100))
        // The API slowed down (page p50 3 times the first step's): its limit too, not only the pool's.
        #expect(KneeSession.clientLimit(of: Self.poolLimitedStep(pageP50: 6_000_000), first: first) == nil)
        #expect(KneeSession.clientLimit(of: first, first: first) == nil)
        var busy = first
        busy.cores = 2
        busy.cpuUserSeconds = 15
        busy.cpuSystemSeconds = 4
        #expect(KneeSession.clientLimit(of: busy, first: first) == .clientCPU(busyCores: 1.9, cores: 2))

        let search = try KneeSearch(
            startRate: 100,
            maxRate: 400,
            resolution: 0.05,
            maxSteps: 2,
            minAchievedFraction: 0.95
        )
        let held = search.judge(rate: 100, achievedRate: 100, sloHeld: true)
        let broke = search.judge(rate: 200, achievedRate: 158, sloHeld: true)
        let steps = [
            KneeSession.Step(rate: 100, row: first, held: true, violations: [], verdict: held),
            KneeSession.Step(rate: 200, row: limited, held: false, violations: [], verdict: broke),
        ]
        let line = KneeSession.describe(steps[1], number: 2, objectives: [], first: first)
        #expect(line.contains("limited by pagebench's pager pool, not the API"), "\(line)")
        #expect(line.contains("--pagers 100"), "\(line)")
        #expect(line.contains("started 158 drains/s = 0.790 of the rate, completed 150 drains/s"), "\(line)")
        var recorded = search
        #expect(recorded.next() == .measure(rate: 100))
        recorded.record(held)
        #expect(recorded.next() == .measure(rate: 200))
        recorded.record(broke)
        guard case .finished(let result) = recorded.next() else {
            Issue.record("two steps of at most two: the search ends")
            return
        }
        let summary = KneeSession.summary(result, steps: steps)
        #expect(summary.hasPrefix("knee: not the API's: every SLO held up to 100 drains/s"), "\(summary)")
        #expect(summary.contains("pager pool"), "\(summary)")
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
        #expect(
            (try? KneeSession.objectives(scenario: nil, file: nil, flags: ["drain_latency_corrected_p99_ns<10ms"]))?
                .count == 1
        )
    }
}
