import HTTPTypes
import HummingbirdCore
import PagebenchPage
import PagebenchStore
import PagebenchWire
import Testing

@Suite("Query parameters")
struct PageQueryTests {
    /// Parses the query string the way the server does (Hummingbird's URI).
    private func parse(_ pathAndQuery: String, range: ScanRange) throws(QueryParameterError) -> PageQuery {
        try PageQuery(range: range, parameters: URI(pathAndQuery).queryParameters)
    }

    @Test(
        "every request survives path and query encoding (S13-S16 inputs)",
        arguments: [
            PageRequest(),
            PageRequest(range: .partition(3), reverse: true, limit: 7, filter: .sizeAtLeast(100), token: "AQAB-_x"),
            PageRequest(range: .segment(index: 2, total: 5), limit: 1, filter: .categoryNotEquals(4)),
            PageRequest(range: .scan, filter: .sizeAtMost(1000)),
            PageRequest(range: .partition(0), filter: .matching),
        ]
    )
    func roundTrip(request: PageRequest) throws {
        for payload in [nil, true, false] as [Bool?] {
            let query = PageQuery(request: request, includePayload: payload)
            let text = query.pathAndQuery
            #expect(text.hasPrefix(PageQuery.path(for: request.range)))
            let parsed = try parse(text, range: request.range)
            #expect(parsed == query)
        }
    }

    @Test("filter text is percent-encoded: = ! < > never appear raw in a value")
    func percentEncoding() {
        let query = PageQuery(request: PageRequest(filter: .categoryNotEquals(2)))
        #expect(query.pathAndQuery == "/scan?filter=category%21%3D2")
        #expect(PageQuery(request: PageRequest(filter: .sizeAtLeast(9))).pathAndQuery == "/scan?filter=size%3E%3D9")
    }

    @Test(
        "bad parameters are rejected with a message naming the parameter and what is accepted",
        arguments: [
            ("/scan?limit=ten", "limit='ten' is not a whole number"),
            ("/scan?limit=", "limit='' is not a whole number"),
            ("/scan?limt=5", "unknown query parameter 'limt'; accepted: limit, filter, reverse, nextToken, payload"),
            ("/scan?limit=5&limit=6", "'limit' is given more than once"),
            ("/scan?reverse=maybe", "reverse='maybe' must be true, false, 1 or 0"),
            ("/scan?payload=yes", "payload='yes' must be true, false, 1 or 0"),
            ("/scan?filter=colour%3Dred", "filter 'colour=red' is not understood"),
            ("/scan?filter=size%3E%3D-1", "whole numbers ≥ 0"),
        ]
    )
    func badParameters(pathAndQuery: String, expected: String) {
        #expect {
            _ = try parse(pathAndQuery, range: .scan)
        } throws: { error in
            (error as? QueryParameterError)?.message.contains(expected) == true
        }
    }

    @Test("limit syntax is checked here, its range by the store (S1: limit=0 parses, the store rejects it)")
    func limitRangeIsTheStores() throws {
        #expect(try parse("/scan?limit=0", range: .scan).request.limit == 0)
        #expect(try parse("/scan?limit=-3", range: .scan).request.limit == -3)
    }
}
