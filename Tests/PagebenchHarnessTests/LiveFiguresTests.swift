import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchStore
import PagebenchTestSupport
import Synchronization
import Testing

@testable import PagebenchHarness

/// docs/contract.md H7 on a manual clock: every time-series row and every stage row counts the pages
/// and drains that completed in its interval — within one page per pager or 2 % of the truth,
/// and never drifting from it — whatever a page takes (1 µs to 10 s), for every pager kind.
/// The truth is the instant each page ended, as the source saw it on the same clock.
@Suite struct LiveFiguresTests {
    static let second = 1_000_000_000
    /// Pages per drain: drains cross rows and stages when pages are slow.
    static let pagesPerDrain = 4

    /// When pages and drains ended (nanoseconds of the manual clock), and when the pages in
    /// flight will end.
    final class Timeline: Sendable {
        private struct State {
            var pages: [Int] = []
            var drains: [Int] = []
            var pending: [UInt64: Int] = [:]
            var nextID: UInt64 = 0
        }

        private let state = Mutex(State())

        var pages: [Int] { state.withLock { $0.pages } }
        var drains: [Int] { state.withLock { $0.drains } }
        /// The earliest instant a page in flight ends.
        var nextPageEnd: Int? { state.withLock { $0.pending.values.min() } }

        func started(endingAt end: Int) -> UInt64 {
            state.withLock { state in
                state.nextID += 1
                state.pending[state.nextID] = end
                return state.nextID
            }
        }

        func ended(_ id: UInt64, at instant: Int, lastOfDrain: Bool) {
            state.withLock { state in
                state.pending[id] = nil
                state.pages.append(instant)
                if lastOfDrain { state.drains.append(instant) }
            }
        }

        func abandoned(_ id: UInt64) {
            _ = state.withLock { $0.pending.removeValue(forKey: id) }
        }
    }

    /// Drains of ``pagesPerDrain`` pages of one item each. Each page takes `pageNanoseconds` of
    /// `clock`: it sleeps that long on the clock (`advancesClock` false; the test moves the
    /// clock), then at least 60 µs of real time, as a page that long takes (a pager publishes
    /// a page of 50 µs or more at once, faster ones every 64 pages); or it moves the clock on by
    /// that much itself (`advancesClock` true, one pager: fast pages, too many to step through
    /// one by one), stopping at every instant the stage clock wakes at so that it reads its
    /// rows while the page is still in flight.
    struct ClockedSource: PageSource {
        let clock: ManualClock
        let pageNanoseconds: Int
        let advancesClock: Bool
        let timeline: Timeline
        /// The instants the stage clock wakes at (its rows and stage ends), for `advancesClock`.
        let wakes: [Int]

        static let item = ScriptedStoreSource.items[0]

        func fetch(_ request: PageRequest) async throws -> Page {
            let index = request.token.flatMap { Int($0) } ?? 0
            let start = LiveFiguresTests.nanoseconds(clock.now)
            let end = start + pageNanoseconds
            let id = timeline.started(endingAt: end)
            do {
                if advancesClock {
                    for wake in wakes where wake > start && wake <= end {
                        // The stage clock reads its row at `wake`, while this page is in flight.
                        clock.advance(to: ManualClock.Instant(offset: .nanoseconds(wake)))
                        if wake == wakes.last! {
                            // The plan ends with this page in flight, which is cancelled.
                            try await clock.sleep(
                                until: ManualClock.Instant(offset: .seconds(1_000_000)),
                                tolerance: nil
                            )
                        }
                        try await clock.waitForSleepers(1)
                    }
                    clock.advance(to: ManualClock.Instant(offset: .nanoseconds(end)))
                    try Task.checkCancellation()
                } else {
                    try await clock.sleep(until: ManualClock.Instant(offset: .nanoseconds(end)), tolerance: nil)
                    try await Task.sleep(nanoseconds: 60_000)
                }
            } catch {
                timeline.abandoned(id)
                throw error
            }
            let last = index + 1 == LiveFiguresTests.pagesPerDrain
            timeline.ended(id, at: end, lastOfDrain: last)
            return Page(items: [Self.item], scannedCount: 1, scannedBytes: 100, nextToken: last ? nil : "\(index + 1)")
        }
    }

