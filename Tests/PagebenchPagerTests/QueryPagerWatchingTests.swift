import PagebenchPager
import PagebenchTestSupport
import Synchronization
import Testing

/// A sorted list of keys paged by keyset (`after` the last key of the previous page), with a
/// change feed of its inserts and deletes: the smallest source a watching pager needs.
final class WatchedList: Sendable {
    struct Request: Sendable, Equatable {
        var after: Int?
    }

    struct Page: Sendable, Equatable {
        var keys: [Int]
        /// The last key of the page when more follow.
        var next: Int?
    }

    enum Change: Sendable, Equatable {
        case inserted(Int)
        case deleted(Int)

        var key: Int {
            switch self {
            case .inserted(let key), .deleted(let key): key
            }
        }
    }

    let limit: Int
    private let keys: Mutex<[Int]>
    private let subscribers = Mutex<[Int: @Sendable (Change) -> Void]>([:])
    let fetches = Atomic<Int>(0)
    /// When set, every fetch waits on it (a slow source; cancelled promptly).
    let gate: ManualSleeper?

    init(keys: [Int], limit: Int, gate: ManualSleeper? = nil) {
        self.keys = Mutex(keys.sorted())
        self.limit = limit
        self.gate = gate
    }

    var subscriberCount: Int { subscribers.withLock { $0.count } }

    func fetch(_ request: Request) async throws -> Page {
        fetches.add(1, ordering: .relaxed)
        if let gate { try await gate.sleep(for: .seconds(1)) }
        return keys.withLock { keys in
            let rest = keys.filter { key in request.after.map { key > $0 } ?? true }
            let page = Array(rest.prefix(limit))
            return Page(keys: page, next: rest.count > limit ? page.last : nil)
        }
    }

    func insert(_ key: Int) {
        keys.withLock { keys in
            keys.append(key)
            keys.sort()
        }
        publish(.inserted(key))
    }

    func delete(_ key: Int) {
        keys.withLock { keys in keys.removeAll { $0 == key } }
        publish(.deleted(key))
    }

    private func publish(_ change: Change) {
        for receive in subscribers.withLock({ Array($0.values) }) { receive(change) }
    }

    var feed: ClosureChangeFeed<Change> {
        ClosureChangeFeed { receive in
            let id = self.subscribers.withLock { subscribers in
                let id = (subscribers.keys.max() ?? 0) + 1
                subscribers[id] = receive
                return id
            }
            return ChangeFeedSubscription { _ = self.subscribers.withLock { $0.removeValue(forKey: id) } }
        }
    }

    /// Whether a change lands in the page `request` returned: after its start, up to its
    /// last key (or anywhere after, for the last page).
    @Sendable static func touches(_ change: Change, _ request: Request, _ page: Page) -> Bool {
        change.key > (request.after ?? .min) && change.key <= (page.next ?? .max)
    }

    typealias Pager = QueryPager<
        ClosurePageSource<Request, Page>, ClosurePageSource<Request, Page>, CursorBasedPagination.Forward,
        PaginationOutput<Page, Page>
    >

    func pager() -> Pager {
        QueryPager(
            source: ClosurePageSource { try await self.fetch($0) },
            initialRequest: Request(after: nil),
            extractPageInfo: { CursorBasedPagination.Forward(nextToken: $0.next.map(String.init)) },
            pageResolver: { info, _ in info.endCursor.flatMap(Int.init).map { Request(after: $0) } }
        )
    }
}

extension PaginationOutput where InitialPage == WatchedList.Page, Page == WatchedList.Page {
    var keys: [Int] { allPages.flatMap(\.keys) }
}

/// P16: watching the pages held.
@Suite struct QueryPagerWatchingTests {
    /// Two pages of 0, 10, …, 90 at limit 3: keys 0–50 are loaded, 60 on are not.
    static func loadedPager(_ list: WatchedList) async throws -> WatchedList.Pager {
        let pager = list.pager()
        await pager.fetch()
        try await pager.loadNext()
        #expect(pager.output?.keys == [0, 10, 20, 30, 40, 50])
        return pager
    }

