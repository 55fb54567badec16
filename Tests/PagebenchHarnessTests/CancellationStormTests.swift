import PagebenchHarness
import PagebenchStore
import PagebenchTestSupport
import Testing

@Suite struct CancellationStormTests {
    /// H2: hundreds of pagers, every drain cancelled at a random instant: every task returns,
    /// every drain is accounted for, no fetch is left running and nothing still holds the
    /// source (no pager, stream, closure or task leaked).
    @Test(arguments: [PagerKind.streaming, .apolloLoadNext, .apolloLoadAll, .loop])
    func h2CancellationStormLeavesNothingBehind(kind: PagerKind) async throws {
        let store = StoreConfiguration(
            partitions: 16,
            itemsPerPartition: .uniform(200),
            serviceTime: ServiceTimeModel(base: .fixed(nanoseconds: 1_000_000))
        )
        let scenario = scenario(store: store) {
            $0.pager = kind
            $0.limit = 20
            $0.bound = .drains(600)
            $0.cancelFraction = 1
        }
        try scenario.validate()
        var tracker = TrackingSource<StoreSource>.Tracker()
        let result: PhaseResult
        do {
            let source = TrackingSource(
                base: StoreSource(store: try SyntheticStore(configuration: store)),
                tracker: tracker
            )
            result = await PhaseRunner(scenario: scenario, source: source).run(concurrency: 300, repetition: 1)
        }
        let metrics = result.metrics
        #expect(result.pagersReturned == 300)
        #expect(metrics.drains + metrics.cancellations + metrics.errors.total == 600)
        #expect(metrics.errors.total == 0)
        #expect(metrics.cancellations > 0)
        #expect(metrics.cancellationLatency?.count == UInt64(metrics.cancellations))
        #expect(tracker.inFlight.load(ordering: .relaxed) == 0)
        #expect(tracker.started.load(ordering: .relaxed) > 0)
        #expect(isKnownUniquelyReferenced(&tracker), "something still holds the page source")
    }

    /// H2: a duration-bound phase ends by cancelling every drain in flight; each cancelled
    /// drain's latency is timed and every task returns.
    @Test func h2FinalCancelEverythingEndsADurationBoundPhase() async throws {
        let store = StoreConfiguration(
            partitions: 8,
            itemsPerPartition: .uniform(10_000),
            serviceTime: ServiceTimeModel(base: .fixed(nanoseconds: 2_000_000))
        )
        // A phase long enough for every pager to begin its first drain on a loaded machine:
        // a pager that would begin after the deadline begins nothing (it reads the deadline).
        let scenario = scenario(store: store) {
            $0.pager = .streaming
            $0.limit = 10
            $0.bound = .duration(seconds: 1)
        }
        let tracker = TrackingSource<StoreSource>.Tracker()
        let source = TrackingSource(
            base: StoreSource(store: try SyntheticStore(configuration: store)),
            tracker: tracker
        )
        let result = await PhaseRunner(scenario: scenario, source: source).run(concurrency: 50, repetition: 1)
        #expect(result.pagersReturned == 50)
        // Each drain is 1,001 pages of 2 ms: every drain begun is still running at the deadline,
        // and is cancelled and timed (a pager that a loaded machine starts after the deadline
        // begins none: it reads the deadline first).
        let begun = tracker.firstPages.load(ordering: .relaxed)
        #expect(begun <= 50)
        #expect(result.metrics.cancellations == begun)
        #expect(result.metrics.drains == 0)
        #expect(result.metrics.cancellationLatency?.count == UInt64(begun))
        #expect(tracker.inFlight.load(ordering: .relaxed) == 0)
    }
}
