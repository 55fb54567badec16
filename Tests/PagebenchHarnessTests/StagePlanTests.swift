import PagebenchHarness
import Testing

/// H4: stages ramp linearly from the previous stage's target.
@Suite struct StagePlanTests {
    let second = 1_000_000_000

    @Test func parsesARampUpHoldAndRampDown() throws {
        let plan = try StagePlan(parsing: "30s:0-64,60s:64,30s:64-0")
        #expect(plan.target == .pagers)
        #expect(
            plan.stages == [
                .init(durationNanoseconds: 30 * second, start: 0, end: 64),
                .init(durationNanoseconds: 60 * second, start: 64, end: 64),
                .init(durationNanoseconds: 30 * second, start: 64, end: 0),
            ]
        )
        #expect(plan.durationNanoseconds == 120 * second)
        #expect(plan.peak == 64)
        #expect(plan.stageStartsNanoseconds == [0, 30 * second, 90 * second])
        // The text form round-trips.
        #expect(try StagePlan(parsing: plan.description) == plan)
    }

    @Test func pagerCountsFollowThePlanAtEverySampledInstant() throws {
        let plan = try StagePlan(parsing: "10s:0-100,5s:100,10s:100-20")
        // Sample every 10 ms of a manual clock: the count is the linear interpolation,
        // rounded to the nearest pager, and never leaves the stage's range.
        var previousStage = 0
        for t in stride(from: 0, through: 26 * second, by: 10_000_000) {
            let position = plan.position(atNanoseconds: t)
            let expected: Double
            switch t {
            case ..<(10 * second): expected = 100 * Double(t) / Double(10 * second)
            case ..<(15 * second): expected = 100
            case ..<(25 * second): expected = 100 - 80 * Double(t - 15 * second) / Double(10 * second)
            default: expected = 20
            }
            #expect(abs(position.value - expected) < 1e-9, "at \(t) ns")
            #expect(abs(Double(plan.pagers(atNanoseconds: t)) - expected) <= 0.5 + 1e-9)
            #expect(position.stage >= previousStage)
            previousStage = position.stage
        }
        #expect(plan.position(atNanoseconds: 10 * second).stage == 1)  // a boundary starts the next stage
        #expect(plan.pagers(atNanoseconds: -5) == 0)
    }

    @Test func openLoopRates() throws {
        let plan = try StagePlan(parsing: "20s:100/s-2000/s")
        #expect(plan.target == .rate)
        #expect(plan.position(atNanoseconds: 10 * second).value == 1050)
        #expect(plan.description == "20s:100/s-2000/s")
        let held = try StagePlan(parsing: "5s:50/s, 10s:200/s")
        #expect(held.stages[0].start == 0 && held.stages[1].start == 50)
    }

    @Test func anExplicitStartJumps() throws {
        let plan = try StagePlan(parsing: "1s:8,1s:32-16")
        #expect(plan.stages[1].start == 32)
        #expect(plan.pagers(atNanoseconds: second) == 32)
    }

    @Test(arguments: [
        ("", "DURATION:TARGET"),
        ("30s", "DURATION:TARGET"),
        ("30:64", "not a duration"),
        ("30s:64,10s:100/s", "not both"),
        ("30s:1-2-3", "FROM-TO"),
        ("30s:abc", "not a number"),
        ("30s:1.5", "whole number"),
        ("0s:10", "at least 1ms"),
        ("10s:0", "0 pagers"),
        ("10s:0/s", "rate 0"),
        ("10s:nan", "not a number"),
        // Issue 24: the plan's length was summed unchecked (a trap past Int64 nanoseconds).
        ("50000s:1,50000s:1", "stages[1]: the stages last more than 24h"),
    ])
    func malformedPlansAreRefusedNamingTheStage(text: String, complaint: String) {
        do {
            _ = try StagePlan(parsing: text)
            Issue.record("'\(text)' was accepted")
        } catch {
            #expect(error.kind == .invalidScenario)
            #expect(error.description.contains(complaint), "\(error.description)")
        }
    }

    /// Issue 24: 10,300 stages of 900,000 s summed past Int64 nanoseconds and trapped (also
    /// under --print-scenarios); a plan has at most 1,000 stages, each holding its own
    /// histograms for the phase.
    @Test func manyStagesAreRefusedBeforeTheirLengthIsSummed() {
        for (count, complaint) in [(10_300, "has 10300 stages; a plan has at most 1000"), (1_001, "has 1001 stages")] {
            let text = Array(repeating: "900000s:1", count: count).joined(separator: ",")
            #expect {
                try StagePlan(parsing: text)
            } throws: { error in
                (error as? HarnessError)?.description.contains(complaint) == true
            }
        }
        #expect((try? StagePlan(parsing: Array(repeating: "1ms:1", count: 1_000).joined(separator: ","))) != nil)
    }

    /// Issue 24: a plan built in code is bounded as one parsed from text is.
    @Test func aPlanLongerThanADayIsRefusedWhereverItComesFrom() throws {
        let day = StagePlan.maximumDurationNanoseconds
        #expect(throws: HarnessError.self) {
            try StagePlan(target: .pagers, stages: [.init(durationNanoseconds: Int.max, start: 1, end: 1)])
        }
        #expect(throws: HarnessError.self) {
            try StagePlan(
                target: .pagers,
                stages: [
                    .init(durationNanoseconds: day, start: 1, end: 1),
                    .init(durationNanoseconds: 1_000_000, start: 1, end: 1),
                ]
            )
        }
        let whole = try StagePlan(target: .pagers, stages: [.init(durationNanoseconds: day, start: 1, end: 1)])
        var workload = Workload()
        workload.setStages(whole)
        #expect(workload.bound == .duration(seconds: 86_400))
    }
}