    /// A write into a loaded page is published once; a write outside the loaded pages is
    /// not; a delete in the last page is.
    @Test func aWriteIntoALoadedPageIsPublishedOnceAndOnlyThose() async throws {
        let list = WatchedList(keys: Array(stride(from: 0, to: 100, by: 10)), limit: 3)
        let pager = try await Self.loadedPager(list)
        var outputs = pager.subscribe().makeAsyncIterator()
        #expect(try await outputs.next()?.get().keys == [0, 10, 20, 30, 40, 50])  // the latest, at once (P11)
        var watch = pager.watch(list.feed, touches: WatchedList.touches).makeAsyncIterator()

        list.insert(15)  // in the first page
        let first = try #require(await watch.next())
        #expect(first.trigger == .inserted(15))
        // The first page now ends at 15 instead of 20: the second page follows it again.
        #expect(first.refetchedPages == 2)
        #expect(try await outputs.next()?.get().keys == [0, 10, 15, 20, 30, 40])

        list.insert(75)  // beyond the loaded pages: nothing happens
        list.delete(30)  // in the second page
        let second = try #require(await watch.next())
        #expect(second.trigger == .deleted(30))
        #expect(second.refetchedPages == 1)
        // The output after the delete is the next one: the insert at 75 published nothing.
        #expect(try await outputs.next()?.get().keys == [0, 10, 15, 20, 40, 50])
        #expect(pager.canLoadNext)
        try await pager.loadNext()
        #expect(pager.output?.keys == [0, 10, 15, 20, 40, 50, 60, 70, 75])
    }

    /// A page that stops continuing after a delete drops the pages after it.
    @Test func aRefreshedPageThatNowEndsTheListingDropsThePagesAfterIt() async throws {
        let list = WatchedList(keys: [0, 10, 20, 30], limit: 3)
        let pager = list.pager()
        await pager.fetch()
        try await pager.loadNext()
        #expect(pager.output?.keys == [0, 10, 20, 30])
        var watch = pager.watch(list.feed, touches: WatchedList.touches).makeAsyncIterator()
        list.delete(10)
        #expect(await watch.next() != nil)
        #expect(pager.output?.keys == [0, 20, 30])
        #expect(pager.output?.nextPages.isEmpty == true)
        #expect(!pager.canLoadNext)
    }

    /// `reset()` ends the watch: the iterating child task returns, so its group ends
    /// (nothing is left running), and the feed subscription is gone.
    @Test func resetStopsWatching() async throws {
        let list = WatchedList(keys: Array(stride(from: 0, to: 100, by: 10)), limit: 3)
        let pager = try await Self.loadedPager(list)
        let watch = pager.watch(list.feed, touches: WatchedList.touches)
        #expect(list.subscriberCount == 1)
        let seen = await withTaskGroup(of: Int.self) { group in
            group.addTask {
                var count = 0
                for await _ in watch { count += 1 }
                return count
            }
            pager.reset()
            return await group.next() ?? -1
        }
        #expect(seen == 0)
        #expect(list.subscriberCount == 0)
        list.insert(5)
        #expect(pager.output == nil)
    }

