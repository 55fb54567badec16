import PagebenchPager
import PagebenchTestSupport
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5)))
struct PageStreamTests {
    @Test func p15StreamYieldsEveryPageInOrderThroughEmptyPages() async throws {
        let pages: [[Int]] = [[1, 2], []] + Array(repeating: [], count: 100) + [[3], [4, 5], []]
        let source = ScriptedPageSource(forwardPages: pages)
        let stream = forwardStream(source)
        var seen: [[Int]] = []
        for try await page in stream {
            seen.append(page.items)
        }
        #expect(seen == pages)
        #expect(source.requestCount == pages.count)
        #expect(stream.counters.pages == pages.count)
        #expect(stream.counters.requests == pages.count)

        var items: [Int] = []
        for try await item in forwardStream(ScriptedPageSource(forwardPages: pages)).items(\.items) {
            items.append(item)
        }
        #expect(items == [1, 2, 3, 4, 5])
    }

    @Test func p15StreamRetainsNothingItHasYielded() async throws {
        final class Item: Sendable {
            let value: Int
            init(_ value: Int) { self.value = value }
        }
        struct Page: Sendable {
            var items: [Item]
            var next: Int?
        }
        let pageCount = 20
        let source = ClosurePageSource<Int, Page> { index in
            Page(items: (0..<3).map { Item(index * 3 + $0) }, next: index + 1 < pageCount ? index + 1 : nil)
        }
        let stream = PageStream(
            source: source,
            initialRequest: 0,
            extractPageInfo: { OffsetPagination.Forward(offset: $0.next ?? pageCount, canLoadNext: $0.next != nil) },
            pageResolver: { info, _ in info.offset }
        )

        // Items: each is released as soon as the consumer drops it.
        var released: [() -> Bool] = []
        var values: [Int] = []
        for try await item in stream.items(\.items) {
            #expect(released.allSatisfy { $0() }, "an item yielded earlier is still retained by the stream")
            values.append(item.value)
            weak let weakItem = item
            released.append { weakItem == nil }
        }
        #expect(values == Array(0..<(pageCount * 3)))

        // Pages: once the consumer drops a page, nothing of it is retained.
        released = []
        for try await page in stream {
            #expect(released.allSatisfy { $0() }, "a page yielded earlier is still retained by the stream")
            for item in page.items {
                weak let weakItem = item
                released.append { weakItem == nil }
            }
        }
        #expect(released.count == pageCount * 3)
    }

    @Test func p9StreamStopsOnRepeatedToken() async throws {
        let source = ScriptedPageSource(script: [
            .initial: ScriptedPage(items: [1], nextToken: "t1"),
            ScriptedRequest(token: "t1"): ScriptedPage(items: [], nextToken: "t1"),
        ])
        var pages: [[Int]] = []
        let error = await paginationError {
            for try await page in forwardStream(source) { pages.append(page.items) }
        }
        #expect(error == .repeatedToken)
        #expect(pages == [[1]])
        #expect(source.requestCount == 2)
    }

    /// A stream that updates the request in place (`advanceRequest`) pages exactly as one
    /// whose resolver builds each request (P7, P15), in both directions, stops on a
    /// repeated token (P9), and fails with `noQuery` when the update says there is no
    /// next request (P3).
    @Test func advancingTheRequestInPlacePagesAsBuildingItDoes() async throws {
        func advancing(
            _ source: ScriptedPageSource,
            _ direction: PaginationDirection
        )
            -> PageStream<ScriptedPageSource, CursorBasedPagination.Bidirectional>
        {
            PageStream(
                source: source,
                initialRequest: .initial,
                direction: direction,
                extractPageInfo: { $0.bidirectionalInfo },
                advanceRequest: { request, info, direction in
                    guard let token = direction == .next ? info.endCursor : info.startCursor else { return false }
                    request = ScriptedRequest(token: token, direction: direction)
                    return true
                }
            )
        }
        let forward: [[Int]] = [[1, 2], []] + Array(repeating: [], count: 20) + [[3], [4, 5], []]
        var pages: [[Int]] = []
        for try await page in advancing(ScriptedPageSource(forwardPages: forward), .next) { pages.append(page.items) }
        #expect(pages == forward)
        let built = ScriptedPageSource(forwardPages: forward)
        var builtPages: [[Int]] = []
        for try await page in forwardStream(built) { builtPages.append(page.items) }
        #expect(builtPages == pages)

        let bidirectional = ScriptedPageSource(previous: [[-3], [], [-1]], initial: [0], next: [[1]])
        var backward: [[Int]] = []
        for try await page in advancing(bidirectional, .previous) { backward.append(page.items) }
        #expect(backward == [[0], [-1], [], [-3]])

        let repeating = ScriptedPageSource(script: [
            .initial: ScriptedPage(items: [1], nextToken: "t1"),
            ScriptedRequest(token: "t1"): ScriptedPage(items: [], nextToken: "t1"),
        ])
        #expect(await paginationError { for try await _ in advancing(repeating, .next) {} } == .repeatedToken)

        let source = ScriptedPageSource(forwardPages: [[1], [2]])
        let refusing = PageStream(
            source: source,
            initialRequest: .initial,
            extractPageInfo: { $0.forwardInfo },
            advanceRequest: { _, _, _ in false }
        )
        var iterator = refusing.makeAsyncIterator()
        #expect(try await iterator.next()?.items == [1])
        #expect(await paginationError { _ = try await iterator.next() } == .noQuery)
        #expect(try await iterator.next() == nil)
        #expect(source.requestCount == 1)
    }

