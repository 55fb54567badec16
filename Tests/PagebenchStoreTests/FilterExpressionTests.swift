import PagebenchPage
import PagebenchStore
import Testing

/// Compound filters and sort-key windows: what the DynamoDB and GraphQL front ends (W2, W6)
/// hand the store, paged by the store's own evaluation. (The conditions' grammar and the
/// filter text are the page contract's: PagebenchPageTests.)
@Suite struct FilterExpressionTests {
    @Test func compoundFilterReturnsExactlyTheMatchingItemsOfEveryPage() throws {
        // S3, S10 with a compound filter: the budget is charged before it, and a drain returns
        // the unpaginated filtered listing.
        let store = try smallStore(items: 200, size: .uniform(min: 50, max: 500), budget: 2_000)
        let filter = try Filter(parsing: "(category=0 or size<120) and not size between 300 and 350")
        let pages = try drain(store, PageRequest(range: .partition(1), limit: 7, filter: filter))
        let all = try drain(store, PageRequest(range: .partition(1), limit: 1000, filter: nil)).flatMap(\.items)
        let expected = all.filter {
            ($0.storeAttributes.category == 0 || $0.sizeBytes < 120) && !($0.sizeBytes >= 300 && $0.sizeBytes <= 350)
        }
        #expect(pages.flatMap(\.items) == expected)
        #expect(pages.reduce(0) { $0 + $1.scannedCount } == 200)
        #expect(pages.contains { $0.isEmptyWithToken })
    }

    @Test func aCompoundFilterIsBoundToTokensByItsText() throws {
        // S18: a token issued under one compound filter is refused under another.
        let store = try smallStore(items: 100)
        let first = try store.evaluatePage(
            PageRequest(range: .partition(0), limit: 5, filter: try Filter(parsing: "category=0 or size>=0"))
        )
        let token = try #require(first.nextToken)
        let changed = PageRequest(
            range: .partition(0),
            limit: 5,
            filter: try Filter(parsing: "category=1 or size>=0"),
            token: token
        )
        let error = storeError { _ = try store.evaluatePage(changed) }
        #expect(error?.code == .tokenMismatch)
        #expect(error?.message.contains("filter was a compound condition, now category=1 or size>=0") == true)
        #expect(throws: Never.self) {
            try store.evaluatePage(
                PageRequest(
                    range: .partition(0),
                    limit: 5,
                    filter: try Filter(parsing: "category=0 or size>=0"),
                    token: token
                )
            )
        }
    }

    @Test func sortKeyWindowNarrowsAQueryAndEndsLikeARange() throws {
        let store = try smallStore(items: 40)
        let whole = try drain(store, PageRequest(range: .partition(2), limit: 1000)).flatMap(\.items)
        for (keys, reverse) in [(5..<17, false), (5..<17, true), (30..<1000, false), (0..<1, true)]
            as [(Range<UInt64>, Bool)]
        {
            let pages = try drain(store, PageRequest(range: .partition(2), reverse: reverse, limit: 4, sortKeys: keys))
            var expected = whole.filter { keys.contains($0.sortKey) }
            if reverse { expected.reverse() }
            #expect(pages.flatMap(\.items) == expected, "\(keys) reverse \(reverse)")
        }
        // An empty window: one empty page, no token.
        let empty = try store.evaluatePage(PageRequest(range: .partition(2), sortKeys: 50..<60))
        #expect(empty.items.isEmpty && empty.nextToken == nil && empty.scannedCount == 0)
        // Only queries have sort-key windows; a token outside the window is refused (S19).
        #expect(
            storeErrorCode { _ = try store.evaluatePage(PageRequest(range: .scan, sortKeys: 0..<3)) }
                == .invalidConfiguration
        )
        let outside = try store.token(for: PageRequest(range: .partition(2), limit: 4), resumingAfter: 2, sortKey: 30)
        #expect(
            storeErrorCode {
                _ = try store.evaluatePage(
                    PageRequest(range: .partition(2), limit: 4, token: outside, sortKeys: 0..<10)
                )
            } == .invalidToken
        )
    }
}
