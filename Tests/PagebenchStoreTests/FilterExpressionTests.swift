import PagebenchPage
import PagebenchStore
import Testing

/// Compound filters and sort-key windows: what the DynamoDB and GraphQL front ends (W2, W6)
/// hand the store, paged by the store's own evaluation.
@Suite struct FilterExpressionTests {
    @Test func precedenceIsNotThenAndThenOr() throws {
        let parsed = try ConditionExpression(parsing: "a = :x OR NOT b < :y AND c >= :z", dialect: .dynamoDB)
        #expect(
            parsed
                == .or(
                    .comparison(.name("a"), .equal, .value(":x")),
                    .and(.not(.comparison(.name("b"), .less, .value(":y"))), .comparison(.name("c"), .greaterOrEqual, .value(":z")))))
        let grouped = try ConditionExpression(parsing: "(#a = :x OR #b <> :y) AND c BETWEEN :l AND :h", dialect: .dynamoDB)
        #expect(
            grouped
                == .and(
                    .or(.comparison(.name("#a"), .equal, .value(":x")), .comparison(.name("#b"), .notEqual, .value(":y"))),
                    .between(.name("c"), .value(":l"), .value(":h"))))
    }

    @Test(arguments: [
        ("a = 1", "literal '1'"),
        ("a != :x", "'!=' at offset 2 is not a DynamoDB comparator"),
        ("begins_with(a, :x)", "function 'begins_with'"),
        ("a IN (:x, :y)", "IN at offset 2"),
        ("a.b = :x", "document path"),
        ("(a = :x", "is not closed"),
        ("a = :x b", "unexpected name 'b'"),
        ("a =", "ends after '='"),
        ("a BETWEEN :x", "needs 'low AND high'"),
        ("", "ends where a condition was expected"),
        ("a = :x $", "unexpected character '$'"),
    ])
    func unsupportedOrMalformedDynamoDBConditionsAreNamed(text: String, expected: String) {
        #expect(throws: ExpressionError.self) { try ConditionExpression(parsing: text, dialect: .dynamoDB) }
        do {
            _ = try ConditionExpression(parsing: text, dialect: .dynamoDB)
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }

    @Test func hostileNestingIsRefusedNotACrash() {
        let deep = String(repeating: "(", count: 3000) + "a = :x" + String(repeating: ")", count: 3000)
        #expect(throws: ExpressionError.self) { try ConditionExpression(parsing: deep, dialect: .dynamoDB) }
        let nots = String(repeating: "NOT ", count: 1000) + "a = :x"
        #expect(throws: ExpressionError.self) { try ConditionExpression(parsing: nots, dialect: .dynamoDB) }
    }

    @Test func filterTextReadsCompoundConditionsAndKeepsSimpleForms() throws {
        #expect(try Filter(parsing: "category = 3") == .categoryEquals(3))
        #expect(try Filter(parsing: "sizeBytes >= 100") == .sizeAtLeast(100))
        let compound = try Filter(parsing: "category=0 and (size<200 or not category<>0)")
        #expect(
            compound
                == .expression(
                    .and(
                        .comparison(.category, .equal, 0),
                        .or(.comparison(.sizeBytes, .less, 200), .not(.comparison(.category, .notEqual, 0))))))
        // The canonical text reads back to the same filter (REST query, workload JSON).
        for text in ["category=0 and size>=1", "(category=0 or category=1) and not size between 5 and 9", "size<10 or size>100"] {
            let filter = try Filter(parsing: text)
            #expect(try Filter(parsing: filter.description) == filter, "\(text) → \(filter)")
        }
        for bad in ["category=0 and", "weight=3 or category=0", "size < -4 or category=1", "category = :x"] {
            #expect(throws: PageError.self) { try Filter(parsing: bad) }
            do {
                _ = try Filter(parsing: bad)
            } catch {
                #expect(error.kind == .invalidRequest, "\(bad)")
                #expect(error.message.hasPrefix("invalid configuration: filter '\(bad)'"), "\(error.message)")
            }
        }
    }

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
            PageRequest(range: .partition(0), limit: 5, filter: try Filter(parsing: "category=0 or size>=0")))
        let token = try #require(first.nextToken)
        let changed = PageRequest(
            range: .partition(0), limit: 5, filter: try Filter(parsing: "category=1 or size>=0"), token: token)
        let error = storeError { _ = try store.evaluatePage(changed) }
        #expect(error?.code == .tokenMismatch)
        #expect(error?.message.contains("filter was a compound condition, now category=1 or size>=0") == true)
        #expect(throws: Never.self) {
            try store.evaluatePage(
                PageRequest(range: .partition(0), limit: 5, filter: try Filter(parsing: "category=0 or size>=0"), token: token))
        }
    }

    @Test func sortKeyWindowNarrowsAQueryAndEndsLikeARange() throws {
        let store = try smallStore(items: 40)
        let whole = try drain(store, PageRequest(range: .partition(2), limit: 1000)).flatMap(\.items)
        for (keys, reverse) in [(5..<17, false), (5..<17, true), (30..<1000, false), (0..<1, true)] as [(Range<UInt64>, Bool)] {
            let pages = try drain(store, PageRequest(range: .partition(2), reverse: reverse, limit: 4, sortKeys: keys))
            var expected = whole.filter { keys.contains($0.sortKey) }
            if reverse { expected.reverse() }
            #expect(pages.flatMap(\.items) == expected, "\(keys) reverse \(reverse)")
        }
        // An empty window: one empty page, no token.
        let empty = try store.evaluatePage(PageRequest(range: .partition(2), sortKeys: 50..<60))
        #expect(empty.items.isEmpty && empty.nextToken == nil && empty.scannedCount == 0)
        // Only queries have sort-key windows; a token outside the window is refused (S19).
        #expect(storeErrorCode { _ = try store.evaluatePage(PageRequest(range: .scan, sortKeys: 0..<3)) } == .invalidConfiguration)
        let outside = try store.token(for: PageRequest(range: .partition(2), limit: 4), resumingAfter: 2, sortKey: 30)
        #expect(
            storeErrorCode {
                _ = try store.evaluatePage(PageRequest(range: .partition(2), limit: 4, token: outside, sortKeys: 0..<10))
            } == .invalidToken)
    }
}
