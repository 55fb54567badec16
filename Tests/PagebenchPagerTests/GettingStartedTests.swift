import PagebenchPager
import Testing

// The code of the DocC article Sources/PagebenchPager/PagebenchPager.docc/GettingStarted.md,
// compiled and run here; Tests/docs/test_docc_snippets.py checks that the article shows
// exactly the text between the BEGIN and END lines, so the article cannot drift.

// BEGIN getting-started-source
/// A list API with a `nextToken`: here an in-memory array, 3 items a page.
struct OrdersAPI: PageSource {
    struct Request: Sendable {
        var customer: String
        var nextToken: String?
    }
    struct Response: Sendable {
        var orders: [Int]
        var nextToken: String?
    }

    let orders = Array(1...10)

    func fetch(_ request: Request) async throws -> Response {
        let start = request.nextToken.flatMap { Int($0) } ?? 0
        let end = min(start + 3, orders.count)
        return Response(orders: Array(orders[start..<end]), nextToken: end < orders.count ? String(end) : nil)
    }
}
// END getting-started-source

@Suite struct GettingStartedTests {
    @Test func theStreamingPagerDrainsTheListInConstantMemory() async throws {
        // BEGIN getting-started-stream
        let first = OrdersAPI.Request(customer: "c-1", nextToken: nil)
        let pages = PageStream(
            source: OrdersAPI(),
            initialRequest: first,
            extractPageInfo: { CursorBasedPagination.Forward(nextToken: $0.nextToken) },
            pageResolver: { info, _ in info.endCursor.map { OrdersAPI.Request(customer: first.customer, nextToken: $0) }
            }
        )
        var all: [Int] = []
        for try await order in pages.items(\.orders) { all.append(order) }
        // all == [1, 2, …, 10]; pages.counters.pages == 4, one request per page
        // END getting-started-stream
        #expect(all == Array(1...10))
        #expect(pages.counters.pages == 4)
        #expect(pages.counters.requests == 4)
    }

    @Test func theApolloStylePagerLoadsPageByPage() async throws {
        // BEGIN getting-started-query-pager
        let first = OrdersAPI.Request(customer: "c-1", nextToken: nil)
        let pager = QueryPager(
            source: OrdersAPI(),
            initialRequest: first,
            extractPageInfo: { CursorBasedPagination.Forward(nextToken: $0.nextToken) },
            pageResolver: { info, _ in info.endCursor.map { OrdersAPI.Request(customer: first.customer, nextToken: $0) }
            },
            transform: { output in output.allPages.flatMap(\.orders) }
        )
        await pager.fetch()  // the first page: [1, 2, 3]
        try await pager.loadNext()  // and the next: [1, 2, 3, 4, 5, 6]
        try await pager.loadAll()  // the rest, published once
        // pager.canLoadNext == false; subscribers (pager.subscribe()) got each model
        // END getting-started-query-pager
        #expect(pager.canLoadNext == false)
        #expect(pager.output.map { $0.allPages.flatMap(\.orders) } == Array(1...10))
    }
}
