import PagebenchBase
import PagebenchPage
import PagebenchTargets
import Testing

@testable import PagebenchVerify

/// The rules' verdicts on drains built by hand (the live checks against servers are in
/// Tests/verify): each broken rule is caught with the request that shows it, and the others
/// hold.
@Suite struct VerifyJudgingTests {
    /// A drain of `partition` at `limit` over `pages` of keys; `tokens` the continuations
    /// (the last nil unless given).
    static func drain(
        _ partition: String = "0",
        limit: Int,
        _ pages: [[Int]],
        tokens: [String?]? = nil,
        end: DrainRecord.End = .last,
        scanned: [Int]? = nil
    ) -> DrainRecord {
        let tokens = tokens ?? pages.indices.map { $0 == pages.count - 1 ? nil : "t\(limit)-\($0 + 1)" }
        let exchanges = pages.enumerated().map { index, keys in
            TargetExchange(
                request: PageRequest(range: .partition(0), limit: limit, token: index == 0 ? nil : tokens[index - 1]),
                sent: "GET http://127.0.0.1/p/\(partition)?limit=\(limit)"
                    + (index == 0 ? "" : "&nextToken=\(tokens[index - 1]!)"),
                status: 200,
                outcome: .page(
                    ObservedPage(
                        count: keys.count,
                        scanned: scanned?[index],
                        reportsScanned: scanned != nil,
                        keys: keys.map { String($0) },
                        token: tokens[index]
                    )
                )
            )
        }
        return DrainRecord(partition: partition, limit: limit, exchanges: exchanges, end: end, throttles: 0)
    }

    static func observations(_ drains: [DrainRecord]) -> Observations {
        var observations = Observations(keyed: true, concurrencyLimit: 10, concurrencyPartition: "0")
        observations.drains = drains
        return observations
    }

    static let items = Array(0..<25)

    static func pages(_ items: [Int], _ limit: Int) -> [[Int]] {
        stride(from: 0, to: items.count, by: limit).map { Array(items[$0..<min($0 + limit, items.count)]) }
            + (items.count % limit == 0 ? [[]] : [])
    }

    @Test func v1SameItemsAtEveryLimitHold() {
        let result = Verifier.sameItems(
            Self.observations([1, 10, 100].map { Self.drain(limit: $0, Self.pages(Self.items, $0)) })
        )
        #expect(result.verdict == .holds, "\(result)")
    }

    @Test func v1AnItemSkippedOnlyAtLimitOneIsBrokenWithThePagesAroundIt() {
        var small = Self.items
        small.remove(at: 7)
        let drains = [Self.drain(limit: 1, Self.pages(small, 1)), Self.drain(limit: 10, Self.pages(Self.items, 10))]
        let result = Verifier.sameItems(Self.observations(drains))
        #expect(result.verdict == .broken)
        #expect(result.evidence[0].hasPrefix("item 7 (item 8 at limit 10) is missing at limit 1"), "\(result.evidence)")
        #expect(result.evidence[1].contains("it follows 6, the last item of page 7"), "\(result.evidence)")
        #expect(result.evidence[2].contains("nextToken=t1-7"), "the request that skipped it: \(result.evidence)")
    }

    @Test func v1AnItemTwiceAtAPageBoundaryIsBrokenWithBothPages() {
        var pages = Self.pages(Self.items, 10)
        pages[1].insert(9, at: 0)
        let result = Verifier.sameItems(Self.observations([Self.drain(limit: 10, pages)]))
        #expect(result.verdict == .broken)
        #expect(result.evidence[0] == "item 9 was returned on page 1 and again on page 2 of partition 0 at limit 10")
        #expect(result.evidence[2].contains("nextToken=t10-1"))
    }

    @Test func v2APageLongerThanItsLimitIsBroken() {
        var pages = Self.pages(Self.items, 10)
        pages[0].append(99)
        let result = Verifier.limitHonoured(Self.observations([Self.drain(limit: 10, pages)]))
        #expect(result.verdict == .broken)
        #expect(result.note == "a page at limit 10 returned 11 items")
        #expect(result.evidence[0].contains("limit=10 → HTTP 200, 11 items"))
    }

    @Test func v2ALimitAppliedAfterTheFilterIsBroken() {
        let drain = Self.drain(limit: 2, [[0, 2], [4]], scanned: [4, 1])
        let result = Verifier.limitHonoured(Self.observations([drain]))
        #expect(result.verdict == .broken)
        #expect(result.note.contains("evaluated 4 items: the limit was applied after the filter"))
    }

