import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchStore
import PagebenchTestSupport
import Synchronization
import Testing

@testable import PagebenchHarness

/// Issue 17: the bare-loop calibration behind `harness_overhead_ratio`, and the direct
/// store path of ``StoreSource``, change no figure a run reports except the new column;
/// the drains that skip the store's cancellation check make no request once cancelled.
@Suite struct HarnessOverheadTests {
    static let context = RunContext(
        timestampUTC: "2026-11-24T00:00:00Z",
        pagebenchVersion: "test",
        gitCommit: "abc",
        swiftVersion: "6.3",
        buildConfiguration: "debug",
        host: "test-host",
        cores: 2
    )

    /// Throttling and faults with retries, so that S21 failure draws (by arrival ordinal)
    /// would shift if the calibration made a single store request.
    static let failingStore = StoreConfiguration(
        partitions: 6,
        itemsPerPartition: .uniform(300),
        selectivity: 0.3,
        throttleRate: 0.05,
        faultRate: 0.01
    )

    static func workload(_ workload: inout Workload) {
        workload.pager = .loop
        workload.read = .partition(.uniform)
        workload.limit = 7
        workload.concurrency = [1]
        workload.bound = .drains(30)
        workload.retry.initialBackoffNanoseconds = 1000
        workload.retry.maxBackoffNanoseconds = 10_000
    }

