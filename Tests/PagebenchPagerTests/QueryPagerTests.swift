import PagebenchPager
import PagebenchTestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct QueryPagerTests {
    // MARK: P1

    @Test func p1LoadsBeforeFetchThrowMissingInitialPageWithoutRequest() async {
        let source = ScriptedPageSource(forwardPages: [[1], [2]])
        let pager = forwardPager(source)
        #expect(await paginationError { try await pager.loadNext() } == .missingInitialPage)
        #expect(await paginationError { try await pager.loadPrevious() } == .missingInitialPage)
        #expect(await paginationError { try await pager.loadAll(fetchFromInitialPage: false) } == .missingInitialPage)
        #expect(source.requestCount == 0)
        #expect(!pager.isLoading)
    }

    // MARK: P2

    @Test func p2AfterLastPageLoadNextThrowsPageHasNoMoreContentWithoutRequest() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2]])
        let pager = forwardPager(source)
        await pager.fetch()
        try await pager.loadNext()
        #expect(!pager.canLoadNext)
        let requests = source.requestCount
        #expect(await paginationError { try await pager.loadNext() } == .pageHasNoMoreContent)
        #expect(source.requestCount == requests)
        #expect(pager.output?.items == [1, 2])
    }

    // MARK: P3

    @Test func p3ResolverWithoutRequestThrowsNoQuery() async {
        let source = ScriptedPageSource(previous: [[0]], initial: [1], next: [[2]])
        // A resolver that only pages forward.
        let pager = QueryPager(
            source: source,
            initialRequest: .initial,
            extractPageInfo: { $0.bidirectionalInfo },
            pageResolver: { info, direction in
                direction == .next ? info.endCursor.map { ScriptedRequest(token: $0, direction: .next) } : nil
            }
        )
        await pager.fetch()
        #expect(pager.canLoadPrevious)
        #expect(await paginationError { try await pager.loadPrevious() } == .noQuery)
        #expect(source.requestCount == 1)
        #expect(!pager.isLoading)
        // loadAll also reports it rather than stopping silently.
        #expect(await paginationError { try await pager.loadAll() } == .noQuery)
    }

    // MARK: P4

    @Test func p4CanLoadFlagsFollowTokens() async throws {
        let source = ScriptedPageSource(previous: [[0]], initial: [1], next: [[2]])
        let pager = bidirectionalPager(source)
        #expect(!pager.canLoadNext)
        #expect(!pager.canLoadPrevious)
        await pager.fetch()
        #expect(pager.canLoadNext)
        #expect(pager.canLoadPrevious)
        try await pager.loadNext()
        #expect(!pager.canLoadNext)
        #expect(pager.canLoadPrevious)
        try await pager.loadPrevious()
        #expect(!pager.canLoadPrevious)
        #expect(pager.output?.items == [0, 1, 2])
    }

    // MARK: P5

    @Test func p5ConcurrentLoadNextMakesOneRequestOthersThrowLoadInProgressAtOnce() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3]], gated: true)
        let pager = forwardPager(source)
        async let fetched: Void = pager.fetch()
        try await source.nextFetch().release()
        await fetched

        let callers = 8
        try await withThrowingTaskGroup(of: PaginationError?.self) { group in
            for _ in 0..<callers {
                group.addTask { await paginationError { try await pager.loadNext() } }
            }
            // The one request that was made is still held at the gate...
            let pending = try await source.nextFetch()
            // ...while every other caller has already failed: not queued behind it.
            for _ in 0..<(callers - 1) {
                let error = try await group.next()!
                #expect(error == .loadInProgress)
            }
            #expect(pager.isLoading)
            pending.release()
            let winner = try await group.next()!
            #expect(winner == nil)
        }
        #expect(source.requestCount == 2)
        #expect(pager.output?.nextPages.count == 1)
        #expect(pager.output?.items == [1, 2])
    }

    // MARK: P6

    @Test func p6InProgressFlagClearsAfterSuccessFailureCancellationAndReset() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3], [4]], gated: true)
        let pager = forwardPager(source)
        async let fetched: Void = pager.fetch()
        try await source.nextFetch().release()
        await fetched

        // Failure.
        let failing = Task { try await pager.loadNext() }
        _ = try await source.nextFetch().fail(ScriptedSourceError("boom"))
        #expect(await outcome(of: failing).failure as? ScriptedSourceError == ScriptedSourceError("boom"))
        #expect(!pager.isLoading)

        // Cancellation of the awaiting task.
        let cancelled = Task { try await pager.loadNext() }
        _ = try await source.nextFetch()
        cancelled.cancel()
        #expect(await outcome(of: cancelled).failure is CancellationError)
        #expect(!pager.isLoading)

        // Success: accepted at once after the cancellation.
        let succeeding = Task { try await pager.loadNext() }
        try await source.nextFetch().release()
        try await succeeding.value
        #expect(!pager.isLoading)

        // Reset during a load.
        let orphaned = Task { try await pager.loadNext() }
        _ = try await source.nextFetch()
        pager.reset()
        #expect(!pager.isLoading)
        #expect(await outcome(of: orphaned).failure is CancellationError)

        // And the next load is accepted at once.
        async let refetched: Void = pager.fetch()
        try await source.nextFetch().release()
        await refetched
        let next = Task { try await pager.loadNext() }
        try await source.nextFetch().release()
        try await next.value
        #expect(pager.output?.items == [1, 2])
    }

    // MARK: P7

    @Test func p7EmptyPagesWithTokenAreHeldAndFollowed() async throws {
        let pages: [[Int]] = [[1]] + Array(repeating: [], count: 200) + [[2, 3], []]
        let source = ScriptedPageSource(forwardPages: pages)
        let pager = forwardPager(source)
        await pager.fetch()
        try await pager.loadNext()
        #expect(pager.output?.nextPages.last?.items == [])
        #expect(pager.canLoadNext)
        try await pager.loadAll(fetchFromInitialPage: false)
        #expect(pager.output?.items == [1, 2, 3])
        #expect(pager.output?.pageCount == pages.count)
        #expect(!pager.canLoadNext)
    }

    // MARK: P8

    @Test func p8LoadAllCollectsEverythingWithOneRequestPerPageAndPublishesOnce() async throws {
        let pages: [[Int]] = [[1, 2], [], [3], [], [], [4, 5, 6], []]
        let source = ScriptedPageSource(forwardPages: pages)
        let pager = forwardPager(source)
        var outputs = pager.subscribe().makeAsyncIterator()

        try await pager.loadAll()
        #expect(pager.output?.items == [1, 2, 3, 4, 5, 6])
        #expect(source.requestCount == pages.count)
        #expect(pager.output?.pageCount == pages.count)
        #expect(pager.counters.requests == pages.count)
        #expect(pager.counters.pages == pages.count)

        // Exactly one output for the whole loadAll: the next one is the sentinel fetch's.
        pager.reset()
        await pager.fetch()
        let first = try #require(await outputs.next()?.success)
        #expect(first.items == [1, 2, 3, 4, 5, 6])
        let second = try #require(await outputs.next()?.success)
        #expect(second.pageCount == 1)
        #expect(second.items == [1, 2])
    }

    @Test func p8LoadAllFromInitialPageDiscardsWhatWasLoaded() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3]])
        let pager = forwardPager(source)
        await pager.fetch()
        try await pager.loadNext()
        try await pager.loadAll(fetchFromInitialPage: true)
        #expect(pager.output?.items == [1, 2, 3])
        #expect(pager.output?.pageCount == 3)

        // Without fetchFromInitialPage it continues from what is held.
        let again = forwardPager(ScriptedPageSource(forwardPages: [[1], [2], [3]]))
        await again.fetch()
        try await again.loadNext()
        try await again.loadAll(fetchFromInitialPage: false)
        #expect(again.output?.items == [1, 2, 3])
    }

    // MARK: P9

    @Test func p9RepeatedTokenStopsLoadNextAndLoadAll() async throws {
        var script: [ScriptedRequest: ScriptedPage] = [
            .initial: ScriptedPage(items: [1], nextToken: "t1"),
            ScriptedRequest(token: "t1"): ScriptedPage(items: [2], nextToken: "t2"),
            // Asked with t2, answers with t2 again: following it would loop forever.
            ScriptedRequest(token: "t2"): ScriptedPage(items: [], nextToken: "t2"),
        ]
        let pager = forwardPager(ScriptedPageSource(script: script))
        await pager.fetch()
        try await pager.loadNext()
        let error = await paginationError { try await pager.loadNext() }
        #expect(error == .repeatedToken)
        #expect(error?.message.contains("t2") == true)
        #expect(pager.output?.items == [1, 2])
        #expect(!pager.isLoading)

        let source = ScriptedPageSource(script: script)
        let all = forwardPager(source)
        #expect(await paginationError { try await all.loadAll() } == .repeatedToken)
        #expect(source.requestCount == 3)

        // The very first paginated page repeating the initial page's token is caught too.
        script[ScriptedRequest(token: "t1")] = ScriptedPage(items: [], nextToken: "t1")
        let early = forwardPager(ScriptedPageSource(script: script))
        #expect(await paginationError { try await early.loadAll() } == .repeatedToken)
    }

    // MARK: P10

    @Test func p10OutputOrderAndBidirectionalLoadAllExhaustsNextThenPrevious() async throws {
        let source = ScriptedPageSource(previous: [[-3], [-2], [-1]], initial: [0], next: [[1], [2]])
        let pager = bidirectionalPager(source)
        await pager.fetch()
        try await pager.loadPrevious()
        try await pager.loadNext()
        try await pager.loadPrevious()
        let output = try #require(pager.output)
        #expect(output.previousPages.map(\.items) == [[-2], [-1]])
        #expect(output.initialPage.items == [0])
        #expect(output.nextPages.map(\.items) == [[1]])

        let fresh = ScriptedPageSource(previous: [[-3], [-2], [-1]], initial: [0], next: [[1], [2]])
        let all = bidirectionalPager(fresh)
        try await all.loadAll()
        #expect(all.output?.items == [-3, -2, -1, 0, 1, 2])
        #expect(
            fresh.requests.map(\.description) == [
                "next:nil", "next:n1", "next:n2", "previous:p1", "previous:p2", "previous:p3",
            ]
        )
    }

    // MARK: P11

    @Test func p11LateSubscriberGetsLatestAndSubscribersSeeTheSameSequence() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3]])
        let pager = forwardPager(source)
        var early = pager.subscribe().makeAsyncIterator()
        await pager.fetch()
        try await pager.loadNext()
        // A late subscriber gets the latest output at once.
        var late = pager.subscribe().makeAsyncIterator()
        #expect(await late.next()?.success?.items == [1, 2])
        try await pager.loadNext()
        #expect(await early.next()?.success?.items == [1])
        #expect(await early.next()?.success?.items == [1, 2])
        #expect(await early.next()?.success?.items == [1, 2, 3])
        #expect(await late.next()?.success?.items == [1, 2, 3])
    }

    @Test func p11SourceFailureIsPublishedAndFetchReturns() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2]])
        source.fail(.initial, with: [ScriptedSourceError("store down")])
        let pager = forwardPager(source)
        var outputs = pager.subscribe().makeAsyncIterator()
        await pager.fetch()
        #expect(await outputs.next()?.failure as? ScriptedSourceError == ScriptedSourceError("store down"))
        #expect(pager.output == nil)
        #expect(!pager.isLoading)
        // A failed loadNext is published and thrown, and keeps the pages held.
        await pager.fetch()
        #expect(await outputs.next()?.success?.items == [1])
        source.fail(ScriptedRequest(token: "t1"), with: [ScriptedSourceError("again")])
        await #expect(throws: ScriptedSourceError("again")) { try await pager.loadNext() }
        #expect(await outputs.next()?.failure as? ScriptedSourceError == ScriptedSourceError("again"))
        #expect(pager.output?.items == [1])
    }

    @Test func p11ThrowingTransformYieldsFailureAndKeepsState() async throws {
        struct TooMany: Error, Equatable {}
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3]])
        let pager = QueryPager(
            source: source,
            initialRequest: .initial,
            extractPageInfo: { $0.forwardInfo },
            pageResolver: { info, _ in info.endCursor.map { ScriptedRequest(token: $0) } },
            transform: { output throws -> [Int] in
                let items = output.items
                if items.count == 2 { throw TooMany() }
                return items
            }
        )
        var outputs = pager.subscribe().makeAsyncIterator()
        await pager.fetch()
        try await pager.loadNext()
        try await pager.loadNext()
        #expect(await outputs.next()?.success == [1])
        #expect(await outputs.next()?.failure as? TooMany == TooMany())
        #expect(await outputs.next()?.success == [1, 2, 3])
    }

    // MARK: P12

    @Test func p12ResetDuringLoadEndsItPublishesNothingAndKeepsSubscribers() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3]], gated: true)
        let pager = forwardPager(source)
        var outputs = pager.subscribe().makeAsyncIterator()
        async let fetched: Void = pager.fetch()
        try await source.nextFetch().release()
        await fetched
        #expect(await outputs.next()?.success?.items == [1])

        let load = Task { try await pager.loadNext() }
        let pending = try await source.nextFetch()
        pager.reset()
        // Ends promptly: the gated fetch was never answered, the reset cancelled it.
        #expect(await outcome(of: load).failure is CancellationError)
        #expect(!pending.release())
        #expect(source.cancellationCount == 1)
        #expect(pager.output == nil)
        #expect(!pager.isLoading)
        #expect(!pager.canLoadNext)

        // The subscriber is still subscribed and the next thing it sees is the later fetch.
        async let refetched: Void = pager.fetch()
        try await source.nextFetch().release()
        await refetched
        #expect(await outputs.next()?.success?.items == [1])
    }

    @Test func p12ResetDuringLoadAllAndRefetchLeavesOnlyANewInitialPage() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3], [4]], gated: true)
        let pager = forwardPager(source)
        let all = Task { try await pager.loadAll() }
        try await source.nextFetch().release()
        try await source.nextFetch().release()
        _ = try await source.nextFetch()
        pager.reset()
        #expect(await outcome(of: all).failure is CancellationError)
        #expect(pager.output == nil)
        #expect(!pager.isLoading)

        source.openGate()
        await pager.fetch()
        try await pager.loadNext()
        try await pager.loadNext()
        await pager.refetch()
        #expect(pager.output?.pageCount == 1)
        #expect(pager.output?.items == [1])
        #expect(pager.canLoadNext)
    }

    @Test func p12FetchDuringLoadAbandonsTheOldLoad() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2]], gated: true)
        let pager = forwardPager(source)
        async let first: Void = pager.fetch()
        try await source.nextFetch().release()
        await first
        let load = Task { try await pager.loadNext() }
        _ = try await source.nextFetch()
        async let second: Void = pager.fetch()
        #expect(await outcome(of: load).failure is CancellationError)
        try await source.nextFetch().release()
        await second
        #expect(pager.output?.items == [1])
    }

    // MARK: P13

    @Test func p13CancellingTheAwaitingTaskStopsTheLoadPromptly() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2]], gated: true)
        let pager = forwardPager(source)
        var outputs = pager.subscribe().makeAsyncIterator()
        async let fetched: Void = pager.fetch()
        try await source.nextFetch().release()
        await fetched
        #expect(await outputs.next()?.success?.items == [1])

        let load = Task { try await pager.loadNext() }
        let pending = try await source.nextFetch()
        load.cancel()
        #expect(await outcome(of: load).failure is CancellationError)
        #expect(!pending.release())
        #expect(source.cancellationCount == 1)
        #expect(pager.output?.items == [1])
        #expect(pager.output?.nextPages.isEmpty == true)
        #expect(!pager.isLoading)
        #expect(pager.canLoadNext)

        // Nothing was published for the cancelled load: the next output is the next load's.
        let next = Task { try await pager.loadNext() }
        try await source.nextFetch().release()
        try await next.value
        #expect(await outputs.next()?.success?.items == [1, 2])
    }

    @Test func p13CancellingLoadAllAndFetch() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3]], gated: true)
        let pager = forwardPager(source)
        let all = Task { try await pager.loadAll() }
        try await source.nextFetch().release()
        _ = try await source.nextFetch()
        all.cancel()
        #expect(await outcome(of: all).failure is CancellationError)
        #expect(!pager.isLoading)

        let fetch = Task { await pager.fetch() }
        _ = try await source.nextFetch()
        fetch.cancel()
        await fetch.value
        #expect(pager.output == nil)
        #expect(!pager.isLoading)
        #expect(source.cancellationCount == 2)
    }

    @Test func p13CancellingDuringRetryBackoffStopsPromptly() async throws {
        let sleeper = ManualSleeper(holds: true)
        let source = ScriptedPageSource(forwardPages: [[1], [2]])
        source.fail(ScriptedRequest(token: "t1"), with: [ScriptedSourceError.throttled])
        let pager = forwardPager(source, retryPolicy: RetryPolicy(maxRetries: 3, sleep: sleeper.sleep))
        await pager.fetch()
        let load = Task { try await pager.loadNext() }
        try await sleeper.nextSleeper()
        load.cancel()
        #expect(await outcome(of: load).failure is CancellationError)
        #expect(source.requestCount == 2)
        #expect(pager.counters.retries == 0)
        #expect(!pager.isLoading)
    }

    // MARK: P14

    @Test func p14MultiQueryCursorPagerWithTransformToModel() async throws {
        struct Header: Sendable {
            var firstItems: [Int]
            var cursor: String?
        }
        let pages = ScriptedPageSource(forwardPages: [[0], [1, 2], [3]])
        let header = ClosurePageSource<String, Header> { name in
            #expect(name == "header")
            return Header(firstItems: [0], cursor: "t1")
        }
        let pager = QueryPager(
            initialSource: header,
            initialRequest: "header",
            paginatedSource: pages,
            extractInitialPageInfo: { CursorBasedPagination.Forward(nextToken: $0.cursor) },
            extractPageInfo: { $0.forwardInfo },
            pageResolver: { info, _ in info.endCursor.map { ScriptedRequest(token: $0) } },
            transform: { output in output.initialPage.firstItems + output.nextPages.flatMap(\.items) }
        )
        var outputs = pager.subscribe().makeAsyncIterator()
        try await pager.loadAll()
        #expect(await outputs.next()?.success == [0, 1, 2, 3])
        #expect(pages.requests.map(\.description) == ["next:t1", "next:t2"])
    }

    @Test func p14CursorReversePagination() async throws {
        let source = ScriptedPageSource(previous: [[-2], [-1]], initial: [0], next: [])
        let pager = QueryPager(
            source: source,
            initialRequest: .initial,
            extractPageInfo: {
                CursorBasedPagination.Reverse(hasPrevious: $0.previousToken != nil, startCursor: $0.previousToken)
            },
            pageResolver: { info, direction in info.startCursor.map { ScriptedRequest(token: $0, direction: direction) }
            }
        )
        await pager.fetch()
        #expect(!pager.canLoadNext)
        #expect(pager.canLoadPrevious)
        #expect(await paginationError { try await pager.loadNext() } == .pageHasNoMoreContent)
        try await pager.loadAll(fetchFromInitialPage: false)
        #expect(pager.output?.items == [-2, -1, 0])
    }

    @Test(arguments: [1, 3, 10])
    func p14OffsetPaginationForwardReverseAndBidirectional(pageSize: Int) async throws {
        let all = Array(0..<23)
        struct OffsetRequest: Sendable {
            var offset: Int
            var count: Int
        }
        struct OffsetPage: Sendable {
            var offset: Int
            var items: [Int]
        }
        @Sendable func previousRequest(before offset: Int) -> OffsetRequest {
            let start = max(0, offset - pageSize)
            return OffsetRequest(offset: start, count: offset - start)
        }
        let source = ClosurePageSource<OffsetRequest, OffsetPage> { request in
            let start = max(0, request.offset)
            let end = min(all.count, request.offset + request.count)
            return OffsetPage(offset: start, items: start < end ? Array(all[start..<end]) : [])
        }

        let forward = QueryPager(
            source: source,
            initialRequest: OffsetRequest(offset: 0, count: pageSize),
            extractPageInfo: { page in
                OffsetPagination.Forward(
                    offset: page.offset + page.items.count,
                    canLoadNext: page.offset + page.items.count < all.count
                )
            },
            pageResolver: { info, _ in OffsetRequest(offset: info.offset, count: pageSize) },
            transform: { output in output.allPages.flatMap(\.items) }
        )
        var forwardOutputs = forward.subscribe().makeAsyncIterator()
        try await forward.loadAll()
        #expect(await forwardOutputs.next()?.success == all)

        let reverse = QueryPager(
            source: source,
            initialRequest: OffsetRequest(offset: all.count - pageSize, count: pageSize),
            extractPageInfo: { page in OffsetPagination.Reverse(offset: page.offset, canLoadPrevious: page.offset > 0)
            },
            pageResolver: { info, _ in previousRequest(before: info.offset) }
        )
        try await reverse.loadAll()
        #expect(reverse.output?.allPages.flatMap(\.items) == all)

        let middle = all.count / 2
        let both = QueryPager(
            source: source,
            initialRequest: OffsetRequest(offset: middle, count: pageSize),
            extractPageInfo: { page in
                OffsetPagination.Bidirectional(
                    offset: page.offset,
                    canLoadNext: page.offset + page.items.count < all.count,
                    canLoadPrevious: page.offset > 0
                )
            },
            pageResolver: { info, direction in
                switch direction {
                case .next: OffsetRequest(offset: info.offset + pageSize, count: pageSize)
                case .previous: previousRequest(before: info.offset)
                }
            }
        )
        try await both.loadAll()
        #expect(both.output?.allPages.flatMap(\.items) == all)
    }
}