    @Test func v3ARepeatedContinuationIsBrokenNamingBothPages() {
        let drain = Self.drain(
            limit: 10,
            [[0, 1], [2, 3], [0, 1]],
            tokens: ["a", "b", "a"],
            end: .repeated(token: "a", first: 1, again: 3)
        )
        let result = Verifier.terminates(Self.observations([drain]))
        #expect(result.verdict == .broken)
        #expect(
            result.evidence[0] == "partition 0 at limit 10: page 3 carried the continuation 'a' that page 1 carried"
        )
    }

    @Test func v3v1ADrainRefusedItsOwnTokenIsBrokenAndTheItemsCannotBeCompared() {
        let refused = TargetExchange(
            request: PageRequest(range: .partition(0), limit: 10, token: "t10-1"),
            sent: "GET http://127.0.0.1/p/0?limit=10&nextToken=t10-1",
            status: 400,
            outcome: .failure(.refused, "answered HTTP 400; body starts: 'invalid pagination token'")
        )
        let drain = Self.drain(limit: 10, [Array(0..<10)], tokens: ["t10-1"], end: .failed(refused))
        let observations = Self.observations([drain, Self.drain(limit: 100, [Array(0..<25)])])
        let result = Verifier.terminates(observations)
        #expect(result.verdict == .broken)
        #expect(
            result.evidence[0].hasPrefix(
                "partition 0 at limit 10, page 2: GET http://127.0.0.1/p/0?limit=10&nextToken=t10-1 → HTTP 400"
            )
        )
        #expect(result.evidence[1].hasPrefix("the token it sent came from page 1: "))
        let v1 = Verifier.sameItems(observations)
        #expect(v1.verdict == .couldNotTell)
        #expect(v1.note == "drains did not end (V3): 0 at limit 10")
    }

    @Test func v3ADrainCutAtItsBoundIsCouldNotTell() {
        let drain = Self.drain(
            limit: 10,
            [[0], [1]],
            tokens: ["a", "b"],
            end: .cut("the page bound was reached (--max-pages 2)")
        )
        #expect(Verifier.terminates(Self.observations([drain])).verdict == .couldNotTell)
    }

    static func probe(_ name: String, status: Int?, _ outcome: TargetExchange.Outcome) -> Probe {
        Probe(
            name: name,
            exchange: TargetExchange(
                request: PageRequest(),
                sent: "GET http://127.0.0.1/x",
                status: status,
                outcome: outcome
            ),
            notSent: nil
        )
    }

    @Test func v5v6AnErrorStatusHoldsAServerErrorOrAPageIsBroken() {
        let refused = Self.probe("a garbled token", status: 400, .failure(.refused, "HTTP 400"))
        let graphQL = Self.probe("a truncated token", status: 200, .failure(.refused, "GraphQL errors"))
        #expect(Verifier.refusals(.v5, [refused, graphQL], acceptedPage: false, extra: []).verdict == .holds)
        let crash = Self.probe("a garbled token", status: 500, .failure(.refused, "HTTP 500"))
        let result = Verifier.refusals(.v5, [refused, crash], acceptedPage: false, extra: [])
        #expect(result.verdict == .broken)
        #expect(result.note == "a garbled token got HTTP 500, a server error")
        let page = Self.probe("a garbled token", status: 200, .page(ObservedPage(count: 3, token: nil)))
        #expect(Verifier.refusals(.v5, [page], acceptedPage: false, extra: []).verdict == .broken)
        #expect(Verifier.refusals(.v6, [page], acceptedPage: true, extra: []).verdict == .holds)
        let hang = Self.probe("limit 0", status: nil, .failure(.transport, "timed out"))
        #expect(Verifier.refusals(.v6, [hang], acceptedPage: true, extra: []).verdict == .broken)
        let throttled = Self.probe("limit 0", status: 429, .failure(.throttled, "HTTP 429"))
        #expect(Verifier.refusals(.v6, [throttled], acceptedPage: true, extra: []).verdict == .couldNotTell)
    }

    @Test func v5v6AGraphQLErrorAnswerIsReadByItsExtensionsCode() {
        func answer(_ codes: [String?]) -> Probe {
            var probe = Self.probe("a garbled token", status: 200, .failure(.refused, "GraphQL errors"))
            probe.exchange!.graphQLErrorCodes = codes
            return probe
        }
        let coded = Verifier.refusals(.v5, [answer(["BAD_USER_INPUT"])], acceptedPage: false, extra: [])
        #expect(coded.verdict == .holds && coded.note == "a garbled token 200 with errors BAD_USER_INPUT", "\(coded)")
        // serve's own codes, and any spelling of a known one.
        for code in ["invalidToken", "tokenMismatch", "BOUND_EXCEEDED", "bad_user_input", "404"] {
            #expect(
                GraphQLErrorReading(codes: [code]) == .refusal(codes: [code], unknown: [], uncoded: false),
                "\(code)"
            )
        }
        let uncoded = Verifier.refusals(
            .v5,
            [answer([nil, nil]), answer(["NOPE", nil])],
            acceptedPage: false,
            extra: []
        )
        #expect(uncoded.verdict == .holds)
        #expect(
            uncoded.note
                == "a garbled token 200 with errors without a code, a garbled token 200 with errors NOPE and one without a code; "
                + "GraphQL errors without extensions.code are read as refusals (a server fault cannot be told from them); "
                + "codes verify does not know are read as refusals: NOPE"
        )
        let serverFault = Verifier.refusals(
            .v5,
            [answer(["BAD_USER_INPUT", "INTERNAL_SERVER_ERROR"])],
            acceptedPage: false,
            extra: []
        )
        #expect(serverFault.verdict == .broken)
        #expect(
            serverFault.note
                == "a garbled token got GraphQL errors with extensions.code INTERNAL_SERVER_ERROR, a server error"
        )
        #expect(GraphQLErrorReading(codes: ["503"]) == .serverError(code: "503"))
        // Throttling by code is waited out and retried as a 429 (isThrottled); past the retries, could not tell.
        #expect(answer(["THROTTLED"]).exchange!.isThrottled && answer(["RATE_LIMITED", nil]).exchange!.isThrottled)
        #expect(!answer(["BAD_USER_INPUT"]).exchange!.isThrottled && !answer([nil]).exchange!.isThrottled)
        let throttled = Verifier.refusals(.v6, [answer(["THROTTLED"])], acceptedPage: true, extra: [])
        #expect(throttled.verdict == .couldNotTell && throttled.note == "a garbled token: throttled")
    }

    @Test func aGraphQLMutationOrSubscriptionIsFoundOutsideSelectionsStringsAndComments() {
        let reads = [
            "query($p: Int) { listItems(partition: $p) { items { id } } }", "{ items { id } }",
            "# mutation { drop }\nquery { a(filter: \"mutation\") { mutation subscription } }",
            "query { a(x: \"\"\"mutation \\\"\"\" \"\"\", y: \"\") { id } }",
        ]
        for document in reads { #expect(Verifier.writingOperation(in: document) == nil, "\(document)") }
        #expect(Verifier.writingOperation(in: "mutation { deleteAll }") == "mutation")
        #expect(Verifier.writingOperation(in: "query Q { a } mutation M($id: ID) { b(id: $id) }") == "mutation")
        #expect(Verifier.writingOperation(in: "subscription { onItem { id } }") == "subscription")
    }

    @Test func emptyPagesAndTheRequestAfterAFullLastPageAreCostsNotBroken() {
        // 20 items at limit 10: a full last page, then one empty request; one empty page with a token.
        let drain = Self.drain(limit: 10, [Array(0..<10), [], Array(10..<20), []])
        let figures = Verifier.figures([drain], limits: [10])[0]
        #expect(figures.emptyPagesWithToken == 1)
        #expect(figures.extraLastRequests == 1)
        #expect(figures.wastedPerDrain == 2)
        #expect(Verifier.judge(Self.observations([drain])).allSatisfy { $0.verdict != .broken })
    }

    @Test func garbledAndTruncatedTokensDifferAndKeepTheirForm() {
        #expect(Verifier.garbled("AgABcd09", .http) == "AgABdd09")
        #expect(Verifier.truncated("AgABcd09", .http) == "AgAB")
        #expect(
            Verifier.garbled(#"{"pk":{"S":"a"},"sk":{"N":"5"}}"#, .dynamodb) == #"{"pkx":{"S":"a"},"sk":{"N":"5"}}"#
        )
        #expect(Verifier.truncated(#"{"pk":{"S":"a"},"sk":{"N":"5"}}"#, .dynamodb) == #"{"pk":{"S":"a"}}"#)
    }

    @Test func junitEscapesWhatItQuotes() {
        let xml = JUnitXML(
            suiteName: "a<b",
            cases: [.init(name: "V1 \"x\"", className: "c", outcome: .failed(message: "m&n", details: "line\u{1}"))],
            seconds: 1
        ).text
        #expect(xml.contains("name=\"a&lt;b\" tests=\"1\" failures=\"1\""))
        #expect(xml.contains("<failure message=\"m&amp;n\" type=\"broken\">line\\u{1}</failure>"))
    }
}
