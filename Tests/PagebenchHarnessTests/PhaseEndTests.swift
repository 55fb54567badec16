import Foundation
import PagebenchBase
import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchProcessStats
import PagebenchStore
import Synchronization
import Testing

@testable import PagebenchHarness

#if canImport(Glibc)
import Glibc
#endif

/// docs/contract.md H6 and issue 38: a phase's pagers read its end (the deadline of a
/// duration-bound phase, an interruption) themselves, at their checkpoints and before each
/// drain, rather than waiting for a task that a crowd of pagers queues behind.
@Suite struct PhaseEndTests {
    /// Pages that never end (every page has a token); requests the interruption from inside
    /// its `at`-th fetch, on the pager's own task: no other task runs in between.
    final class EndlessSource: PageSource, Sendable {
        let fetches = Atomic<Int>(0)
        let interruption: Interruption
        let at: Int

        init(interruption: Interruption, at: Int) {
            self.interruption = interruption
            self.at = at
        }

        var fetched: Int { fetches.load(ordering: .relaxed) }

        func fetch(_ request: PageRequest) async throws -> Page {
            let count = fetches.add(1, ordering: .relaxed).newValue
            if count == at { interruption.request(signal: SIGINT) }
            return Page(items: [], scannedCount: 1, scannedBytes: 10, nextToken: "t\(count)")
        }
    }

    static let planner = DrainPlanner(workload: Workload(), store: .default)

    static func control(interruption: Interruption?, deadline: UInt64?, cancelsAtEnd: Bool = true) -> PhaseControl {
        PhaseControl(
            planner: planner,
            isWarmup: false,
            start: 1_000,
            drainLimit: nil,
            durationNanoseconds: nil,
            end: PhaseControl.End(deadline: deadline, cancelsAtEnd: cancelsAtEnd, interruption: interruption)
        )
    }

    @Test(
        "H6: once the interruption is requested a drain stops at its next checkpoint, cancelled, whatever its kind",
        arguments: [PagerKind.loop, .streaming, .apolloLoadNext]
    )
    func h6DrainStopsAtItsNextCheckpoint(kind: PagerKind) async {
        let interruption = Interruption()
        // The request comes in the 21st fetch; checkpoints are every 8 pages: the 24th page's.
        let source = EndlessSource(interruption: interruption, at: 21)
        let control = Self.control(interruption: interruption, deadline: nil)
        let runner = DrainRunner(
            source: ObservedSource(base: source, failures: FailureLog()),
            kind: kind,
            retryPolicy: .none,
            timing: true,
            yieldEveryPages: 8,
            // Never yields: nothing but this drain runs until it stops by itself.
            yieldPolicy: YieldPolicy(intervalNanoseconds: .max, backgroundTicks: nil),
            progress: PagerTaskProgress(),
            intervals: nil,
            phase: control
        )
        var metrics = TaskMetrics()
        var pacing = Pacing(timeSeries: false, latencySink: nil)
        let result = await runner.run(Self.planner.plan(0, warmup: false), into: &metrics, pacing: &pacing)
        #expect(result.ending == .cancelled)
        #expect(result.pages == 24 && metrics.pages == 24)
        #expect(source.fetched == 24)
        // The cancellation is timed from when a pager saw it; no later drain is handed out.
        #expect(control.cancelRequested != 0)
        #expect(control.wasInterrupted)
        #expect(control.claim() == nil)
    }

    @Test(
        "H6: a phase's end as a pager reads it: the deadline cancels (from the deadline) or stops claims; an interruption cancels"
    )
    func h6EndVerdicts() {
        // An hour from now: claims (which read the clock) go on until then.
        let deadline = MonotonicTime.nanoseconds() + 3_600_000_000_000
        let cancelling = Self.control(interruption: nil, deadline: deadline)
        #expect(cancelling.endVerdict(now: deadline - 1) == .goOn)
        #expect(cancelling.claim() != nil)
        #expect(cancelling.endVerdict(now: deadline + 2_000) == .cancel)
        // The cancel-everything is timed from the deadline itself, whoever saw it and when.
        #expect(cancelling.cancelRequested == deadline)
        #expect(cancelling.endVerdict(now: deadline + 4_000) == .cancel)
        #expect(cancelling.cancelRequested == deadline)
        #expect(!cancelling.wasInterrupted)

        // `--no-cancel-at-end`: drains in flight finish, no new one starts.
        let finishing = Self.control(interruption: nil, deadline: 5_000, cancelsAtEnd: false)
        #expect(finishing.endVerdict(now: 5_000) == .stopClaiming)
        #expect(finishing.claim() == nil)
        #expect(finishing.cancelRequested == 0)

        let interruption = Interruption()
        let interrupted = Self.control(interruption: interruption, deadline: nil)
        #expect(interrupted.endVerdict(now: 1) == .goOn)
        #expect(interrupted.claim() != nil)
        interruption.request(signal: SIGTERM)
        #expect(interrupted.endVerdict(now: 2) == .cancel)
        #expect(interrupted.wasInterrupted)
        #expect(interrupted.claim() == nil)

        // A phase without an end of its own (a staged phase: its stage clock ends it).
        let staged = PhaseControl(
            planner: Self.planner,
            isWarmup: false,
            start: 0,
            drainLimit: nil,
            durationNanoseconds: nil
        )
        #expect(staged.endVerdict(now: .max) == .goOn)
    }