    @Test func p3StreamYieldsThePageThenThrowsNoQuery() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2]])
        let stream = PageStream(
            source: source,
            initialRequest: .initial,
            extractPageInfo: { $0.forwardInfo },
            pageResolver: { _, _ in nil }
        )
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next()?.items == [1])
        #expect(await paginationError { _ = try await iterator.next() } == .noQuery)
        #expect(try await iterator.next() == nil)
        #expect(source.requestCount == 1)
    }

    @Test func p13CancellingTheDrainingTaskStopsTheStreamPromptly() async throws {
        let source = ScriptedPageSource(forwardPages: [[1], [2], [3]], gated: true)
        let stream = forwardStream(source)
        let pagesSeen = Atomic<Int>(0)
        let drain = Task {
            for try await _ in stream { pagesSeen.add(1, ordering: .relaxed) }
        }
        try await source.nextFetch().release()
        let pending = try await source.nextFetch()
        drain.cancel()
        #expect(await drain.result.failure is CancellationError)
        #expect(!pending.release())
        #expect(pagesSeen.load(ordering: .relaxed) == 1)
        #expect(source.cancellationCount == 1)
    }

    /// Pages 0..<count by number; even pages (and the one named `repeating`) are answered at
    /// once by `fetchWithoutWaiting`, odd ones only through `fetch`; `failing` fails at once.
    struct HalfImmediateSource: PageSource {
        struct Page: Sendable, Equatable {
            var items: [Int]
            var nextToken: String?
        }
        final class Calls: Sendable {
            let immediate = Atomic<Int>(0)
            let awaited = Atomic<Int>(0)
            let failuresLeft = Atomic<Int>(1)
        }
        let count: Int
        var failing: (page: Int, error: ScriptedSourceError)?
        var repeating: Int?
        let calls = Calls()

        func page(_ number: Int) -> Page {
            let next = number == repeating ? number : number + 1
            return Page(items: [number], nextToken: next < count ? String(next) : nil)
        }

        func fetch(_ request: String?) async throws -> Page {
            calls.awaited.add(1, ordering: .relaxed)
            await Task.yield()
            return page(Int(request ?? "0")!)
        }

        func fetchWithoutWaiting(_ request: String?) throws -> Page? {
            let number = Int(request ?? "0")!
            guard number % 2 == 0 || number == repeating else { return nil }
            calls.immediate.add(1, ordering: .relaxed)
            if let failing, failing.page == number, calls.failuresLeft.subtract(1, ordering: .relaxed).newValue >= 0 {
                throw failing.error
            }
            return page(number)
        }

        func stream(retryPolicy: RetryPolicy = .none) -> PageStream<Self, CursorBasedPagination.Forward> {
            PageStream(
                source: self,
                initialRequest: nil,
                retryPolicy: retryPolicy,
                extractPageInfo: { CursorBasedPagination.Forward(nextToken: $0.nextToken) },
                pageResolver: { info, _ in info.endCursor }
            )
        }
    }

    @Test(
        "P15: pages a source answers at once are yielded, counted and retried like awaited ones; fetch is not asked again"
    )
    func p15ImmediateAnswersArePagedLikeAwaitedOnes() async throws {
        let source = HalfImmediateSource(count: 9, failing: (4, .throttled))
        let stream = source.stream(retryPolicy: RetryPolicy(maxRetries: 2, initialBackoff: .microseconds(1), seed: 1))
        var items: [Int] = []
        for try await page in stream { items += page.items }
        #expect(items == Array(0..<9))
        // Pages 0, 2, 4 (failing), 6, 8 asked at once; 1, 3, 5, 7 and the retry of 4 awaited.
        #expect(source.calls.immediate.load(ordering: .relaxed) == 5)
        #expect(source.calls.awaited.load(ordering: .relaxed) == 5)
        #expect(stream.counters.pages == 9)
        #expect(stream.counters.retries == 1)
        #expect(stream.counters.requests == 10)
    }

    @Test("an error a source throws at once ends the stream like one from fetch; P9 holds for pages answered at once")
    func immediateErrorsAndRepeatedTokens() async throws {
        let failing = HalfImmediateSource(count: 9, failing: (2, ScriptedSourceError("bad request")))
        var pages = 0
        await #expect(throws: ScriptedSourceError("bad request")) {
            for try await _ in failing.stream() { pages += 1 }
        }
        #expect(pages == 2)

        let repeating = HalfImmediateSource(count: 9, repeating: 3)
        pages = 0
        let error = await paginationError {
            for try await _ in repeating.stream() { pages += 1 }
        }
        #expect(error == .repeatedToken)
        #expect(pages == 3)
        #expect(repeating.calls.awaited.load(ordering: .relaxed) == 1)
    }

    @Test func p14StreamFollowsPreviousDirection() async throws {
        let source = ScriptedPageSource(previous: [[-2], [-1]], initial: [0], next: [[1]])
        let stream = PageStream(
            source: source,
            initialRequest: .initial,
            direction: .previous,
            extractPageInfo: { $0.bidirectionalInfo },
            pageResolver: { info, direction in info.startCursor.map { ScriptedRequest(token: $0, direction: direction) }
            }
        )
        var pages: [[Int]] = []
        for try await page in stream { pages.append(page.items) }
        #expect(pages == [[0], [-1], [-2]])
    }
}
