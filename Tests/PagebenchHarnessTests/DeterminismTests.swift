import PagebenchHarness
import PagebenchStore
import PagebenchTestSupport
import Testing

@Suite struct DeterminismTests {
    static func skewedScenario(seed: UInt64?) -> Scenario {
        scenario(store: StoreConfiguration(
            partitions: 40, itemsPerPartition: .zipf(mean: 300, exponent: 1.1), selectivity: 0.2,
            clustering: .runs(length: 30))
        ) {
            $0.pager = .apolloLoadNext
            $0.read = .partition(.zipf(exponent: 1.2))
            $0.filter = .matching
            $0.limit = 15
            $0.drain = .abandon(probability: 0.15)
            $0.bound = .drains(150)
            $0.seed = seed
        }
    }

    /// H3: same seed and configuration, same deterministic figures, whatever the
    /// concurrency and however the tasks interleave.
    @Test func H3_deterministicFiguresRepeatAcrossRunsAndConcurrency() async throws {
        let scenario = Self.skewedScenario(seed: 5)
        let first = try await storeRunner(scenario).run(concurrency: 4, repetition: 1)
        let second = try await storeRunner(scenario).run(concurrency: 4, repetition: 2)
        let serial = try await storeRunner(scenario).run(concurrency: 1, repetition: 1)
        let a = DeterministicFigures(first.metrics)
        #expect(a.drains == 150)
        #expect(a.emptyPagesWasted > 0)
        #expect(a == DeterministicFigures(second.metrics))
        #expect(a == DeterministicFigures(serial.metrics))
    }

    @Test func H3_anotherSeedMakesOtherChoices() async throws {
        let a = try await storeRunner(Self.skewedScenario(seed: 5)).run(concurrency: 2, repetition: 1)
        let b = try await storeRunner(Self.skewedScenario(seed: 6)).run(concurrency: 2, repetition: 1)
        #expect(DeterministicFigures(a.metrics) != DeterministicFigures(b.metrics))
    }

    @Test func drainPlansArePureFunctionsOfSeedAndIndex() {
        let store = StoreConfiguration(partitions: 100)
        var workload = Workload()
        workload.read = .partition(.zipf(exponent: 1.0))
        workload.cancelFraction = 0.5
        let planner = DrainPlanner(workload: workload, store: store)
        let again = DrainPlanner(workload: workload, store: store)
        let plans = (0..<500).map { planner.plan($0) }
        #expect(plans == (0..<500).map { again.plan($0) })
        #expect(plans.reversed() == (0..<500).reversed().map { again.plan($0) })
        // Zipf: partition 0 is chosen most, and the probe cancels about half.
        var counts = [Int](repeating: 0, count: 100)
        for plan in plans { if case .partition(let p) = plan.request.range { counts[p] += 1 } }
        #expect(counts[0] == counts.max())
        let cancelled = plans.filter(\.isCancelled).count
        #expect(cancelled > 200 && cancelled < 300)
        // Warm-up drains draw from their own stream.
        #expect(planner.plan(3, warmup: true) != planner.plan(3))
    }
}
