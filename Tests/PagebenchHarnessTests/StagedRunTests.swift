import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchProcessStats
import PagebenchStore
import PagebenchTestSupport
import Synchronization
import Testing

@testable import PagebenchHarness

/// docs/contract.md H4: a staged run follows its plan on a manual clock. Pagers are admitted and
/// removed without stopping the others, a removed pager finishes or is cancelled (H2), every
/// stage gets its own result, and no pager task outlives the run.
@Suite struct StagedRunTests {
    static let second = 1_000_000_000
    static let store = StoreConfiguration(partitions: 1, itemsPerPartition: .uniform(10))

    /// Page requests that wait until the test releases them (or their task is cancelled):
    /// `inFlight` is the number of pagers inside a drain.
    final class Gate: Sendable {
        private struct State {
            var nextID: UInt64 = 0
            var held: [UInt64: CheckedContinuation<Void, any Error>] = [:]
            var inFlight = 0
            var fetches = 0
            /// Tasks in ``waitUntil(inFlight:)``, each with the count it waits for.
            var waiters = CancellableWaiters<Int, Void>()

            mutating func settled() -> [CheckedContinuation<Void, any Error>] {
                var ready: [CheckedContinuation<Void, any Error>] = []
                while let waiter = waiters.removeFirst(where: { [inFlight] in $0 == inFlight }) { ready.append(waiter) }
                return ready
            }
        }

        private let state = Mutex(State())

        var inFlight: Int { state.withLock { $0.inFlight } }
        var fetches: Int { state.withLock { $0.fetches } }