    @Test(
        "H6: pagers that all stopped at checkpoints before any waiting task ran still make the phase partial, counts exact"
    )
    func h6PhaseEndedByItsPagersIsPartial() async throws {
        let interruption = Interruption()
        let source = EndlessSource(interruption: interruption, at: 100)
        var workload = Workload()
        workload.pager = .loop
        workload.concurrency = [1]
        workload.bound = .drains(1_000)
        workload.warmupSeconds = 0
        workload.yieldEveryPages = 16
        let scenario = Scenario(name: "endless", store: .default, workload: workload)
        var options = PhaseRunner<EndlessSource>.Options()
        options.interruption = interruption
        let result = await PhaseRunner(scenario: scenario, source: source).run(
            concurrency: 1,
            repetition: 1,
            options: options
        )
        #expect(result.partial)
        #expect(result.pagersReturned == 1)
        // Every page fetched is counted, as the cut-off drain's (H14): at most to the next checkpoint.
        let fetched = source.fetched
        #expect(result.metrics.cutOff.pages == fetched && result.metrics.pages == 0)
        #expect(fetched >= 100 && fetched <= 112)
        #expect(result.metrics.cancellations == 1 && result.metrics.cutOffDrains == 1 && result.metrics.drains == 0)
        #expect(result.metrics.cancellationLatency?.count == 1)
    }
}

/// Issue 38: the memory a phase's end line shows per pager is a pager's cost, not the
/// phase's own memory divided among a few pagers.
@Suite struct MemoryPerPagerLineTests {
    static func ended(pagers: Int, before: Int, peak: Int) -> String {
        let lines = ReportingTests.Lines()
        let printer = ProgressPrinter(isTerminal: false, plainIntervalSeconds: 0, write: lines.write)
        var result = PhaseResult(
            scenario: Scenario(name: "s"),
            concurrency: pagers,
            repetition: 1,
            pageTiming: true,
            metrics: TaskMetrics(),
            pagersReturned: pagers,
            measuredSeconds: 1,
            cpu: CPUTime(userSeconds: 0, systemSeconds: 0),
            allocations: 0,
            peakAllocatedBytes: 0,
            peakRSSBytes: peak,
            timeSeries: [],
            startedAt: Date(),
            pagers: pagers
        )
        result.residentBytesBeforePagers = before
        let run = PhaseDescription(
            scenario: "s",
            concurrency: pagers,
            repetition: 1,
            isOverheadPhase: false,
            ordinal: 1,
            total: 1,
            expectedSeconds: nil
        )
        printer.phaseEnded(run, result: result)
        return lines.value
    }

    @Test("a crowd's end line shows memory per pager; a few pagers' shows the phase's growth, not divided")
    func memoryPerPagerOnlyForACrowd() {
        let few = Self.ended(pagers: 8, before: 40 << 20, peak: (40 << 20) + 2_867_200)
        #expect(!few.contains("KiB (peak RSS"))
        #expect(few.contains("above the phase's start"))
        let crowd = Self.ended(pagers: 10_000, before: 40 << 20, peak: (40 << 20) + 10_000 * 20_000)
        #expect(crowd.contains(", 19.5KiB (peak RSS"))
        #expect(!crowd.contains("above the phase's start"))
    }
}

extension PhaseControl {
    /// Plain values for `#expect` (its macro cannot take an `Atomic`).
    var cancelRequested: UInt64 { cancelRequestedAt.load(ordering: .relaxed) }
    var wasInterrupted: Bool { interrupted.load(ordering: .relaxed) }
}

/// Issue 38, H2: in a crowd of CPU-bound pagers a drain spends most of its time waiting,
/// yielded at its checkpoints, for its turn; the cancellation probe decides between a timer
/// and a page count on the time its pages took, not that wait.
@Suite struct CrowdProbeTests {
    typealias Estimate = PagerTask<StoreSource>.DrainEstimate

