import PagebenchTestSupport
import Testing

@testable import PagebenchPager

/// The latest published output of `QueryPager` (P11) is kept as a prefix of the pages held,
/// so that loading a page appends in place instead of copying every page held. These tests
/// pin down what a late subscriber sees (P10, P11, P12) and, deterministically, that the
/// page arrays are not copied per load: with capacity reserved, their buffer must stay put.
@Suite(.timeLimit(.minutes(5)))
struct QueryPagerLatestOutputTests {
    typealias Machine = QueryPagerStateMachine<
        ScriptedPage, ScriptedPage, ScriptedRequest, CursorBasedPagination.Forward, [Int]
    >

    // MARK: Prefix semantics

    @Test func p11LateSubscriberAfterManyLoadNextGetsExactlyThePublishedOutput() async throws {
        let pages = (0..<30).map { [$0] }
        let pager = forwardPager(ScriptedPageSource(forwardPages: pages))
        await pager.fetch()
        for _ in 0..<20 { try await pager.loadNext() }
        var late = pager.subscribe().makeAsyncIterator()
        let first = try #require(await late.next()?.success)
        #expect(first.items == Array(0...20))
        #expect(first.pageCount == 21)
        try await pager.loadNext()
        #expect(await late.next()?.success?.items == Array(0...21))
        // A second late subscriber gets the same, built from the pages held now.
        var later = pager.subscribe().makeAsyncIterator()
        #expect(await later.next()?.success?.items == Array(0...21))
    }

    @Test func p10p11LateSubscriberGetsPublishedPreviousAndNextPagesInOrder() async throws {
        let source = ScriptedPageSource(previous: [[-3], [-2], [-1]], initial: [0], next: [[1], [2], [3]])
        let pager = bidirectionalPager(source)
        await pager.fetch()
        try await pager.loadPrevious()
        try await pager.loadNext()
        try await pager.loadPrevious()
        try await pager.loadNext()
        var late = pager.subscribe().makeAsyncIterator()
        let output = try #require(await late.next()?.success)
        #expect(output.previousPages.map(\.items) == [[-2], [-1]])
        #expect(output.initialPage.items == [0])
        #expect(output.nextPages.map(\.items) == [[1], [2]])
    }