    /// Cancelling the iterating task ends the watch and its subscription.
    @Test func cancellationStopsWatching() async throws {
        let list = WatchedList(keys: Array(stride(from: 0, to: 100, by: 10)), limit: 3)
        let pager = try await Self.loadedPager(list)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in pager.watch(list.feed, touches: WatchedList.touches) {}
            }
            group.cancelAll()
            await group.waitForAll()
        }
        #expect(list.subscriberCount == 0)
        let fetches = list.fetches.load(ordering: .relaxed)
        list.insert(5)
        #expect(list.fetches.load(ordering: .relaxed) == fetches)
        #expect(pager.output?.keys == [0, 10, 20, 30, 40, 50])
    }

    /// A reset during a refresh cancels its fetch at once (the source is holding it), ends
    /// the watch and publishes nothing (P12 for refreshes).
    @Test func resetDuringARefreshCancelsItsFetch() async throws {
        let gate = ManualSleeper(holds: true)
        let list = WatchedList(keys: Array(stride(from: 0, to: 100, by: 10)), limit: 3, gate: gate)
        let pager = list.pager()
        async let fetched: Void = pager.fetch()
        try await gate.nextSleeper()
        gate.releaseAll()
        await fetched
        var outputs = pager.subscribe().makeAsyncIterator()
        _ = await outputs.next()
        let watch = pager.watch(list.feed, touches: WatchedList.touches)
        let ended = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                var count = 0
                for await _ in watch { count += 1 }
                return count
            }
            list.insert(5)
            try await gate.nextSleeper()  // the refresh's fetch is waiting in the source
            #expect(pager.isLoading)
            pager.reset()
            return try await group.next() ?? -1
        }
        #expect(ended == 0)
        #expect(!pager.isLoading)  // P6
        #expect(pager.output == nil)
    }

    /// P5: a refresh is a load: `loadNext` during one throws `loadInProgress`; a change
    /// that arrives during a load is refreshed when the load ends.
    @Test func aRefreshWaitsForALoadAndALoadForARefresh() async throws {
        let gate = ManualSleeper(holds: true)
        let list = WatchedList(keys: Array(stride(from: 0, to: 100, by: 10)), limit: 3, gate: gate)
        let pager = list.pager()
        async let fetched: Void = pager.fetch()
        try await gate.nextSleeper()
        gate.releaseAll()
        await fetched
        let watch = pager.watch(list.feed, touches: WatchedList.touches)
        let refresh = try await withThrowingTaskGroup(of: WatchRefresh<WatchedList.Change>?.self) { group in
            group.addTask {
                var iterator = watch.makeAsyncIterator()
                return await iterator.next()
            }
            // A load in flight when the change comes: the refresh waits for it.
            async let loaded: Void = pager.loadNext()
            try await gate.nextSleeper()
            list.insert(5)
            gate.releaseAll()
            try await loaded
            try await gate.nextSleeper()  // the refresh's first fetch
            #expect(await paginationError { try await pager.loadNext() } == .loadInProgress)
            gate.releaseAll()
            try await gate.nextSleeper()  // the next page: the first page's continuation moved
            gate.releaseAll()
            return try await group.next() ?? nil
        }
        #expect(refresh?.trigger == .inserted(5))
        #expect(pager.output?.keys == [0, 5, 10, 20, 30, 40])
    }

    /// The polling fallback: a source without a feed is re-fetched every interval, and an
    /// output is published only when a page differs.
    @Test func pollingPublishesOnlyWhatChanged() async throws {
        let list = WatchedList(keys: Array(stride(from: 0, to: 100, by: 10)), limit: 3)
        let pager = try await Self.loadedPager(list)
        let clock = ManualSleeper(holds: true)
        let watch = pager.watch(pollingEvery: .milliseconds(5), sleep: clock.sleep)
        let refresh = try await withThrowingTaskGroup(of: WatchRefresh<Never>?.self) { group in
            group.addTask {
                var iterator = watch.makeAsyncIterator()
                return await iterator.next()
            }
            try await clock.nextSleeper()
            clock.releaseAll()  // an interval with no change: nothing published, it sleeps again
            try await clock.nextSleeper()
            list.delete(20)
            clock.releaseAll()
            return try await group.next() ?? nil
        }
        #expect(refresh != nil && refresh?.trigger == nil)
        #expect(pager.output?.keys == [0, 10, 30, 40, 50, 60])
    }
}
