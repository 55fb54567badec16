import PagebenchHarness
import PagebenchMetrics
import PagebenchStore
import PagebenchTestSupport
import Testing

@Suite struct DeterminismTests {
    static func skewedScenario(seed: UInt64?) -> Scenario {
        scenario(
            store: StoreConfiguration(
                partitions: 40,
                itemsPerPartition: .zipf(mean: 300, exponent: 1.1),
                selectivity: 0.2,
                clustering: .runs(length: 30)
            )
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
    @Test func h3DeterministicFiguresRepeatAcrossRunsAndConcurrency() async throws {
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

    @Test func h3AnotherSeedMakesOtherChoices() async throws {
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

/// docs/contract.md H9: where a request changes what later requests see — writes (S22), or the
/// arrival count injected failures are drawn from (S21) — a warm-up never changes what the
/// measured phase sees: each measured phase of a sweep pages a store as created, and its
/// warm-up another one, so that at concurrency 1 every deterministic figure of a row is the
/// same with a warm-up or without, run after run.
@Suite struct WarmUpIsolationTests {
    static let context = RunContext(
        timestampUTC: "2026-11-26T00:00:00Z",
        pagebenchVersion: "test",
        gitCommit: "abc",
        swiftVersion: "6.3",
        buildConfiguration: "debug",
        host: "test-host",
        cores: 2
    )

    /// The row of a one-phase sweep of `store` at concurrency 1 with a `warmup`-second warm-up.
    static func row(
        _ store: StoreConfiguration,
        warmup: Double,
        drains: Int,
        _ configure: (inout Workload) -> Void = { _ in }
    ) async throws -> ResultRow {
        let scenario = scenario(store: store) { workload in
            workload.concurrency = [1]
            workload.bound = .drains(drains)
            workload.warmupSeconds = warmup
            configure(&workload)
        }
        try scenario.validate()
        let output = try await SweepRunner(scenarios: [scenario], options: .init(context: context)).run()
        return try #require(output.rows.first)
    }

    /// What a warm-up must not move: the deterministic columns (pages, items, duplicates,
    /// skips, ...) and the injected failures' counts.
    static func seen(_ row: ResultRow) -> [String: String] {
        var seen: [String: String] = [:]
        for column in ResultRow.csvColumns
        where column.descriptor.kind == .deterministic || column.name.hasPrefix("errors_") || column.name == "throttles"
        {
            seen[column.name] = column.value(row).field
        }
        return seen
    }

    static let cases: [(String, StoreConfiguration, Int)] = [
        // The issue's: offset pagination under inserts and deletes.
        (
            "offset writes",
            StoreConfiguration(
                partitions: 4,
                itemsPerPartition: .uniform(200),
                writes: WritesConfiguration(insertRate: 1, deleteRate: 1),
                continuation: .offset
            ),
            30
        ),
        // A tiny store the warm-up's head deletes would empty before the first measured drain.
        (
            "head deletes",
            StoreConfiguration(
                partitions: 1,
                itemsPerPartition: .uniform(30),
                writes: WritesConfiguration(deleteRate: 1, position: .head)
            ),
            2
        ),
        // Failures drawn from the arrival count: the warm-up's requests shifted which failed.
        ("injected faults", StoreConfiguration(partitions: 4, itemsPerPartition: .uniform(200), faultRate: 0.05), 30),
    ]

    @Test(.timeLimit(.minutes(10)), arguments: cases.indices)
    func aWarmUpNeverChangesWhatTheMeasuredPhaseSees(_ index: Int) async throws {
        let (label, store, drains) = Self.cases[index]
        let noRetries: (inout Workload) -> Void = { $0.retry.maxRetries = 0 }
        let cold = try await Self.row(store, warmup: 0, drains: drains, noRetries)
        let warm = try await Self.row(store, warmup: 0.2, drains: drains, noRetries)
        let again = try await Self.row(store, warmup: 0.2, drains: drains, noRetries)
        #expect(cold.items > 0, "\(label)")
        #expect(
            Self.seen(warm) == Self.seen(cold),
            "\(label): with a warm-up \(Self.seen(warm)), without \(Self.seen(cold))"
        )
        #expect(Self.seen(again) == Self.seen(warm), "\(label): run after run")
        if store.faultRate > 0 { #expect(cold.errors.fault > 0, "\(label): failures were injected") }
    }
}
