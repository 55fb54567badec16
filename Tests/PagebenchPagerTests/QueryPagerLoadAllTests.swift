import PagebenchPager
import PagebenchTestSupport
import Synchronization
import Testing

/// `loadAll`'s page loop: one transition per page that stores the page and resolves the next
/// request from the page's own info, and the first attempt through `fetchWithoutWaiting`.
@Suite(.timeLimit(.minutes(5)))
struct QueryPagerLoadAllTests {
    typealias Source = PageStreamTests.HalfImmediateSource

    func pager(_ source: Source, retryPolicy: RetryPolicy = .none)
        -> QueryPager<Source, Source, CursorBasedPagination.Forward, PaginationOutput<Source.Page, Source.Page>>
    {
        QueryPager(
            source: source, initialRequest: nil, retryPolicy: retryPolicy,
            extractPageInfo: { CursorBasedPagination.Forward(nextToken: $0.nextToken) },
            pageResolver: { info, _ in info.endCursor })
    }

    @Test("P8: pages a source answers at once are held, counted and retried like awaited ones; fetch is not asked again")
    func p8ImmediateAnswersAreLoadedLikeAwaitedOnes() async throws {
        let source = Source(count: 9, failing: (4, .throttled))
        let pager = pager(source, retryPolicy: RetryPolicy(maxRetries: 2, initialBackoff: .microseconds(1), seed: 1))
        try await pager.loadAll()
        #expect(pager.output?.allPages.flatMap(\.items) == Array(0..<9))
        // Pages 0, 2, 4 (failing), 6, 8 asked at once; 1, 3, 5, 7 and the retry of 4 awaited.
        #expect(source.calls.immediate.load(ordering: .relaxed) == 5)
        #expect(source.calls.awaited.load(ordering: .relaxed) == 5)
        // P8: its requests (retries aside) equal the pages it holds.
        #expect(pager.counters.pages == 9)
        #expect(pager.counters.retries == 1)
        #expect(pager.counters.requests == 10)
        #expect(!pager.isLoading)
    }

    @Test("P9: a loadAll stopped by a repeated position keeps the pages before it and the info they were loaded with")
    func p9RepeatedPositionLeavesTheHeldInfoInPlace() async throws {
        // Page 3, asked for with page 2's token "3", answers with "3" again (at once): it is
        // refused and not kept.
        let source = Source(count: 9, repeating: 3)
        let pager = pager(source)
        #expect(await paginationError { try await pager.loadAll() } == .repeatedToken)
        #expect(pager.output?.allPages.flatMap(\.items) == [0, 1, 2])
        #expect(pager.canLoadNext)
        #expect(!pager.isLoading)
        // The refused page left page 2's info as the last one: the next load asks for "3"
        // again and is refused again, rather than following an earlier page's token.
        #expect(await paginationError { try await pager.loadNext() } == .repeatedToken)
        #expect(pager.output?.allPages.flatMap(\.items) == [0, 1, 2])
    }

    @Test("P3: a resolver that stops in the middle of a loadAll keeps the page it could not continue from")
    func p3ResolverStoppingMidLoadAllKeepsThePage() async throws {
        let source = Source(count: 9)
        let pager = QueryPager(
            source: source, initialRequest: nil,
            extractPageInfo: { CursorBasedPagination.Forward(nextToken: $0.nextToken) },
            // The request type is `String?` (nil: the first page), so "no request" is `.none`
            // of `String??`.
            pageResolver: { info, _ -> String?? in
                guard let cursor = info.endCursor, Int(cursor)! < 5 else { return .none }
                return .some(cursor)
            })
        #expect(await paginationError { try await pager.loadAll() } == .noQuery)
        #expect(pager.output?.allPages.flatMap(\.items) == [0, 1, 2, 3, 4])
        #expect(pager.counters.requests == 5)
        #expect(!pager.isLoading)
    }
}