    static func nanoseconds(_ instant: ManualClock.Instant) -> Int {
        Int(LatencyRecorder.nanoseconds(instant.offset))
    }

    struct Outcome {
        var results: [PhaseResult]
        var timeline: Timeline
        var plan: StagePlan
    }

    /// Runs `stages` (each holding `pagers` pagers) over pages of `pageNanoseconds`, moving the
    /// manual clock from event to event (a page's end, a row's instant, a stage's end).
    static func run(
        pageNanoseconds: Int,
        stages: String,
        pagers: Int,
        pager: PagerKind = .loop,
        advancesClock: Bool = false
    ) async throws -> Outcome {
        var workload = Workload()
        workload.pager = pager
        workload.warmupSeconds = 0
        workload.setStages(try StagePlan(parsing: stages))
        let scenario = Scenario(
            name: "live",
            store: StoreConfiguration(partitions: 1, itemsPerPartition: .uniform(10)),
            workload: workload
        )
        try scenario.validate()
        let plan = workload.stages!
        let clock = ManualClock()
        let timeline = Timeline()
        // Rows every second from each stage's start, and at each stage's end (StageClock).
        let wakes = plan.stageStartsNanoseconds.enumerated().flatMap { index, start in
            let end = start + plan.stages[index].durationNanoseconds
            return Array(stride(from: start + second, to: end, by: second)) + [end]
        }
        let source = ClockedSource(
            clock: clock,
            pageNanoseconds: pageNanoseconds,
            advancesClock: advancesClock,
            timeline: timeline,
            wakes: wakes
        )
        let runner = PhaseRunner(scenario: scenario, source: source)
        let options = {
            var options = PhaseRunner<ClockedSource>.Options()
            options.timeSeries = true
            return options
        }()
        let results = try await withThrowingTaskGroup(of: [PhaseResult]?.self) { group in
            group.addTask { await runner.runStages(repetition: 1, options: options, clock: clock) }
            if !advancesClock {
                group.addTask {
                    var now = 0
                    while now < plan.durationNanoseconds {
                        // Every pager asleep in a page, and the stage clock asleep.
                        try await clock.waitForSleepers(pagers + 1)
                        let next = min(timeline.nextPageEnd ?? Int.max, wakes.first { $0 > now } ?? Int.max)
                        now = next
                        clock.advance(to: ManualClock.Instant(offset: .nanoseconds(now)))
                    }
                    return nil
                }
            }
            var results: [PhaseResult] = []
            while let next = try await group.next() { if let next { results = next } }
            return results
        }
        return Outcome(results: results, timeline: timeline, plan: plan)
    }

