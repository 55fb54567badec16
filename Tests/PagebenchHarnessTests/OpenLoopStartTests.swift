import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchStore
import PagebenchTestSupport
import Synchronization
import Testing

@testable import PagebenchHarness

/// docs/contract.md H8: an open-loop drain misses its start only when every slot is busy at its
/// intended start; a drain picked up late for another reason is a late start, counted apart.
@Suite struct OpenLoopStartTests {
    @Test func classification() {
        let ms: UInt64 = 1_000_000
        // A slot was free: on time, or late past the tolerance.
        #expect(OpenLoopStart(intended: 100 * ms, slotWasFree: true, started: 100 * ms) == .onTime)
        #expect(OpenLoopStart(intended: 100 * ms, slotWasFree: true, started: 101 * ms) == .onTime)
        #expect(OpenLoopStart(intended: 100 * ms, slotWasFree: true, started: 101 * ms + 1) == .late)
        #expect(OpenLoopStart(intended: 100 * ms, slotWasFree: true, started: 140 * ms) == .late)
        // Every slot was busy.
        #expect(OpenLoopStart(intended: 100 * ms, slotWasFree: false, started: 300 * ms) == .missed)
    }

    /// A slot was free at a drain's intended start when the pager that claims it was free by
    /// then, or another pager had not begun a drain yet (its task started late); otherwise
    /// every slot was busy.
    @Test func aSlotIsFreeWhenTheClaimerWasOrAPagerHadNotBegun() throws {
        let ms: UInt64 = 1_000_000
        var workload = Workload()
        workload.load = .open(drainsPerSecond: 1_000, poisson: false)  // drain k is meant to start at k ms
        let planner = DrainPlanner(workload: workload, store: .default)
        let control = PhaseControl(
            planner: planner,
            isWarmup: false,
            start: 0,
            drainLimit: 10,
            durationNanoseconds: nil,
            pagers: 2
        )
        let a0 = try #require(control.claim(pagerFreeSince: nil))
        #expect(a0.intendedStart == 0 && a0.slotWasFree)
        // Pager A ended drain 0 at 3 ms and claims drain 1 (meant at 1 ms): pager B had not begun.
        let a1 = try #require(control.claim(pagerFreeSince: 3 * ms))
        #expect(a1.intendedStart == 1 * ms && a1.slotWasFree)
        let b2 = try #require(control.claim(pagerFreeSince: nil))
        #expect(b2.intendedStart == 2 * ms && b2.slotWasFree)
        // A ended drain 1 at 5 ms and claims drain 3 (meant at 3 ms), B in drain 2: all busy.
        let a3 = try #require(control.claim(pagerFreeSince: 5 * ms))
        #expect(a3.intendedStart == 3 * ms && !a3.slotWasFree)
        // B ended drain 2 at 3.5 ms and claims drain 4 (meant at 4 ms): it was free.
        let b4 = try #require(control.claim(pagerFreeSince: 3 * ms + ms / 2))
        #expect(b4.intendedStart == 4 * ms && b4.slotWasFree)
    }

    /// The case: 5 drains/s offered to 8 idle slots misses no start (it reported 1:
    /// the first drain, meant to start at the phase's first instant, was picked up after it).
    @Test(.timeLimit(.minutes(10)))
    func idleSlotsMissNoStart() async throws {
        let scenario = scenario(store: .default) {
            $0.load = .open(drainsPerSecond: 5, poisson: false)
            $0.bound = .drains(3)
        }
        let result = await PhaseRunner(scenario: scenario, source: ScriptedStoreSource()).run(
            concurrency: 8,
            repetition: 1
        )
        #expect(result.metrics.drains == 3)
        #expect(result.metrics.missedStarts == 0)
        let row = result.row(context: InterruptionTests.context)
        #expect(row.missedStarts == 0)
        #expect(row.lateStarts != nil)
    }

    /// One slot whose first drain outlasts the next two intended starts (1 ms apart): those
    /// two, and only those, are missed starts, whatever the machine's load.
    @Test(.timeLimit(.minutes(10)))
    func busySlotsMissTheirStarts() async throws {
        let scenario = scenario(store: .default) {
            $0.load = .open(drainsPerSecond: 1_000, poisson: false)
            $0.bound = .drains(3)
        }
        let firstCall = FirstCall()
        let slowFirstPage = ClosurePageSource<PageRequest, Page> { request in
            // Only the first drain's first page is slow: at least 20 ms.
            if request.token == nil, firstCall.take() { try await Task.sleep(nanoseconds: 20_000_000) }
            return ScriptedStoreSource.pages[request.token ?? ""]!
        }
        let result = await PhaseRunner(scenario: scenario, source: slowFirstPage).run(concurrency: 1, repetition: 1)
        #expect(result.metrics.drains == 3)
        #expect(result.metrics.missedStarts == 2)
        #expect(result.metrics.lateStarts == 0 || result.metrics.lateStarts == 1)  // the first, if the pager began late
        let closed = await PhaseRunner(
            scenario: PagebenchTestSupport.scenario(store: .default) { $0.bound = .drains(3) },
            source: ScriptedStoreSource()
        )
        .run(concurrency: 1, repetition: 1)
        let row = closed.row(context: InterruptionTests.context)
        #expect(row.missedStarts == nil && row.lateStarts == nil, "closed loop: empty")
    }
}

/// True once, then false: marks the first call of a test source.
final class FirstCall: Sendable {
    private let taken = Atomic<Bool>(false)

    func take() -> Bool {
        !taken.exchange(true, ordering: .relaxed)
    }
}
