import PagebenchBase
import PagebenchHarness
import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchStore
import PagebenchTestSupport
import Testing

/// P16 on the synthetic store: the store's change feed (S26) adapted to the pager's
/// ``ChangeFeed`` by ``StoreChangeFeed``, and the `apollo-watch` workload's watch latency.
@Suite struct StoreWatchingTests {
    typealias Pager = QueryPager<
        ClosurePageSource<PageRequest, Page>, ClosurePageSource<PageRequest, Page>, CursorBasedPagination.Forward,
        PaginationOutput<Page, Page>
    >

    /// A pager over partition 0 whose reads bring no writes (`evaluatePage`): the test
    /// decides when a write lands (`applyWrites(requests:)`).
    static func pager(_ store: SyntheticStore, limit: Int = 5) -> Pager {
        let request = PageRequest(range: .partition(0), limit: limit)
        return QueryPager(
            source: ClosurePageSource { try store.evaluatePage($0) },
            initialRequest: request,
            extractPageInfo: { CursorBasedPagination.Forward(nextToken: $0.nextToken) },
            pageResolver: { info, _ in info.endCursor.map { request.with(token: $0) } }
        )
    }

    static func store(position: WritePosition, continuation: ContinuationMode = .keyset) throws -> SyntheticStore {
        try SyntheticStore(
            configuration: StoreConfiguration(
                partitions: 2,
                itemsPerPartition: .uniform(30),
                itemSize: .fixed(100),
                writes: WritesConfiguration(insertRate: 1, position: position, hotPartitions: [0]),
                continuation: continuation
            )
        )
    }

    /// A write into a loaded page is re-fetched and published once, with the store's change
    /// as its trigger.
    @Test func aWriteIntoALoadedPageIsPublished() async throws {
        let store = try Self.store(position: .head)
        let pager = Self.pager(store)
        await pager.fetch()
        try await pager.loadNext()
        var outputs = pager.subscribe().makeAsyncIterator()
        let before = try #require(await outputs.next()?.get().allPages.flatMap(\.items))
        let feed = StoreChangeFeed(store: store)
        var watch = pager.watch(feed, touches: feed.touches).makeAsyncIterator()
        store.applyWrites(requests: 1)  // an insert before the first key of partition 0
        let refresh = try #require(await watch.next())
        #expect(refresh.trigger?.kind == .insert && refresh.trigger?.version == 1)
        let after = try #require(await outputs.next()?.get().allPages.flatMap(\.items))
        #expect(after.first?.sortKey == refresh.trigger?.sortKey)
        #expect(Array(after.dropFirst()) == Array(before.dropLast()))  // pages stay contiguous
    }

    /// The locator: a write beyond the loaded pages, or in another partition, touches none.
    @Test func writesOutsideTheLoadedPagesTouchNothing() async throws {
        let store = try Self.store(position: .tail)
        let pager = Self.pager(store)
        await pager.fetch()
        let output = try #require(pager.output)
        let feed = StoreChangeFeed(store: store)
        let request = PageRequest(range: .partition(0), limit: 5)
        let changes = store.changeFeed()
        store.applyWrites(requests: 1)  // an insert after the last key of partition 0
        var iterator = changes.makeAsyncIterator()
        let tail = try #require(await iterator.next())
        #expect(!feed.touches(tail, request, output.initialPage))
        let elsewhere = StoreChange(
            version: 2,
            kind: .insert,
            partition: 1,
            sortKey: 1,
            item: nil,
            committedAtNanoseconds: 0
        )
        #expect(!feed.touches(elsewhere, request, output.initialPage))
        let inside = StoreChange(
            version: 3,
            kind: .delete,
            partition: 0,
            sortKey: output.initialPage.items[2].sortKey,
            item: nil,
            committedAtNanoseconds: 0
        )
        #expect(feed.touches(inside, request, output.initialPage))
    }

    /// `apollo-watch` in the harness: drains load their first pages and watch them while
    /// per-second writes land; the row gets watch latencies, one per publication.
    @Test func theWatchWorkloadRecordsWatchLatency() async throws {
        let scenario = PagebenchTestSupport.scenario(
            store: StoreConfiguration(
                partitions: 2,
                itemsPerPartition: .uniform(60),
                itemSize: .fixed(100),
                writes: WritesConfiguration(insertRate: 2_000, deleteRate: 1_000, per: .second)
            )
        ) { workload in
            workload.pager = .apolloWatch
            workload.concurrency = [2]
            workload.drain = .firstPages(2)
            workload.watchSeconds = 0.2
            workload.bound = .drains(4)
        }
        let runner = try storeRunner(scenario)
        var options = PhaseRunner<StoreSource>.Options()
        options.phaseStore = try SyntheticStore(configuration: scenario.store)
        let result = await runner.run(concurrency: 2, repetition: 1, options: options)
        #expect(result.metrics.drains == 4)
        #expect(result.metrics.pages == 8)
        let latency = try #require(result.metrics.watchLatency)
        #expect(latency.count > 0)
        #expect(result.metrics.consistency == nil)  // watching drains are not S25 drains
        let row = result.row(context: RunContext.current(pagebenchVersion: "test"))
        #expect(row.watchRefreshes == Int(latency.count) && row.watchLatency != nil)
    }

    /// `apollo-watch` needs per-second writes: refused naming the field otherwise.
    @Test func theWatchWorkloadNeedsPerSecondWrites() throws {
        var workload = Workload()
        workload.pager = .apolloWatch
        for store in [
            StoreConfiguration(),
            StoreConfiguration(writes: WritesConfiguration(insertRate: 1, per: .request)),
        ] {
            #expect(throws: HarnessError.self) { try workload.validate(store: store) }
        }
        try workload.validate(store: StoreConfiguration(writes: WritesConfiguration(insertRate: 1, per: .second)))
        workload.watchSeconds = 0
        #expect(throws: HarnessError.self) {
            try workload.validate(store: StoreConfiguration(writes: WritesConfiguration(insertRate: 1, per: .second)))
        }
    }
}