    /// Checks every row and stage of `outcome` against the truth (H7). `unpublished`: the most
    /// pages a pager may have counted but not published when a row is read (none when pages
    /// are slow; up to a checkpoint's 63 when they are fast).
    static func expectFiguresMatchTheTruth(_ outcome: Outcome, pagers: Int, unpublished: Int = 0, _ label: String) {
        let pages = outcome.timeline.pages
        let drains = outcome.timeline.drains
        func completed(_ instants: [Int], from start: Int, to end: Int) -> Int {
            instants.filter { $0 > start && $0 <= end }.count
        }
        func within(_ measured: Double, _ truth: Int) -> Bool {
            abs(measured - Double(truth)) <= max(0.02 * Double(truth), Double(pagers)) + 1e-6
        }
        let series = outcome.results.flatMap(\.timeSeries)
        #expect(!series.isEmpty, "\(label): no time series")
        var start = 0
        var measuredSoFar = (pages: 0.0, drains: 0.0)
        var truthSoFar = (pages: 0, drains: 0)
        for row in series {
            let end = Int((row.elapsedSeconds * 1e9).rounded())
            let seconds = Double(end - start) / 1e9
            let measured = (pages: row.pagesPerSecond * seconds, drains: row.drainsPerSecond * seconds)
            let truth = (pages: completed(pages, from: start, to: end), drains: completed(drains, from: start, to: end))
            measuredSoFar.pages += measured.pages
            measuredSoFar.drains += measured.drains
            truthSoFar.pages += truth.pages
            truthSoFar.drains += truth.drains
            let at = "\(label), row ending at \(row.elapsedSeconds) s"
            #expect(within(measured.pages, truth.pages), "\(at): \(measured.pages) pages, truth \(truth.pages)")
            #expect(within(measured.drains, truth.drains), "\(at): \(measured.drains) drains, truth \(truth.drains)")
            // Never drifting: what the rows add up to is what completed, but for pages a pager
            // has counted and not yet published.
            #expect(
                abs(measuredSoFar.pages - Double(truthSoFar.pages)) <= Double(pagers * max(1, unpublished)) + 1e-6,
                "\(at): \(measuredSoFar.pages) pages so far, truth \(truthSoFar.pages)"
            )
            start = end
        }
        #expect(outcome.results.count == outcome.plan.stages.count, "\(label): a result per stage")
        for result in outcome.results {
            guard let stage = result.stage else { continue }
            let stageStart = stage.startNanoseconds
            let stageEnd = stageStart + Int((result.measuredSeconds * 1e9).rounded())
            let row = result.row(context: InterruptionTests.context)
            let truth = (
                pages: completed(pages, from: stageStart, to: stageEnd),
                drains: completed(drains, from: stageStart, to: stageEnd)
            )
            let at = "\(label), stage \(stage.index + 1)"
            #expect(
                within(row.pagesPerSecond * result.measuredSeconds, truth.pages),
                "\(at): \(row.pagesPerSecond) pages/s, truth \(truth.pages) pages"
            )
            #expect(
                within(row.itemsPerSecond * result.measuredSeconds, truth.pages),
                "\(at): \(row.itemsPerSecond) items/s, truth \(truth.pages) items"
            )
            #expect(
                within(row.drainsPerSecond * result.measuredSeconds, truth.drains),
                "\(at): \(row.drainsPerSecond) drains/s, truth \(truth.drains) drains"
            )
        }
    }

    /// 12.5 ms pages, three pagers, two stages: the case (a row per second read 64 pages
    /// per pager, or 128, for 80 completed).
    @Test(.timeLimit(.minutes(10)))
    func pagesOf12Point5Milliseconds() async throws {
        let outcome = try await Self.run(pageNanoseconds: 12_500_001, stages: "3s:3-3,3s:3", pagers: 3)
        #expect(outcome.timeline.pages.count > 1_400)
        Self.expectFiguresMatchTheTruth(outcome, pagers: 3, "12.5 ms pages")
    }

    /// 1 s pages: drains of four seconds cross rows and stages; every pager kind, the
    /// Apollo-style `loadAll` included (its pages are visible only to its source).
    @Test(.timeLimit(.minutes(10)), arguments: [PagerKind.loop, .streaming, .apolloLoadNext, .apolloLoadAll])
    func pagesOfOneSecond(pager: PagerKind) async throws {
        let outcome = try await Self.run(
            pageNanoseconds: Self.second + 1,
            stages: "5s:3-3,5s:3",
            pagers: 3,
            pager: pager
        )
        #expect(outcome.timeline.pages.count == 27)
        Self.expectFiguresMatchTheTruth(outcome, pagers: 3, "1 s pages, \(pager)")
    }

    /// 10 s pages: most rows complete nothing; the ones that do count it.
    @Test(.timeLimit(.minutes(10)))
    func pagesOfTenSeconds() async throws {
        let outcome = try await Self.run(pageNanoseconds: 10 * Self.second + 1, stages: "15s:2-2,15s:2", pagers: 2)
        #expect(outcome.timeline.pages.count == 4)
        Self.expectFiguresMatchTheTruth(outcome, pagers: 2, "10 s pages")
    }

    /// 1 µs pages (one pager moving the clock itself): published every 64 pages, within 2 %.
    @Test(.timeLimit(.minutes(10)))
    func pagesOfOneMicrosecond() async throws {
        let outcome = try await Self.run(
            pageNanoseconds: 1_001,
            stages: "50ms:1-1,50ms:1",
            pagers: 1,
            advancesClock: true
        )
        #expect(outcome.timeline.pages.count > 95_000)
        Self.expectFiguresMatchTheTruth(outcome, pagers: 1, unpublished: Workload().yieldEveryPages - 1, "1 µs pages")
    }
}
