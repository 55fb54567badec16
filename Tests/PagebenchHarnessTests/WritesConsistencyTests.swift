import PagebenchBase
import PagebenchHarness
import PagebenchMetrics
import PagebenchPage
import PagebenchStore
import PagebenchTestSupport
import Testing

/// S25 in the harness: the duplicates and skips a run counts per drain (from the store's
/// versioned overlay) are exactly what the independent sorted-array model predicts when it
/// replays the same drains on a twin store, for every write interleaving of a seeded set.
@Suite struct WritesConsistencyTests {
    /// Runs `scenario` at concurrency 1 and replays its drains on a twin store with the model.
    static func compare(_ scenario: Scenario) async throws -> (row: TaskMetrics, model: ConsistencyCounts) {
        let runner = try storeRunner(scenario)
        var options = PhaseRunner<StoreSource>.Options()
        options.phaseStore = try SyntheticStore(configuration: scenario.store)
        let result = await runner.run(concurrency: 1, repetition: 1, options: options)

        let twin = try SyntheticStore(configuration: scenario.store)
        var replay = try WritesReplay(store: twin, filter: scenario.workload.filter)
        defer { replay.cancel() }
        var model = ConsistencyCounts()
        guard case .drains(let count) = scenario.workload.bound else { preconditionFailure("drain-bounded only") }
        for index in 0..<count {
            let drain = try await replay.drain(runner.planner.plan(index).request, maxPages: 5_000)
            #expect(drain.mismatch == nil, "drain \(index): \(drain.mismatch ?? "")")
            model.record(duplicates: drain.modelDuplicates, skipped: drain.modelSkipped)
        }
        return (result.metrics, model)
    }

    static func writtenScenario(
        _ random: inout SplitMix64,
        continuation: ContinuationMode,
        pager: PagerKind
    ) -> Scenario {
        let store = StoreConfiguration(
            partitions: Int.random(in: 1...3, using: &random),
            itemsPerPartition: .uniform(Int.random(in: 5...40, using: &random)),
            // Every page holds at least two items (budget ≥ 2 × the largest item) and a request
            // brings at most one insert, so every drain ends.
            itemSize: .uniform(min: 20, max: 100),
            selectivity: 0.4,
            scanBudgetBytes: [250, 1_048_576].randomElement(using: &random)!,
            seed: random.next(),
            writes: WritesConfiguration(
                insertRate: [0.2, 0.6, 1].randomElement(using: &random)!,
                deleteRate: [0, 0.3, 1].randomElement(using: &random)!,
                updateRate: [0, 0.5].randomElement(using: &random)!,
                position: WritePosition.allCases.randomElement(using: &random)!
            ),
            continuation: continuation
        )
        let read: ReadRange = Bool.random(using: &random) ? .scan : .partition(.uniform)
        let limit = [3, 5].randomElement(using: &random)!
        let filter: Filter? = [nil, .matching].randomElement(using: &random)!
        let reverse = Bool.random(using: &random)
        return PagebenchTestSupport.scenario(store: store) { workload in
            workload.pager = pager
            workload.concurrency = [1]
            workload.read = read
            workload.limit = limit
            workload.filter = filter
            workload.reverse = reverse
            workload.bound = .drains(6)
        }
    }

    @Test(arguments: [ContinuationMode.keyset, .offset])
    func harnessCountsMatchTheModel(continuation: ContinuationMode) async throws {
        var random = SplitMix64(seed: continuation == .keyset ? 0xC0DE : 0xC0FF)
        var total = ConsistencyCounts()
        for round in 0..<40 {
            let pager = [PagerKind.streaming, .loop, .apolloLoadNext, .apolloLoadAll][round % 4]
            let scenario = Self.writtenScenario(&random, continuation: continuation, pager: pager)
            let (metrics, model) = try await Self.compare(scenario)
            #expect(metrics.consistency == model, "round \(round) \(pager): \(scenario.store.canonicalText)")
            #expect(metrics.drains == 6)
            total = total.adding(model)
        }
        if continuation == .keyset {
            #expect(total.duplicateItems == 0 && total.skippedItems == 0 && total.checkedDrains == 240)  // S24
        } else {
            #expect(total.duplicateItems > 0 && total.skippedItems > 0 && total.inconsistentDrains > 0)
        }
    }

    /// Without writes nothing is counted: the columns stay empty (S25 is zero by S10).
    @Test func noConsistencyColumnsWithoutWrites() async throws {
        let runner = try storeRunner(
            PagebenchTestSupport.scenario(store: StoreConfiguration(partitions: 2, itemsPerPartition: .uniform(30))) {
                $0.concurrency = [1]
                $0.bound = .drains(4)
            }
        )
        let result = await runner.run(concurrency: 1, repetition: 1)
        #expect(result.metrics.consistency == nil)
        #expect(result.row(context: RunContext.current(pagebenchVersion: "test")).duplicateItems == nil)
    }

    /// A row under writes carries the counts.
    @Test func rowsUnderWritesCarryTheCounts() async throws {
        var random = SplitMix64(seed: 0xA11)
        let scenario = Self.writtenScenario(&random, continuation: .offset, pager: .streaming)
        let (metrics, model) = try await Self.compare(scenario)
        var row = ResultRow()
        row.apply(metrics, measuredSeconds: 1)
        #expect(row.duplicateItems == model.duplicateItems)
        #expect(row.skippedItems == model.skippedItems)
        #expect(row.inconsistentDrains == model.inconsistentDrains)
    }
}