    @Test func p11LateSubscriberDuringLoadAllSeesOnlyWhatWasPublished() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3], [4], [5]], gated: true)
        let pager = forwardPager(source)
        async let fetched: Void = pager.fetch()
        try await source.nextFetch().release()
        await fetched
        let next = Task { try await pager.loadNext() }
        try await source.nextFetch().release()
        try await next.value

        // A loadAll appends pages 3 and 4, then waits for page 5: in flight, unpublished.
        let all = Task { try await pager.loadAll(fetchFromInitialPage: false) }
        try await source.nextFetch().release()
        try await source.nextFetch().release()
        let last = try await source.nextFetch()
        var late = pager.subscribe().makeAsyncIterator()
        #expect(await late.next()?.success?.items == [1, 2])

        // The load publishes once when it ends (P8).
        last.release()
        try await all.value
        #expect(await late.next()?.success?.items == [1, 2, 3, 4, 5])
    }

    @Test func p11p13LateSubscriberAfterCancelledLoadAllSeesOnlyWhatWasPublished() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3], [4]], gated: true)
        let pager = forwardPager(source)
        async let fetched: Void = pager.fetch()
        try await source.nextFetch().release()
        await fetched
        let all = Task { try await pager.loadAll(fetchFromInitialPage: false) }
        try await source.nextFetch().release()
        _ = try await source.nextFetch()
        all.cancel()
        #expect(await outcome(of: all).failure is CancellationError)
        var late = pager.subscribe().makeAsyncIterator()
        #expect(await late.next()?.success?.items == [1])
    }

    @Test func p12LateSubscriberAfterResetOrRefetchSeesNothingOld() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3]])
        let pager = forwardPager(source)
        await pager.fetch()
        try await pager.loadNext()
        try await pager.loadNext()
        await pager.refetch()
        var afterRefetch = pager.subscribe().makeAsyncIterator()
        #expect(await afterRefetch.next()?.success?.items == [1])

        try await pager.loadNext()
        pager.reset()
        // Nothing is latest after a reset: the first thing a new subscriber sees is the next fetch.
        var afterReset = pager.subscribe().makeAsyncIterator()
        await pager.fetch()
        #expect(await afterReset.next()?.success?.items == [1])
    }

    // MARK: The state machine, step by step

    @Test func p11SubscriberBetweenReceivePageAndEndLoadDoesNotSeeTheInFlightPage() async throws {
        var machine = Machine()
        let fetch = machine.startFromInitialPage(all: false).id
        let initial = ScriptedPage(items: [1], nextToken: "t1")
        try machine.receiveInitialPage(initial, info: initial.forwardInfo, id: fetch, isCancelled: false)
        guard case .done = machine.endLoad(id: fetch, outcome: .publishOutput) else {
            Issue.record("with no subscriber, ending a load transforms nothing")
            return
        }
        let (load, _) = try machine.startPagination(.next) { info, _ in ScriptedRequest(token: info.endCursor) }
        let page = ScriptedPage(items: [2], nextToken: "t2")
        try machine.receivePage(page, info: page.forwardInfo, direction: .next, id: load, isCancelled: false)

        // Subscribing now, with page 2 held but its load not ended.
        let (stream, continuation) = AsyncStream.makeStream(of: Result<[Int], any Error>.self)
        let subscriber = machine.makeSubscriberID()
        guard
            case .transform(let latest, let version) = machine.subscribe(continuation, id: subscriber, transformed: nil)
        else {
            Issue.record("the latest output is untransformed, so subscribing must ask for a transform")
            return
        }
        #expect(latest.items == [1])
        guard
            case .subscribed = machine.subscribe(
                continuation,
                id: subscriber,
                transformed: (.success(latest.items), version)
            )
        else {
            Issue.record("a transform of the current version must subscribe")
            return
        }

        guard case .transform(let published) = machine.endLoad(id: load, outcome: .publishOutput) else {
            Issue.record("with a subscriber, ending a load must ask for a transform")
            return
        }
        #expect(published.items == [1, 2])
        machine.deliver(.success(published.items), id: load)
        continuation.finish()
        var results: [[Int]] = []
        for await result in stream { results.append(try result.get()) }
        #expect(results == [[1], [1, 2]])
    }

    @Test func p11PublishedPrefixSurvivesReplacingTheHeldPages() async throws {
        // The pager always resets (dropping the latest output) before a new initial page,
        // but the machine must not rely on it: a prefix is materialised before pages go.
        var machine = Machine()
        let fetch = machine.startFromInitialPage(all: false).id
        let initial = ScriptedPage(items: [1], nextToken: "t1")
        try machine.receiveInitialPage(initial, info: initial.forwardInfo, id: fetch, isCancelled: false)
        _ = machine.endLoad(id: fetch, outcome: .publishOutput)
        let (load, _) = try machine.startPagination(.next) { info, _ in ScriptedRequest(token: info.endCursor) }
        let page = ScriptedPage(items: [2], nextToken: nil)
        try machine.receivePage(page, info: page.forwardInfo, direction: .next, id: load, isCancelled: false)
        _ = machine.endLoad(id: load, outcome: .publishOutput)

        let refetch = machine.beginLoad(.initial)
        let replacement = ScriptedPage(items: [9], nextToken: nil)
        try machine.receiveInitialPage(replacement, info: replacement.forwardInfo, id: refetch, isCancelled: false)
        #expect(machine.output?.items == [9])
        #expect(machine.latestOutput?.items == [1, 2])
    }

    // MARK: No copy per load

    typealias CountingPager = QueryPager<
        ScriptedPageSource, ScriptedPageSource, CursorBasedPagination.Bidirectional, Int
    >

    /// The address of the next pages' buffer, and of the previous pages' buffer.
    static func bufferAddresses(_ pager: CountingPager) -> (next: UInt, previous: UInt) {
        pager.state.withLock { state in
            (
                state.nextPages.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) },
                state.previousPagesNewestLast.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            )
        }
    }

    /// Without a subscriber, and with a late one whose model does not keep the page arrays,
    /// each load appends in place. (A model that keeps them, like the identity transform,
    /// shares the buffer, and the next load copies it: the caller asked to keep it.)
    @Test(arguments: [false, true])
    func p11LoadsAppendInPlaceWithoutCopyingThePagesHeld(lateSubscriber: Bool) async throws {
        let count = 40
        let source = ScriptedPageSource(
            previous: (0..<count).map { [-$0 - 1] }.reversed(),
            initial: [0],
            next: (1...count).map { [$0] }
        )
        let pager: CountingPager = QueryPager(
            source: source,
            initialRequest: .initial,
            extractPageInfo: { $0.bidirectionalInfo },
            pageResolver: { info, direction in
                let token = direction == .next ? info.endCursor : info.startCursor
                return token.map { ScriptedRequest(token: $0, direction: direction) }
            },
            transform: { $0.pageCount }
        )
        await pager.fetch()
        pager.state.withLock { state in
            state.nextPages.reserveCapacity(count)
            state.previousPagesNewestLast.reserveCapacity(count)
        }
        let addresses = Self.bufferAddresses(pager)
        var subscription: AsyncStream<Result<Int, any Error>>.AsyncIterator?
        for step in 0..<count {
            try await pager.loadNext()
            try await pager.loadPrevious()
            if lateSubscriber, step == count / 2 {
                subscription = pager.subscribe().makeAsyncIterator()
            }
            if subscription != nil {
                // The latest output at once on subscribing, then one per load.
                let expected = step == count / 2 ? [2 * step + 3] : [2 * step + 2, 2 * step + 3]
                var seen: [Int] = []
                for _ in expected { seen.append(try #require(await subscription?.next()?.get())) }
                #expect(seen == expected)
            }
            // Capacity suffices, so any change of address is a copy-on-write of the whole array.
            let now = Self.bufferAddresses(pager)
            #expect(now.next == addresses.next, "next pages were copied at load \(step + 1)")
            #expect(now.previous == addresses.previous, "previous pages were copied at load \(step + 1)")
        }
        #expect(pager.output?.pageCount == 2 * count + 1)
    }
}
