import PagebenchPager
import PagebenchTestSupport
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1)))
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
        struct Page: Sendable { var items: [Item]; var next: Int? }
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
        await source.nextFetch().release()
        let pending = await source.nextFetch()
        drain.cancel()
        #expect(await drain.result.failure is CancellationError)
        #expect(!pending.release())
        #expect(pagesSeen.load(ordering: .relaxed) == 1)
        #expect(source.cancellationCount == 1)
    }

    @Test func p14StreamFollowsPreviousDirection() async throws {
        let source = ScriptedPageSource(previous: [[-2], [-1]], initial: [0], next: [[1]])
        let stream = PageStream(
            source: source,
            initialRequest: .initial,
            direction: .previous,
            extractPageInfo: { $0.bidirectionalInfo },
            pageResolver: { info, direction in info.startCursor.map { ScriptedRequest(token: $0, direction: direction) } }
        )
        var pages: [[Int]] = []
        for try await page in stream { pages.append(page.items) }
        #expect(pages == [[0], [-1], [-2]])
    }
}