    @Test(
        "H2: drains parked at their checkpoints most of their time are still cancelled by page count; in-flight time is page time"
    )
    func h2ParkedTimeIsNotPageTime() {
        // 10,000 pagers on 2 cores (results/crowd.md): 1,001 pages in 5 s, all but 5 ms of
        // it waiting for a turn to run.
        var crowd = Estimate()
        crowd.finished(nanoseconds: 5_000_000_000, parked: 4_995_000_000, pages: 1_001)
        #expect(crowd.cancelsByPages(kind: .streaming))
        // The same 5 s spent in requests (a remote target's 5 ms pages): a timer lands inside them.
        var remote = Estimate()
        remote.finished(nanoseconds: 5_000_000_000, parked: 0, pages: 1_001)
        #expect(!remote.cancelsByPages(kind: .streaming))
        // A timed cancel instant is still placed over the whole drain.
        #expect(crowd.nanoseconds == remote.nanoseconds)
    }

    /// Every page waits 2 ms in its request (a remote target's service time).
    struct SlowSource: PageSource {
        func fetch(_ request: PageRequest) async throws -> Page {
            try await Task.sleep(nanoseconds: 2_000_000)
            return Page(items: [], scannedCount: 1, scannedBytes: 10, nextToken: "more")
        }
    }

    @Test("H2: a drain counts the time it waited at its yields as parked, and its requests' time not")
    func h2DrainCountsItsParkedTime() async {
        var workload = Workload()
        workload.drain = .firstPages(8)
        let planner = DrainPlanner(workload: workload, store: .default)
        let runner = DrainRunner(
            source: ObservedSource(base: SlowSource(), failures: FailureLog()),
            kind: .loop,
            retryPolicy: .none,
            timing: false,
            yieldEveryPages: 2,
            // Yields at every checkpoint.
            yieldPolicy: YieldPolicy(intervalNanoseconds: 0, backgroundTicks: nil),
            progress: PagerTaskProgress(),
            intervals: nil
        )
        var metrics = TaskMetrics()
        var pacing = Pacing(timeSeries: false, latencySink: nil)
        let started = MonotonicTime.nanoseconds()
        let result = await runner.run(planner.plan(0, warmup: false), into: &metrics, pacing: &pacing)
        let wall = MonotonicTime.elapsed(from: started, to: MonotonicTime.nanoseconds())
        #expect(result.pages == 8)
        // Four checkpoints yielded; the eight requests' 16 ms or more are not in their wait.
        #expect(result.parkedNanoseconds > 0)
        #expect(result.parkedNanoseconds + 16_000_000 <= wall)
        #expect(pacing.parkedNanoseconds == result.parkedNanoseconds)
    }
}

extension CrowdProbeTests {
    @Test(
        "H2: a drain the probe cancels by page count on a checkpoint's page ends without holding that checkpoint",
        arguments: [PagerKind.loop, .streaming, .apolloLoadNext]
    )
    func h2SelfCancelSkipsTheCheckpoint(kind: PagerKind) async {
        let source = PhaseEndTests.EndlessSource(interruption: Interruption(), at: .max)
        let runner = DrainRunner(
            source: ObservedSource(base: source, failures: FailureLog()),
            kind: kind,
            retryPolicy: .none,
            timing: false,
            yieldEveryPages: 8,
            // Would yield at every checkpoint it held: in a crowd, a wait for every other pager.
            yieldPolicy: YieldPolicy(intervalNanoseconds: 0, backgroundTicks: nil),
            progress: PagerTaskProgress(),
            intervals: nil
        )
        // In a child task, as the probe runs it: the drain cancels its own task.
        let (result, pacing) = await withTaskGroup(of: (DrainResult, Pacing).self) { group in
            group.addTask {
                var metrics = TaskMetrics()
                var pacing = Pacing(timeSeries: false, latencySink: nil)
                pacing.cancelAfterPages = 8
                let result = await runner.run(
                    PhaseEndTests.planner.plan(0, warmup: false),
                    into: &metrics,
                    pacing: &pacing
                )
                return (result, pacing)
            }
            return await group.next()!
        }
        #expect(result.ending == .cancelled)
        #expect(result.pages == 8 && result.pagesAfterCancel == 0)
        #expect(pacing.selfCancelledAt != 0)
        // The eighth page's checkpoint was not held: it never considered yielding.
        #expect(pacing.yieldedAt == 0)
    }
}