    @Test(
        "the calibration leaves deterministic figures unchanged (H3), and runs only where the bare loop is the floor (H7)"
    )
    func calibrationChangesNoFigure() async throws {
        var plainStore = Self.failingStore
        plainStore.throttleRate = 0
        plainStore.faultRate = 0
        for store in [plainStore, Self.failingStore] {
            let plain = try storeRunner(scenario(store: store, Self.workload))
            let calibrated = try storeRunner(scenario(store: store, Self.workload))
            let without = await plain.run(concurrency: 1, repetition: 1)
            var options = PhaseRunner<StoreSource>.Options()
            options.calibrationStore = calibrated.source.store
            let with = await calibrated.run(concurrency: 1, repetition: 1, options: options)

            #expect(DeterministicFigures(with.metrics) == DeterministicFigures(without.metrics))
            #expect(with.metrics.errors == without.metrics.errors)
            #expect(with.metrics.retries == without.metrics.retries)
            #expect(with.metrics.throttles == without.metrics.throttles)
            #expect(calibrated.source.store.injectionOrdinal == plain.source.store.injectionOrdinal)
            #expect(without.bareLoopPagesPerSecond == nil)
            #expect(without.row(context: Self.context).harnessOverheadRatio == nil)
            if store == Self.failingStore {
                #expect(
                    without.metrics.throttles > 0,
                    "the workload must meet throttling for this test to mean anything"
                )
                // Failures (S21) are no part of the bare loop: no calibration, no ratio.
                #expect(with.bareLoopPagesPerSecond == nil)
                #expect(with.row(context: Self.context).harnessOverheadRatio == nil)
            } else {
                let bare = try #require(with.bareLoopPagesPerSecond)
                #expect(bare > 0)
                let ratio = try #require(with.row(context: Self.context).harnessOverheadRatio)
                #expect(ratio == bare / with.pagesPerSecond)
            }
        }
    }

    /// H7: `harness_overhead_ratio` only where it measures the harness. A store that waits
    /// (S20) or fails (S21), or an open loop, gave 285 and 8,287 for stores of 5 ms and
    /// 12.5 ms pages: the bare loop against service times, not against the harness.
    @Test(.timeLimit(.minutes(10)))
    func theRatioIsEmptyWhereTheBareLoopIsNotTheFloor() async throws {
        let small = StoreConfiguration(partitions: 2, itemsPerPartition: .uniform(40))
        var waiting = small
        waiting.serviceTime = ServiceTimeModel(base: .fixed(nanoseconds: 200_000))
        var failing = small
        failing.faultRate = 0.01
        let cases: [(String, StoreConfiguration, LoadModel, Bool)] = [
            ("plain", small, .closed, true),
            ("service time", waiting, .closed, false),
            ("faults", failing, .closed, false),
            ("open loop", small, .open(drainsPerSecond: 500, poisson: false), false),
        ]
        for (label, store, load, hasRatio) in cases {
            let scenario = scenario(store: store) { workload in
                workload.concurrency = [2]
                workload.bound = .drains(6)
                workload.load = load
            }
            try scenario.validate()
            let output = try await SweepRunner(
                scenarios: [scenario],
                options: SweepRunner.Options(context: Self.context)
            ).run()
            let row = try #require(output.rows.first)
            #expect(
                (row.harnessOverheadRatio != nil) == hasRatio,
                "\(label): \(row.harnessOverheadRatio.map { "\($0)" } ?? "empty")"
            )
        }
    }

    @Test("every in-process row of a sweep carries harness_overhead_ratio; the timing-off rerun does not replace it")
    func sweepRowsCarryTheRatio() async throws {
        let scenario = scenario(store: StoreConfiguration(partitions: 4, itemsPerPartition: .uniform(200))) {
            workload in
            workload.pager = .streaming
            workload.read = .scan
            workload.concurrency = [1, 3]
            workload.bound = .drains(4)
            workload.measureOverhead = true
        }
        try scenario.validate()
        let output = try await SweepRunner(scenarios: [scenario], options: SweepRunner.Options(context: Self.context))
            .run()
        #expect(output.rows.count == 2)
        for row in output.rows {
            let ratio = try #require(row.harnessOverheadRatio, "concurrency \(row.concurrency)")
            #expect(ratio > 0 && ratio.isFinite)
            #expect(row.measurementOverheadRatio != nil)
        }
    }

    @Test("the direct store path keeps page(_:)'s contract: a cancelled caller gets CancellationError and no page")
    func directPathHonoursCancellation() async throws {
        let source = StoreSource(store: try SyntheticStore(configuration: StoreConfiguration(partitions: 2)))
        #expect(source.store.servesWithoutWaiting)
        let request = PageRequest(range: .partition(1), limit: 5)
        let direct = try await source.fetch(request)
        let served = try await source.store.page(request)
        #expect(direct.items.map(\.attributes) == served.items.map(\.attributes))
        #expect(direct.nextToken == served.nextToken && direct.scannedBytes == served.scannedBytes)

        let outcome = await withTaskGroup(of: Result<Page, any Error>.self) { group in
            group.cancelAll()
            group.addTask {
                do { return .success(try await source.fetch(request)) } catch { return .failure(error) }
            }
            return await group.next()!
        }
        guard case .failure(let error) = outcome else {
            Issue.record("a cancelled fetch returned a page")
            return
        }
        #expect(error is CancellationError)
    }

    @Test(
        "H2: a loop or streaming drain requests nothing once its task is cancelled, so the direct store path need not check",
        arguments: [PagerKind.loop, .streaming]
    )
    func h2DrainsCheckBeforeEveryRequest(kind: PagerKind) async throws {
        // Every drain is probed and cancels itself after some pages (the timer never fires):
        // the request that would follow is never made, with the store's own check skipped.
        let store = StoreConfiguration(partitions: 8, itemsPerPartition: .uniform(200))
        let scenario = scenario(store: store) { workload in
            workload.pager = kind
            workload.read = .partition(.uniform)
            workload.limit = 10
            workload.concurrency = [1]
            workload.bound = .drains(40)
            workload.cancelFraction = 1
        }
        try scenario.validate()
        let tracker = TrackingSource<StoreSource>.Tracker()
        let direct = StoreSource(store: try SyntheticStore(configuration: store), pager: kind)
        var options = PhaseRunner<TrackingSource<StoreSource>>.Options()
        options.probeSleep = { _ in try await Task.sleep(for: .seconds(3600)) }
        let result = await PhaseRunner(scenario: scenario, source: TrackingSource(base: direct, tracker: tracker))
            .run(concurrency: 1, repetition: 1, options: options)
        #expect(result.metrics.cancellations > 0)
        #expect(result.metrics.pagesAfterCancel == 0)
        #expect(result.metrics.errors.total == 0)
        #expect(
            tracker.started.load(ordering: .relaxed) == result.metrics.pages,
            "a request was made after cancellation"
        )
    }

    @Test("the direct path skips its cancellation check only for the drains that check before every request")
    func directPathChecksUnlessTheDrainDoes() async throws {
        let store = try SyntheticStore(configuration: StoreConfiguration(partitions: 2))
        let request = PageRequest(range: .partition(1), limit: 5)
        func fetchCancelled(_ source: StoreSource) async -> Bool {
            await withTaskGroup(of: Bool.self) { group in
                group.cancelAll()
                group.addTask { (try? await source.fetch(request)) != nil }
                return await group.next()!
            }
        }
        #expect(PagerKind.allCases.filter(\.checksCancellationBeforeEveryRequest) == [.loop, .streaming])
        #expect(await fetchCancelled(StoreSource(store: store, pager: .loop)))
        #expect(await fetchCancelled(StoreSource(store: store, pager: .streaming)))
        #expect(await !fetchCancelled(StoreSource(store: store)))
        #expect(await !fetchCancelled(StoreSource(store: store, pager: .apolloLoadNext)))
        #expect(await !fetchCancelled(StoreSource(store: store, pager: .apolloLoadAll)))
        // With a service model the store's own check and cancellable delay stay (S20, P13).
        let slow = try SyntheticStore(
            configuration: StoreConfiguration(
                partitions: 2,
                serviceTime: ServiceTimeModel(base: .fixed(nanoseconds: 1000))
            )
        )
        #expect(await !fetchCancelled(StoreSource(store: slow, pager: .loop)))
    }

    @Test(
        "with a pager per core or more a drain yields every millisecond; with a spare core only when the background work is starved"
    )
    func yieldPolicyFollowsSpareCores() {
        let ticks = Atomic<Int>(0)
        let spare = YieldPolicy.forPhase(pagers: 1, cores: 2) { ticks.load(ordering: .relaxed) }
        let busy = YieldPolicy.forPhase(pagers: 2, cores: 2) { ticks.load(ordering: .relaxed) }
        #expect(busy.intervalNanoseconds == 1_000_000 && busy.backgroundTicks == nil)
        #expect(YieldPolicy.forPhase(pagers: 64, cores: 2) { 0 }.backgroundTicks == nil)
        #expect(spare.intervalNanoseconds == 20_000_000)
        // A pool the phase does not own (no background count): a spare core may be someone
        // else's, so the pager yields every millisecond (a shared pool starved otherwise).
        let shared = YieldPolicy.forPhase(pagers: 1, cores: 2, backgroundTicks: nil)
        #expect(shared.intervalNanoseconds == 1_000_000 && shared.backgroundTicks == nil)

        var pacing = Pacing(timeSeries: false, latencySink: nil)
        let ms: UInt64 = 1_000_000
        #expect(busy.shouldYield(now: 5 * ms, &pacing))
        #expect(!busy.shouldYield(now: 5 * ms + ms / 2, &pacing), "within the interval")
        #expect(busy.shouldYield(now: 6 * ms, &pacing))

        pacing = Pacing(timeSeries: false, latencySink: nil)
        #expect(!spare.shouldYield(now: 30 * ms, &pacing), "first look: the background work's count is new")
        ticks.store(2, ordering: .relaxed)
        #expect(!spare.shouldYield(now: 40 * ms, &pacing), "within the interval")
        #expect(!spare.shouldYield(now: 50 * ms, &pacing), "the sampler ran since the last look: a thread is free")
        #expect(spare.shouldYield(now: 70 * ms, &pacing), "the sampler did not run for an interval: it is starved")
        ticks.store(3, ordering: .relaxed)
        #expect(!spare.shouldYield(now: 90 * ms, &pacing))
    }

    @Test("issue 38: a drain resumed from its yield has a turn of 100 µs before it yields again")
    func aResumedDrainHasATurn() {
        let ms: UInt64 = 1_000_000
        let us: UInt64 = 1_000
        let crowd = YieldPolicy.forPhase(pagers: 10_000, cores: 2) { 0 }
        #expect(crowd.turnNanoseconds == 100 * us && crowd.intervalNanoseconds == ms)
        #expect(YieldPolicy.forPhase(pagers: 64, cores: 2, backgroundTicks: nil).turnNanoseconds == 100 * us)

        // Waited 5 ms for its turn (longer than the interval): yields again after its turn,
        // not at its next checkpoint.
        var pacing = Pacing(timeSeries: false, latencySink: nil)
        #expect(crowd.shouldYield(now: 10 * ms, &pacing))
        crowd.resumed(at: 15 * ms, &pacing)
        #expect(!crowd.shouldYield(now: 15 * ms + 50 * us, &pacing), "within its turn")
        #expect(crowd.shouldYield(now: 15 * ms + 100 * us, &pacing), "its turn is over")

        // Waited 200 µs: the interval from its yield still decides.
        pacing = Pacing(timeSeries: false, latencySink: nil)
        #expect(crowd.shouldYield(now: 10 * ms, &pacing))
        crowd.resumed(at: 10 * ms + 200 * us, &pacing)
        #expect(!crowd.shouldYield(now: 10 * ms + 900 * us, &pacing), "within the interval")
        #expect(crowd.shouldYield(now: 11 * ms, &pacing))

        // A staged pool's policy has no turn: the interval alone, so a drain that waited
        // longer than it yields at its next checkpoint (its stage clock runs on time).
        #expect(YieldPolicy.everyMillisecond.turnNanoseconds == 0)
        pacing = Pacing(timeSeries: false, latencySink: nil)
        #expect(YieldPolicy.everyMillisecond.shouldYield(now: 10 * ms, &pacing))
        YieldPolicy.everyMillisecond.resumed(at: 15 * ms, &pacing)
        #expect(YieldPolicy.everyMillisecond.shouldYield(now: 15 * ms + 50 * us, &pacing))
    }
}