        func hold() async throws {
            let id = state.withLock { state -> UInt64 in
                state.nextID += 1
                return state.nextID
            }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let (cancelled, ready) = state.withLock { state -> (Bool, [CheckedContinuation<Void, any Error>]) in
                        if Task.isCancelled { return (true, []) }
                        state.held[id] = continuation
                        state.inFlight += 1
                        state.fetches += 1
                        return (false, state.settled())
                    }
                    if cancelled { continuation.resume(throwing: CancellationError()) }
                    for waiter in ready { waiter.resume() }
                }
            } onCancel: {
                let (held, ready) = state.withLock {
                    state -> (CheckedContinuation<Void, any Error>?, [CheckedContinuation<Void, any Error>]) in
                    guard let held = state.held.removeValue(forKey: id) else { return (nil, []) }
                    state.inFlight -= 1
                    return (held, state.settled())
                }
                held?.resume(throwing: CancellationError())
                for waiter in ready { waiter.resume() }
            }
        }

        /// Lets every held request return its page.
        func releaseAll() {
            let (held, ready) = state.withLock {
                state -> ([CheckedContinuation<Void, any Error>], [CheckedContinuation<Void, any Error>]) in
                let held = Array(state.held.values)
                state.held = [:]
                state.inFlight = 0
                return (held, state.settled())
            }
            for continuation in held { continuation.resume() }
            for waiter in ready { waiter.resume() }
        }

        /// Returns once exactly `count` requests are held; throws `CancellationError` if the
        /// test is cancelled first (past its time limit).
        func waitUntil(inFlight count: Int) async throws {
            let waiter = state.withLock { $0.waiters.makeID() }
            try await CancellableWaiters<Int, Void>.wait { continuation in
                state.withLock { state in
                    guard state.inFlight != count else {
                        continuation.resume()
                        return nil
                    }
                    return state.waiters.keep(continuation, id: waiter, condition: count)
                }
            } cancel: {
                state.withLock { $0.waiters.cancel(id: waiter) }
            }
        }
    }

    /// One page per drain, held at the gate.
    struct HeldSource: PageSource {
        let gate: Gate

        func fetch(_ request: PageRequest) async throws -> Page {
            try await gate.hold()
            return Page(items: [], scannedCount: 1, scannedBytes: 10, nextToken: nil)
        }
    }

    /// A staged run over a ``HeldSource`` on a manual clock.
    struct Staged {
        let plan: StagePlan
        let clock = ManualClock()
        let gate = Gate()
        let runner: PhaseRunner<HeldSource>

        init(_ stages: String, rampDown: RampDown) throws {
            var workload = Workload()
            workload.pager = .loop
            workload.warmupSeconds = 0
            workload.setStages(try StagePlan(parsing: stages))
            workload.rampDown = rampDown
            let scenario = Scenario(name: "ramp", store: StagedRunTests.store, workload: workload)
            try scenario.validate()
            plan = workload.stages!
            runner = PhaseRunner(scenario: scenario, source: HeldSource(gate: gate))
        }

        /// Runs one repetition while `steps` moves the clock (it starts asleep at 0).
        func run(
            options: PhaseRunner<HeldSource>.Options = .init(),
            _ steps: () async throws -> Void
        ) async throws
            -> [PhaseResult]
        {
            let (runner, clock) = (self.runner, self.clock)
            return try await withThrowingTaskGroup(of: [PhaseResult].self) { group in
                group.addTask { await runner.runStages(repetition: 1, options: options, clock: clock) }
                try await clock.waitForSleepers(1)
                try await steps()
                return try await group.next()!
            }
        }

        /// Moves the clock to `nanoseconds` and waits until the stage clock is asleep again.
        func advance(to nanoseconds: Int) async throws {
            clock.advance(to: ManualClock.Instant(offset: .nanoseconds(nanoseconds)))
            if nanoseconds < plan.durationNanoseconds { try await clock.waitForSleepers(1) }
        }
    }

    /// H4 with ramp-down `cancel`: at every sampled instant (every 250 ms of the manual clock)
    /// exactly `round(plan(t))` pagers are inside a drain: the ones a ramp-up admits start at
    /// once, the ones a ramp-down removes are cancelled at once (H2, timed), the others go on.
    @Test(.timeLimit(.minutes(2)))
    func pagersInDrainsFollowThePlanExactlyWithCancellingRampDown() async throws {
        let staged = try Staged("10s:0-8,5s:8,10s:8-0", rampDown: .cancel)
        let (plan, gate) = (staged.plan, staged.gate)
        let results = try await staged.run {
            var previous = 0
            for t in stride(from: 250_000_000, to: plan.durationNanoseconds, by: 250_000_000) {
                try await staged.advance(to: t)
                let expected = plan.pagers(atNanoseconds: t)
                try await gate.waitUntil(inFlight: expected)
                #expect(gate.inFlight == expected, "at \(t) ns")
                // Only pagers a ramp-up admitted started a request: nobody else re-entered.
                previous = max(previous, expected)
                #expect(gate.fetches == previous, "at \(t) ns")
            }
            try await staged.advance(to: plan.durationNanoseconds)
        }
        // One result per stage, in order; every pager task returned (none leaked).
        #expect(results.map { $0.stage?.index } == [0, 1, 2])
        #expect(results.allSatisfy { $0.pagersReturned == 8 && !$0.partial })
        #expect(gate.inFlight == 0)
        // The 8 drains started in the ramp-up and were cancelled by the ramp-down: they count
        // in the stage they started in, each with a timed cancellation (H2).
        #expect(results[0].metrics.cancellations == 8)
        #expect(results[0].metrics.cancellationLatency?.count == 8)
        #expect(results[1].metrics.cancellations == 0 && results[2].metrics.cancellations == 0)
        #expect(results.map { $0.measuredSeconds } == [10, 5, 10])
        let rows = results.map {
            $0.row(
                context: RunContext(
                    timestampUTC: "",
                    pagebenchVersion: "",
                    gitCommit: "",
                    swiftVersion: "",
                    buildConfiguration: "",
                    host: "",
                    cores: 1
                )
            )
        }
        #expect(rows.map(\.stage) == [1, 2, 3])
        #expect(rows.map(\.stagePagersFrom) == [0, 8, 8] && rows.map(\.stagePagersTo) == [8, 8, 0])
        #expect(rows.map(\.stageStartSeconds) == [0, 10, 15])
        #expect(Set(rows.map(\.identity)).count == 3, "stages must not look like repetitions of one another")
    }

    /// H4 with ramp-down `finish`: a removed pager finishes its drain, then parks; drains
    /// count in the stage they started in, exactly as a model of the plan says.
    @Test(.timeLimit(.minutes(2)))
    func removedPagersFinishTheirDrainAndDrainsCountInTheirStartingStage() async throws {
        let staged = try Staged("3s:0-6,2s:6,3s:6-1", rampDown: .finish)
        let (plan, gate) = (staged.plan, staged.gate)
        // The model: the stage each drain in flight started in; drains ended per stage.
        var inFlight: [Int] = []
        var ended = [0, 0, 0]
        let results = try await staged.run {
            var previous = 0
            for t in stride(from: 125_000_000, to: plan.durationNanoseconds, by: 125_000_000) {
                try await staged.advance(to: t)
                let pagers = plan.pagers(atNanoseconds: t)
                let stage = plan.position(atNanoseconds: t).stage
                // Admitted pagers start a drain; removed ones are still finishing theirs.
                inFlight += Array(repeating: stage, count: max(0, pagers - previous))
                try await gate.waitUntil(inFlight: max(previous, pagers))
                #expect(gate.inFlight == inFlight.count, "at \(t) ns")
                // Every drain ends; the admitted pagers start the next one, the removed ones park.
                for started in inFlight { ended[started] += 1 }
                inFlight = Array(repeating: stage, count: pagers)
                gate.releaseAll()
                try await gate.waitUntil(inFlight: pagers)
                #expect(gate.inFlight == pagers, "at \(t) ns")
                previous = pagers
            }
            try await staged.advance(to: plan.durationNanoseconds)
        }
        #expect(results.map { $0.metrics.drains } == ended)
        #expect(results.map { $0.metrics.pages } == ended)
        // The drains in flight at the end were cancelled (cancelAtEnd) in their own stage.
        #expect(results[2].metrics.cancellations == inFlight.count)
        #expect(results.allSatisfy { $0.pagersReturned == 6 })
        #expect(gate.inFlight == 0)
    }

    /// H4 time series: rows are marked by stage, no row straddles a boundary (each stage's
    /// rows end at its end), and each row has the pagers admitted and the plan's target.
    @Test(.timeLimit(.minutes(2)))
    func timeSeriesRowsAreMarkedByStageAndEndAtBoundaries() async throws {
        let staged = try Staged("2500ms:0-4,1500ms:4", rampDown: .cancel)
        var options = PhaseRunner<HeldSource>.Options()
        options.timeSeries = true
        let results = try await staged.run(options: options) {
            for t in stride(from: 250_000_000, through: staged.plan.durationNanoseconds, by: 250_000_000) {
                try await staged.advance(to: t)
            }
        }
        let first = results[0].timeSeries
        let second = results[1].timeSeries
        #expect(first.map(\.elapsedSeconds) == [1, 2, 2.5])
        #expect(second.map(\.elapsedSeconds) == [3.5, 4])
        #expect(first.allSatisfy { $0.stage == 1 } && second.allSatisfy { $0.stage == 2 })
        #expect(first.map(\.activePagers) == [2, 3, 4])
        #expect(first.map(\.plannedPagers) == [1.6, 3.2, 4])
        #expect(second.allSatisfy { $0.activePagers == 4 && $0.plannedPagers == 4 })
    }

    /// H4 with H6: an interruption ends the stage in progress, marked partial; the stages
    /// before it are whole, later ones get no result, and every pager returns.
    @Test(.timeLimit(.minutes(2)))
    func anInterruptionEndsTheStageInProgressAsPartial() async throws {
        let staged = try Staged("2s:0-4,2s:4,2s:4-0", rampDown: .finish)
        let gate = staged.gate
        let interruption = Interruption()
        var options = PhaseRunner<HeldSource>.Options()
        options.interruption = interruption
        let results = try await staged.run(options: options) {
            for t in stride(from: Self.second / 2, through: 3 * Self.second, by: Self.second / 2) {
                try await staged.advance(to: t)
            }
            try await gate.waitUntil(inFlight: 4)
            interruption.request(signal: 2)
        }
        #expect(results.map { $0.stage?.index } == [0, 1])
        #expect(results.map(\.partial) == [false, true])
        #expect(results[1].measuredSeconds == 1)
        // The four drains in flight were cancelled by the interruption, timed (H2, H6).
        #expect(results[0].metrics.cancellations + results[1].metrics.cancellations == 4)
        #expect(results.allSatisfy { $0.pagersReturned == 4 })
        #expect(gate.inFlight == 0)
    }

    /// H4 open loop: a rate plan's arrivals integrate the ramped rate exactly (not per tick),
    /// and each drain belongs to the stage of its intended start.
    @Test func rateStagesOfferTheIntegralOfTheirRate() throws {
        let plan = try StagePlan(parsing: "10s:100/s-100/s,10s:300/s")
        // Stage 1: arrival k at k/100 s. Stage 2: 100·t + 10·t² = k − 1000 drains.
        #expect(plan.arrivalOffsetNanoseconds(arrivals: 1) == 10_000_000)
        #expect(plan.arrivalOffsetNanoseconds(arrivals: 1000) == 10e9)
        let t = 5.0  // 100·5 + 10·25 = 750
        #expect(abs(plan.arrivalOffsetNanoseconds(arrivals: 1750)! - (10 + t) * 1e9) < 1)
        #expect(plan.arrivalOffsetNanoseconds(arrivals: 3000.5) == nil)
        let ramp = try StagePlan(parsing: "10s:0/s-100/s")  // Λ(t) = 5·t²
        for k in [1.0, 20, 125, 499] {
            #expect(abs(ramp.arrivalOffsetNanoseconds(arrivals: k)! - (k / 5).squareRoot() * 1e9) < 1)
        }
        let idle = try StagePlan(parsing: "5s:0/s,5s:10/s-10/s")  // nothing is offered at rate 0
        // A ramp 0→10: t².
        #expect(abs(try StagePlan(parsing: "5s:0/s,5s:10/s").arrivalOffsetNanoseconds(arrivals: 1)! - 6e9) < 1)
        #expect(idle.arrivalOffsetNanoseconds(arrivals: 1)! == 5.1e9)

        var workload = Workload()
        workload.concurrency = [4]
        workload.setStages(plan)
        let scenario = Scenario(name: "rates", store: Self.store, workload: workload)
        try scenario.validate()
        let control = PhaseControl(
            planner: DrainPlanner(workload: workload, store: Self.store),
            isWarmup: false,
            start: 0,
            drainLimit: nil,
            durationNanoseconds: Double(plan.durationNanoseconds),
            concurrency: 4
        )
        var perStage = [0, 0]
        var last: UInt64 = 0
        while let claim = control.claim() {
            perStage[claim.stage!] += 1
            #expect(claim.intendedStart! >= last)
            last = claim.intendedStart!
        }
        // 999 arrivals before 10 s (the 1000th is the boundary, in stage 2), then 2000 in the
        // ramp's 2000 drains of integral, the last of which would be the plan's end.
        #expect(perStage == [999, 2000])
        #expect(control.isExhausted)
    }

    /// The controller wakes exactly where the rounded pager count changes (H4).
    @Test func nextChangeIsTheFirstInstantTheCountChanges() throws {
        let plan = try StagePlan(parsing: "1s:0-7,500ms:7,1s:7-2,1s:2-2")
        var elapsed = 0
        var wakes = 0
        while let next = plan.nextChangeNanoseconds(after: elapsed) {
            #expect(next > elapsed)
            let before = plan.pagers(atNanoseconds: elapsed)
            let stageBefore = plan.position(atNanoseconds: elapsed).stage
            // Nothing changes strictly between the two instants ...
            for probe in [elapsed + 1, (elapsed + next) / 2, next - 1] where probe > elapsed && probe < next {
                #expect(plan.pagers(atNanoseconds: probe) == before, "\(probe)")
            }
            // ... and something does at the next one (or a stage or the plan ends there).
            #expect(
                plan.pagers(atNanoseconds: next) != before || plan.position(atNanoseconds: next).stage != stageBefore
                    || next == plan.durationNanoseconds
            )
            elapsed = next
            wakes += 1
        }
        #expect(elapsed == plan.durationNanoseconds)
        // 7 ups, the stage boundaries, 5 downs: never a wake for nothing.
        #expect(wakes <= 7 + 5 + 4)
    }

    /// H4: a stage clock whose task first runs after its plan's whole length has passed (it
    /// waited for a thread of a busy pool) still runs every stage, from that first run. Before,
    /// the plan was timed from an instant taken before the task ran: the clock found the plan
    /// over at once and returned no stage, so the staged phase had no row at all (the staged
    /// sweep that "sometimes returned no row" beside other test suites).
    @Test(.timeLimit(.minutes(1)))
    func h4APlanStartsWhenItsClockFirstRuns() async throws {
        let plan = try StagePlan(parsing: "300ms:1,300ms:2")
        let clock = ManualClock()
        let requestedStart = clock.now
        // The task runs 5 s late.
        clock.advance(to: ManualClock.Instant(offset: .seconds(5)))
        let stageClock = StageClock(
            clock: clock,
            plan: plan,
            pool: PagerPool(size: 2, stages: 2, openLoop: false, cancels: false),
            shard: .whole,
            sampler: MemorySampler(),
            sample: nil,
            observer: nil,
            totals: { CompletedWork() },
            remoteCounters: nil
        )
        let timeline = try await withThrowingTaskGroup(of: StageTimeline.self) { group in
            group.addTask { await stageClock.run(from: requestedStart) }
            try await clock.waitForSleepers(1)
            clock.advance(to: ManualClock.Instant(offset: .milliseconds(5_300)))
            try await clock.waitForSleepers(1)
            clock.advance(to: ManualClock.Instant(offset: .milliseconds(5_600)))
            return try await group.next()!
        }
        #expect(timeline.reachedEnd)
        #expect(timeline.spans.map(\.index) == [0, 1])
        #expect(timeline.spans.map(\.startNanoseconds) == [0, 300_000_000])
    }

    /// H14: every request a remote source answered in a staged run is in a stage's row: those
    /// answered after the plan's end (the drains in flight then) are the last stage's, as a fixed
    /// phase's row holds those of its end. Before, they were outside every row, and `run` named
    /// them "answered between phases". Every page here takes 5 ms, so each of the 4 pagers has a
    /// request in flight when the plan ends.
    @Test(.timeLimit(.minutes(2)))
    func h14TheRequestsOfAStagedRunAreAllInItsRows() async throws {
        final class Answered: Sendable {
            let count = Atomic<Int>(0)
        }
        let answered = Answered()
        let source = ClosurePageSource<PageRequest, Page> { request in
            try? await Task.sleep(nanoseconds: 5_000_000)  // answered even when cancelled meanwhile
            answered.count.add(1, ordering: .relaxed)
            return ScriptedStoreSource.pages[request.token ?? ""]!
        }
        var workload = Workload()
        workload.pager = .loop
        workload.warmupSeconds = 0
        // Long enough for a stage clock starved by tests side by side.
        workload.setStages(try StagePlan(parsing: "1s:4,1s:4-2"))
        let scenario = Scenario(name: "remote", store: StagedRunTests.store, workload: workload)
        try scenario.validate()
        var options = PhaseRunner<ClosurePageSource<PageRequest, Page>>.Options()
        options.remoteCounters = { RemoteCounts(responses: ["200": answered.count.load(ordering: .relaxed)]) }
        let results = await PhaseRunner(scenario: scenario, source: source).runStages(
            repetition: 1,
            options: options,
            clock: ContinuousClock()
        )
        #expect(results.count == 2)
        let inRows = results.map { $0.remoteCounts?.responses["200"] ?? 0 }.reduce(0, +)
        #expect(inRows > 0)
        #expect(inRows == answered.count.load(ordering: .relaxed))
    }
}
