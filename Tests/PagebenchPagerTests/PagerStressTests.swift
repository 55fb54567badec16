import PagebenchPager
import PagebenchTestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct PagerStressTests {
    struct Request: Sendable { var index: Int }
    struct Page: Sendable {
        var items: [Int]
        var next: Int?
    }

    /// A source of `pageCount` pages (some empty) that suspends in every fetch, so that
    /// concurrent callers interleave with in-flight loads.
    static func source(pager: Int, pageCount: Int) -> ClosurePageSource<Request, Page> {
        ClosurePageSource { request in
            await Task.yield()
            let items = request.index % 3 == 1 ? [] : [pager * 1_000 + request.index]
            return Page(items: items, next: request.index + 1 < pageCount ? request.index + 1 : nil)
        }
    }

    static func expected(pager: Int, pageCount: Int) -> [Int] {
        (0..<pageCount).filter { $0 % 3 != 1 }.map { pager * 1_000 + $0 }
    }

    @Test func p5p6ManyPagersManyConcurrentLoadNextCallers() async throws {
        let pagerCount = 40
        let callersPerPager = 6
        let pageCount = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for pagerIndex in 0..<pagerCount {
                group.addTask {
                    let pager = QueryPager(
                        source: Self.source(pager: pagerIndex, pageCount: pageCount),
                        initialRequest: Request(index: 0),
                        extractPageInfo: {
                            OffsetPagination.Forward(offset: $0.next ?? -1, canLoadNext: $0.next != nil)
                        },
                        pageResolver: { info, _ in Request(index: info.offset) },
                        transform: { $0.allPages.flatMap(\.items) }
                    )
                    await pager.fetch()
                    let successes = try await withThrowingTaskGroup(of: Int.self) { callers in
                        for _ in 0..<callersPerPager {
                            callers.addTask {
                                var loaded = 0
                                while true {
                                    do {
                                        try await pager.loadNext()
                                        loaded += 1
                                    } catch let error as PaginationError where error == .loadInProgress {
                                        await Task.yield()
                                    } catch let error as PaginationError where error == .pageHasNoMoreContent {
                                        return loaded
                                    }
                                }
                            }
                        }
                        return try await callers.reduce(0, +)
                    }
                    let output = try #require(pager.output)
                    let items = output.allPages.flatMap(\.items)
                    #expect(items == Self.expected(pager: pagerIndex, pageCount: pageCount))
                    #expect(Set(items).count == items.count)
                    #expect(successes == pageCount - 1)
                    #expect(pager.counters.requests == pageCount)
                    #expect(output.pageCount == pageCount)
                    #expect(!pager.isLoading)
                    #expect(!pager.canLoadNext)
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func p12p13ResetsAndCancellationsUnderConcurrencyLeaveNoStuckFlag() async throws {
        let pageCount = 30
        try await withThrowingTaskGroup(of: Void.self) { group in
            for pagerIndex in 0..<20 {
                group.addTask {
                    let pager = QueryPager(
                        source: Self.source(pager: pagerIndex, pageCount: pageCount),
                        initialRequest: Request(index: 0),
                        extractPageInfo: {
                            OffsetPagination.Forward(offset: $0.next ?? -1, canLoadNext: $0.next != nil)
                        },
                        pageResolver: { info, _ in Request(index: info.offset) }
                    )
                    let loadAll = Task { try await pager.loadAll() }
                    await Task.yield()
                    if pagerIndex.isMultiple(of: 2) { pager.reset() } else { loadAll.cancel() }
                    _ = await loadAll.result
                    #expect(!pager.isLoading)
                    // Whatever happened, a fresh loadAll now collects exactly everything.
                    try await pager.loadAll()
                    let items = try #require(pager.output).allPages.flatMap(\.items)
                    #expect(items == Self.expected(pager: pagerIndex, pageCount: pageCount))
                    #expect(!pager.isLoading)
                }
            }
            try await group.waitForAll()
        }
    }
}
