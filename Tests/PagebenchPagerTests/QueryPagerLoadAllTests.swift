import PagebenchPager
import PagebenchTestSupport
import Synchronization
import Testing

/// `loadAll`'s page loop: one transition per page that stores the page and resolves the next
/// request from the page's own info, and the first attempt through `fetchWithoutWaiting`.
@Suite(.timeLimit(.minutes(5)))
struct QueryPagerLoadAllTests {
    typealias Source = PageStreamTests.HalfImmediateSource

    func pager(
        _ source: Source,
        retryPolicy: RetryPolicy = .none
    )
        -> QueryPager<Source, Source, CursorBasedPagination.Forward, PaginationOutput<Source.Page, Source.Page>>
    {
        QueryPager(
            source: source,
            initialRequest: nil,
            retryPolicy: retryPolicy,
            extractPageInfo: { CursorBasedPagination.Forward(nextToken: $0.nextToken) },
            pageResolver: { info, _ in info.endCursor }
        )
    }

    @Test(
        "P8: pages a source answers at once are held, counted and retried like awaited ones; fetch is not asked again"
    )
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
            source: source,
            initialRequest: nil,
            extractPageInfo: { CursorBasedPagination.Forward(nextToken: $0.nextToken) },
            // The request type is `String?` (nil: the first page), so "no request" is `.none`
            // of `String??`.
            pageResolver: { info, _ -> String?? in
                guard let cursor = info.endCursor, Int(cursor)! < 5 else { return .none }
                return .some(cursor)
            }
        )
        #expect(await paginationError { try await pager.loadAll() } == .noQuery)
        #expect(pager.output?.allPages.flatMap(\.items) == [0, 1, 2, 3, 4])
        #expect(pager.counters.requests == 5)
        #expect(!pager.isLoading)
    }
}

/// `loadAll` over a source that answers at once (`fetchWithoutWaiting`): the pages load in the
/// calling task, and a reset, the caller's cancellation and a switch to awaited answers mid-load
/// behave as they do for a load in its own task.
@Suite(.timeLimit(.minutes(5)))
struct QueryPagerLoadAllAtOnceTests {
    /// Pages [1], [2], [3], [4], [5]: requests "initial", "t1" … "t4".
    static let requests = [ScriptedRequest.initial] + (1...4).map { ScriptedRequest(token: "t\($0)") }

