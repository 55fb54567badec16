import Foundation
import PagebenchGraphQL
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Testing

/// The GraphQL front end (W6) against the store's own pages. Checked from outside with
/// graphql-core in Tests/protocols/test_graphql.py.
@Suite("GraphQL endpoint")
struct GraphQLEndpointTests {
    static func withServer<R: Sendable>(
        _ configuration: StoreConfiguration = TestStores.configuration,
        _ body: (SyntheticStore, String, GraphQLRoutes) async throws -> R
    ) async throws -> R {
        let store = try TestStores.store(configuration)
        let routes = try GraphQLRoutes()
        let server = StoreServer(store: store, extraRoutes: [routes])
        return try await withLiveServer(server) { target in try await body(store, target, routes) }
    }

    /// POSTs `query` with `variables` (JSON text) and returns the status and decoded body.
    static func post(_ target: String, _ query: String, variables: String = "{}") async throws -> (Int, [String: Any]) {
        let body = try String(
            decoding: JSONSerialization.data(withJSONObject: [
                "query": query, "variables": try JSONSerialization.jsonObject(with: Data(variables.utf8)),
            ]),
            as: UTF8.self
        )
        let response = try await TestHTTPClient(target).execute(
            uri: "/graphql",
            method: .POST,
            headers: [("Content-Type", "application/json")],
            body: body
        )
        return (
            response.status.code,
            try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any] ?? [:]
        )
    }

    static func keys(_ page: Page) -> [[String]] { page.items.map { [String($0.partition), String($0.sortKey)] } }

    static let listQuery = """
        query List($p: Int, $s: Int, $n: Int, $f: ItemFilterInput, $l: Int, $t: String, $d: ModelSortDirection) {
          listItems(partition: $p, segment: $s, totalSegments: $n, filter: $f, limit: $l, nextToken: $t, sortDirection: $d) {
            items { partition sortKey sizeBytes category fingerprint } nextToken scannedCount
          }
        }
        """

    @Test(
        "W6, S10, S13, S15: listItems pages are the store's pages, token for token, filtered, reversed and by segment"
    )
    func w6s10s13s15ListItemsPagesAreTheStorePages() async throws {
        try await Self.withServer { store, target, routes in
            let cases: [(variables: String, request: PageRequest)] = [
                (#"{"p": 2, "l": 7}"#, PageRequest(range: .partition(2), limit: 7)),
                (
                    #"{"p": 2, "l": 7, "d": "DESC", "f": {"category": {"eq": 0}}}"#,
                    PageRequest(range: .partition(2), reverse: true, limit: 7, filter: .categoryEquals(0))
                ),
                (
                    #"{"s": 1, "n": 3, "l": 9, "f": {"or": [{"category": {"eq": 0}}, {"sizeBytes": {"lt": 100}}], "not": {"category": {"between": [5, 9]}}}}"#,
                    PageRequest(
                        range: .segment(index: 1, total: 3),
                        limit: 9,
                        filter: .expression(
                            .and(
                                .or(.comparison(.category, .equal, 0), .comparison(.sizeBytes, .less, 100)),
                                .not(.between(.category, 5, 9))
                            )
                        )
                    )
                ),
                (#"{"l": 25}"#, PageRequest(range: .scan, limit: 25)),
            ]
            for (variables, first) in cases {
                var request = first
                var tokenVariable = ""
                var pages = 0
                while pages < 500 {
                    pages += 1
                    let withToken =
                        tokenVariable.isEmpty
                        ? variables : String(variables.dropLast()) + #", "t": "\#(tokenVariable)"}"#
                    let (status, body) = try await Self.post(target, Self.listQuery, variables: withToken)
                    #expect(status == 200)
                    let list = (body["data"] as? [String: Any])?["listItems"] as? [String: Any]
                    let page = try store.evaluatePage(request)
                    let items = list?["items"] as? [[String: Any]] ?? []
                    #expect(
                        items.map { ["\($0["partition"] ?? "")", "\($0["sortKey"] ?? "")"] } == Self.keys(page),
                        "\(variables)"
                    )
                    #expect(list?["scannedCount"] as? Int == page.scannedCount)
                    #expect(list?["nextToken"] as? String == page.nextToken)
                    guard let token = page.nextToken else { break }
                    request.token = token
                    tokenVariable = token
                }
                #expect(pages > 1)
            }
            // The document was parsed once for all of these requests.
            #expect(routes.documentCacheCounts.misses == 1)
            #expect(routes.documentCacheCounts.hits > 10)
        }
    }

    @Test("W6: itemsConnection's endCursor carries the store's token even on an empty page; hasNextPage ⇔ a token")
    func w6RelayConnectionCarriesTheTokenOnEmptyPages() async throws {
        try await Self.withServer { store, target, _ in
            let query = """
                query($after: String) { itemsConnection(partition: 1, first: 2, after: $after, filter: {category: {eq: 0}}) {
                  edges { cursor node { sortKey category } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }
                """
            var request = PageRequest(range: .partition(1), limit: 2, filter: .categoryEquals(0))
            var after = "null"
            var emptyWithNext = 0
            for _ in 0..<100 {
                let (_, body) = try await Self.post(target, query, variables: #"{"after": \#(after)}"#)
                let connection = (body["data"] as? [String: Any])?["itemsConnection"] as? [String: Any]
                let info = connection?["pageInfo"] as? [String: Any]
                let edges = connection?["edges"] as? [[String: Any]] ?? []
                let page = try store.evaluatePage(request)
                #expect(
                    edges.map { ($0["node"] as? [String: Any])?["sortKey"] as? String ?? "" }
                        == page.items.map { String($0.sortKey) }
                )
                #expect(info?["hasNextPage"] as? Bool == (page.nextToken != nil))
                #expect(info?["endCursor"] as? String == page.nextToken)
                if edges.isEmpty, page.nextToken != nil { emptyWithNext += 1 }
                // An edge's cursor resumes right after that edge.
                if let cursor = edges.first?["cursor"] as? String {
                    let resumed = try store.evaluatePage(request.with(token: cursor))
                    #expect(resumed.items.first.map { $0.sortKey } != page.items.first?.sortKey)
                }
                guard let token = page.nextToken else { break }
                request.token = token
                after = "\"\(token)\""
            }
            #expect(emptyWithNext > 0, "a 25 % filter spread evenly at first: 2 gives empty pages that still continue")
        }
    }

    @Test("W6, S17, S18: a forged or mismatched token is a GraphQL error with the store's code and a null field")
    func w6s17s18StoreErrorsAreGraphQLErrorsWithTheStoresCode() async throws {
        try await Self.withServer { store, target, _ in
            let token = try #require(try store.evaluatePage(PageRequest(range: .partition(0), limit: 5)).nextToken)
            var forged = Array(token)
            forged[10] = forged[10] == "A" ? "B" : "A"
            for (variables, code) in [
                (#"{"p": 0, "l": 5, "t": "\#(String(forged))"}"#, "invalidToken"),
                (#"{"p": 0, "l": 6, "t": "\#(token)"}"#, "tokenMismatch"),
                (#"{"p": 99}"#, "unknownPartition"),
                (#"{"p": 0, "l": 0}"#, "invalidLimit"),
                (#"{"p": 0, "s": 1, "n": 2}"#, "invalidParameter"),
                (#"{"f": {"sizeBytes": {"between": [1]}}}"#, "invalidParameter"),
            ] {
                let (status, body) = try await Self.post(target, Self.listQuery, variables: variables)
                #expect(status == 200)
                let data = body["data"] as? [String: Any]
                #expect(data?["listItems"] is NSNull, "\(variables)")
                let errors = body["errors"] as? [[String: Any]] ?? []
                #expect(
                    (errors.first?["extensions"] as? [String: Any])?["code"] as? String == code,
                    "\(variables): \(errors)"
                )
                #expect(errors.first?["path"] as? [String] == ["listItems"])
            }
        }
    }

    @Test("W6: malformed documents, invalid queries and bad bodies are GraphQL errors; the server keeps serving")
    func w6MalformedRequestsAreErrorsNotCrashes() async throws {
        try await Self.withServer { _, target, _ in
            for (query, code) in [
                ("{ listItems(partition: 1 { nextToken } }", "GRAPHQL_PARSE_FAILED"),
                ("{ listItems { noSuchField } }", "GRAPHQL_VALIDATION_FAILED"),
                (String(repeating: "{", count: 20_000), "BOUND_EXCEEDED"),
                (
                    "{" + String(repeating: " listItems {", count: 20_000) + String(repeating: "}", count: 20_001),
                    "BOUND_EXCEEDED"
                ),
                (
                    "query($f: ItemFilterInput) { listItems(filter: " + String(repeating: "{not: ", count: 5_000) + "{}"
                        + String(repeating: "}", count: 5_000) + ") { scannedCount } }", "BOUND_EXCEEDED"
                ),
            ] {
                let (status, body) = try await Self.post(target, query)
                #expect(status == 200)
                let errors = body["errors"] as? [[String: Any]] ?? []
                #expect((errors.first?["extensions"] as? [String: Any])?["code"] as? String == code, "\(errors)")
            }
            // Nesting in variables is bounded too (the filter input is recursive).
            let deepFilter = String(repeating: #"{"not": "#, count: 200) + "{}" + String(repeating: "}", count: 200)
            let (deepStatus, deep) = try await Self.post(target, Self.listQuery, variables: #"{"f": \#(deepFilter)}"#)
            #expect(deepStatus == 400)
            #expect(
                ((deep["errors"] as? [[String: Any]])?.first?["message"] as? String)?.contains("nest deeper than 64")
                    == true,
                "\(deep)"
            )
            // Within the bound, a nested filter runs: 30 NOTs are one NOT.
            let nested =
                String(repeating: #"{"not": "#, count: 30) + #"{"category": {"eq": 0}}"#
                + String(repeating: "}", count: 30)
            let (_, shallow) = try await Self.post(
                target,
                Self.listQuery,
                variables: #"{"p": 0, "l": 40, "f": \#(nested)}"#
            )
            let items =
                (((shallow["data"] as? [String: Any])?["listItems"] as? [String: Any])?["items"] as? [[String: Any]])
                ?? []
            #expect(!items.isEmpty && items.allSatisfy { $0["category"] as? Int == 0 }, "\(shallow)")
            let client = try TestHTTPClient(target)
            let notJSON = try await client.execute(
                uri: "/graphql",
                method: .POST,
                headers: [("Content-Type", "application/json")],
                body: "nope"
            )
            #expect(notJSON.status.code == 400 && notJSON.text.contains("\"errors\""))
            let introspection = try await Self.post(target, "{ __schema { queryType { name } types { name } } }")
            let types =
                ((introspection.1["data"] as? [String: Any])?["__schema"] as? [String: Any])?["types"]
                as? [[String: Any]] ?? []
            #expect(
                Set(types.compactMap { $0["name"] as? String }).isSuperset(of: [
                    "Item", "ItemList", "ItemConnection", "ItemFilterInput",
                ])
            )
            let get = try await client.execute(
                uri:
                    "/graphql?query=%7B%20listItems(partition%3A%201%2C%20limit%3A%202)%20%7B%20scannedCount%20%7D%20%7D"
            )
            #expect(get.status.code == 200 && get.text.contains("\"scannedCount\":2"), "\(get.text)")
        }
    }
}