    func source(atOnce: Int = 5, gated: Bool = false) -> ScriptedPageSource {
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3], [4], [5]], gated: gated)
        source.answerAtOnce(Self.requests.prefix(atOnce))
        return source
    }

    @Test("P8: pages answered at once load in the calling task, one request each, published once")
    func p8PagesAnsweredAtOnceLoadInTheCallingTask() async throws {
        let source = source()
        let pager = forwardPager(source)
        let tasks = Mutex<Set<Int>>([])
        source.onAnswerAtOnce { _ in
            let task = withUnsafeCurrentTask { $0?.hashValue }
            tasks.withLock { _ = $0.insert(task ?? 0) }
        }
        var outputs = pager.subscribe().makeAsyncIterator()
        let caller = Task {
            try await pager.loadAll()
            return withUnsafeCurrentTask { $0?.hashValue } ?? -1
        }
        let callerTask = try await caller.value
        #expect(tasks.withLock { $0 } == [callerTask])
        #expect(pager.output?.items == [1, 2, 3, 4, 5])
        #expect(source.answerAtOnceCount == 5)
        #expect(source.requestCount == 5)
        #expect(pager.counters.requests == 5)
        #expect(pager.counters.pages == 5)
        #expect(!pager.isLoading)
        #expect(await outputs.next()?.success?.items == [1, 2, 3, 4, 5])
    }

    @Test(
        "P12: a reset during a loadAll answered at once ends it at the next page, publishes nothing, clears everything"
    )
    func p12ResetDuringLoadAllAnsweredAtOnce() async throws {
        let source = source()
        let pager = forwardPager(source)
        let loadingAtReset = Mutex<Bool?>(nil)
        source.onAnswerAtOnce { [weak pager] request in
            guard let pager, request.token == "t2" else { return }
            loadingAtReset.withLock { $0 = pager.isLoading }
            pager.reset()
        }
        var outputs = pager.subscribe().makeAsyncIterator()
        #expect(await throwsCancellation { try await pager.loadAll() })
        // P5: the load held the pager until the reset.
        #expect(loadingAtReset.withLock { $0 } == true)
        // Promptly: the page asked for when the reset came is the last request.
        #expect(source.requests.map(\.token) == [nil, "t1", "t2"])
        #expect(pager.output == nil)
        #expect(!pager.isLoading)
        #expect(!pager.canLoadNext)

        // Nothing was published; the subscriber stays and sees the next fetch.
        source.onAnswerAtOnce { _ in }
        await pager.fetch()
        #expect(await outputs.next()?.success?.items == [1])
    }

    @Test("P13: cancelling the caller of a loadAll answered at once stops it at the next page, nothing published")
    func p13CancellingTheCallerOfALoadAllAnsweredAtOnce() async throws {
        let source = source()
        let pager = forwardPager(source)
        source.onAnswerAtOnce { request in
            // The hook runs in the calling task (the load never suspends).
            if request.token == "t2" { withUnsafeCurrentTask { $0?.cancel() } }
        }
        let all = Task { try await pager.loadAll() }
        #expect(await outcome(of: all).failure is CancellationError)
        #expect(source.requests.map(\.token) == [nil, "t1", "t2"])
        // The pages before the cancellation are held, unpublished; the page answered after it
        // is not kept (no partial page) and the flag is cleared.
        #expect(pager.output?.items == [1, 2])
        #expect(!pager.isLoading)
        var late = pager.subscribe().makeAsyncIterator()
        source.onAnswerAtOnce { _ in }
        try await pager.loadAll(fetchFromInitialPage: false)
        #expect(await late.next()?.success?.items == [1, 2, 3, 4, 5])
    }

    @Test(
        "P12, P5: a source that switches to awaited answers mid-load: the awaited request is in flight, cancelled by a reset"
    )
    func p12p5SwitchToAwaitedAnswersMidLoadThenReset() async throws {
        // The initial page and t1, t2 answer at once; t3 and t4 wait for the test.
        let source = source(atOnce: 3, gated: true)
        let pager = forwardPager(source)
        let all = Task { try await pager.loadAll() }
        let pending = try await source.nextFetch()
        #expect(pending.request.token == "t3")
        #expect(pager.isLoading)
        #expect(await paginationError { try await pager.loadNext() } == .loadInProgress)
        pager.reset()
        await expectStoppedInFlight(all, pending, source: source)
        #expect(pager.output == nil)
        #expect(!pager.isLoading)
    }

    @Test(
        "P8, P13: after a switch to awaited answers the load finishes in its task, or stops when its caller is cancelled"
    )
    func p8p13SwitchToAwaitedAnswersMidLoad() async throws {
        let source = source(atOnce: 3, gated: true)
        let pager = forwardPager(source)
        var outputs = pager.subscribe().makeAsyncIterator()
        let all = Task { try await pager.loadAll() }
        try await source.nextFetch().release()
        try await source.nextFetch().release()
        try await all.value
        #expect(pager.output?.items == [1, 2, 3, 4, 5])
        #expect(source.answerAtOnceCount == 3)
        #expect(pager.counters.requests == 5)
        #expect(await outputs.next()?.success?.items == [1, 2, 3, 4, 5])

        let cancelled = Task { try await pager.loadAll() }
        let pending = try await source.nextFetch()
        cancelled.cancel()
        await expectStoppedInFlight(cancelled, pending, source: source)
        #expect(!pager.isLoading)
    }

    @Test("P11: a failure answered at once ends the load like an awaited one: published, rethrown, earlier pages kept")
    func p11FailureAnsweredAtOnce() async throws {
        let source = source()
        source.fail(ScriptedRequest(token: "t3"), with: [ScriptedSourceError("bad page")])
        let pager = forwardPager(source)
        var outputs = pager.subscribe().makeAsyncIterator()
        await #expect(throws: ScriptedSourceError("bad page")) { try await pager.loadAll() }
        #expect(await outputs.next()?.failure as? ScriptedSourceError == ScriptedSourceError("bad page"))
        #expect(pager.output?.items == [1, 2, 3])
        #expect(!pager.isLoading)
    }
}
