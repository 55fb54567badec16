import Foundation
import PagebenchGraphQL
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Testing

/// The compiled path (``CompiledQuery``) against GraphQLSwift's executor: the same requests
/// to two servers over the same store, one compiling plain list queries and one running
/// everything through GraphQLSwift, must get the same bytes back (W6). Each case also says
/// which path must have answered it, so a compiled path that silently fell back would fail.
@Suite("GraphQL compiled queries")
struct GraphQLCompiledQueryTests {
    struct Servers {
        let compiled: String
        let generic: String
        let compiledRoutes: GraphQLRoutes
        let store: SyntheticStore
    }

    static func withServers(_ body: (Servers) async throws -> Void) async throws {
        let store = try TestStores.store(TestStores.configuration)
        let compiledRoutes = try GraphQLRoutes(execution: .compiled)
        let genericRoutes = try GraphQLRoutes(execution: .generic)
        try await withLiveServer(StoreServer(store: store, extraRoutes: [compiledRoutes])) { compiled in
            try await withLiveServer(StoreServer(store: store, extraRoutes: [genericRoutes])) { generic in
                try await body(
                    Servers(compiled: compiled, generic: generic, compiledRoutes: compiledRoutes, store: store)
                )
            }
        }
        #expect(genericRoutes.executionCounts.compiled == 0)
    }

    static func body(_ query: String, _ variables: String, operationName: String? = nil) throws -> String {
        var request: [String: Any] = [
            "query": query, "variables": try JSONSerialization.jsonObject(with: Data(variables.utf8)),
        ]
        if let operationName { request["operationName"] = operationName }
        return String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
    }

    /// POSTs one request to both servers, expects the same status and bytes, and that the
    /// compiled server answered it by the path `compiled` names. Returns the decoded answer.
    @discardableResult
    static func same(
        _ servers: Servers,
        _ query: String,
        _ variables: String = "{}",
        operationName: String? = nil,
        compiled: Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: Any] {
        let body = try Self.body(query, variables, operationName: operationName)
        let before = servers.compiledRoutes.executionCounts
        let headers = [("Content-Type", "application/json")]
        let fast = try await TestHTTPClient(servers.compiled).execute(
            uri: "/graphql",
            method: .POST,
            headers: headers,
            body: body
        )
        let slow = try await TestHTTPClient(servers.generic).execute(
            uri: "/graphql",
            method: .POST,
            headers: headers,
            body: body
        )
        let after = servers.compiledRoutes.executionCounts
        #expect(fast.status.code == slow.status.code, sourceLocation: sourceLocation)
        // Byte for byte, but for one spelling: GraphQLSwift's Foundation encoder writes `/` as
        // `\/`, which JSON reads as the same character.
        #expect(
            fast.text == slow.text.replacingOccurrences(of: "\\/", with: "/"),
            "\(query) \(variables)",
            sourceLocation: sourceLocation
        )
        #expect(
            after.compiled - before.compiled == (compiled ? 1 : 0),
            "\(query) \(variables)",
            sourceLocation: sourceLocation
        )
        return try JSONSerialization.jsonObject(with: Data(fast.text.utf8)) as? [String: Any] ?? [:]
    }

    static let listQuery = """
        query List($p: Int, $s: Int, $n: Int, $f: ItemFilterInput, $l: Int, $t: String, $d: ModelSortDirection) {
          listItems(partition: $p, segment: $s, totalSegments: $n, filter: $f, limit: $l, nextToken: $t, sortDirection: $d) {
            __typename items { partition sortKey sizeBytes category fingerprint } nextToken scannedCount
          }
        }
        """

    @Test("W6: listItems drains answer byte for byte as GraphQLSwift does: filtered, reversed, by segment, aliased")
    func w6ListDrainsMatchTheGenericExecutor() async throws {
        try await Self.withServers { servers in
            for variables in [
                #"{"p": 2, "l": 7}"#,
                #"{"p": 2, "l": 7, "d": "DESC", "f": {"category": {"eq": 0}}}"#,
                #"{"s": 1, "n": 3, "l": 9, "f": {"or": [{"category": {"eq": 0}}, {"sizeBytes": {"lt": 100}}], "not": {"category": {"between": [5, 9]}}}}"#,
                #"{"p": 3, "f": {"sizeBytes": {"ge": 1000, "le": 4000}, "category": null}}"#,
            ] {
                var token: String?
                var pages = 0
                repeat {
                    pages += 1
                    let withToken = token.map { String(variables.dropLast()) + #", "t": "\#($0)"}"# } ?? variables
                    let answer = try await Self.same(servers, Self.listQuery, withToken, compiled: true)
                    token =
                        ((answer["data"] as? [String: Any])?["listItems"] as? [String: Any])?["nextToken"] as? String
                } while token != nil && pages < 300
                #expect(pages > 1, "\(variables)")
            }
            // Aliases, repeated typenames, literal arguments and an enum literal.
            try await Self.same(
                servers,
                #"{ page: listItems(partition: 1, limit: 3, sortDirection: DESC, filter: {category: {ne: 1}}) { t: __typename rows: items { k: sortKey __typename } more: nextToken } }"#,
                compiled: true
            )
            // A default value of a variable, and an operation named as the request names it.
            try await Self.same(
                servers,
                #"query Named($l: Int = 4) { listItems(partition: 0, limit: $l) { items { sortKey } nextToken } }"#,
                operationName: "Named",
                compiled: true
            )
        }
    }

    @Test("W6: itemsConnection forward and backward answers byte for byte, cursors and pageInfo included")
    func w6ConnectionDrainsMatchTheGenericExecutor() async throws {
        try await Self.withServers { servers in
            let forward = """
                query($after: String, $f: ItemFilterInput) { itemsConnection(partition: 1, first: 3, after: $after, filter: $f) {
                  edges { cursor node { sortKey category } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }
                """
            let backward = """
                query($before: String) { itemsConnection(partition: 4, last: 5, before: $before) {
                  __typename edges { __typename node { partition sortKey } cursor } pageInfo { startCursor hasPreviousPage } } }
                """
            for (query, variable, cursorField) in [
                (forward, "after", "endCursor"), (backward, "before", "startCursor"),
            ] {
                var cursor: String?
                var pages = 0
                repeat {
                    pages += 1
                    var variables = #"{"f": {"category": {"eq": 0}}"#
                    if let cursor { variables += #", "\#(variable)": "\#(cursor)""# }
                    let answer = try await Self.same(servers, query, variables + "}", compiled: true)
                    let info =
                        ((answer["data"] as? [String: Any])?["itemsConnection"] as? [String: Any])?["pageInfo"]
                        as? [String: Any]
                    cursor = info?[cursorField] as? String
                } while cursor != nil && pages < 300
                #expect(pages > 1)
            }
        }
    }

    @Test("S18, W6: one filter has one form: its token continues the drain whatever order its fields are written in")
    func s18w6FilterFieldOrderDoesNotChangeTheToken() async throws {
        try await Self.withServers { servers in
            let first = try await Self.same(
                servers,
                "{ listItems(partition: 3, limit: 4, filter: {sizeBytes: {le: 4000, ge: 1000}, category: {ne: 2}}) { nextToken } }",
                compiled: true
            )
            let token = try #require(
                ((first["data"] as? [String: Any])?["listItems"] as? [String: Any])?["nextToken"] as? String
            )
            let next = try await Self.same(
                servers,
                "query($t: String) { listItems(partition: 3, limit: 4, filter: {category: {ne: 2}, sizeBytes: {ge: 1000, le: 4000}}, nextToken: $t) { nextToken } }",
                #"{"t": "\#(token)"}"#,
                compiled: true
            )
            #expect(next["errors"] == nil, "\(next)")
        }
    }

    @Test("W6, S17, S18: store and argument errors answer as GraphQLSwift's field errors, code and location included")
    func w6s17s18ErrorsMatchTheGenericExecutor() async throws {
        try await Self.withServers { servers in
            let token = try #require(
                try servers.store.evaluatePage(PageRequest(range: .partition(0), limit: 5)).nextToken
            )
            var forged = Array(token)
            forged[10] = forged[10] == "A" ? "B" : "A"
            for variables in [
                #"{"p": 0, "l": 5, "t": "\#(String(forged))"}"#,
                #"{"p": 0, "l": 6, "t": "\#(token)"}"#,
                #"{"p": 99}"#,
                #"{"p": 0, "l": 0}"#,
                #"{"p": 0, "s": 1, "n": 2}"#,
                #"{"s": 1}"#,
                #"{"f": {"sizeBytes": {"between": [1]}}}"#,
                #"{"f": {"and": []}}"#,
            ] {
                let answer = try await Self.same(servers, Self.listQuery, variables, compiled: true)
                #expect(answer["errors"] != nil, "\(variables)")
            }
            try await Self.same(
                servers,
                "{ itemsConnection(partition: 1, first: 2, last: 2) { edges { cursor } } }",
                compiled: true
            )
            try await Self.same(
                servers,
                "{ itemsConnection(partition: 1, first: 0) { edges { cursor } } }",
                compiled: true
            )
        }
    }

    @Test("W6: what the compiled path does not copy is left to GraphQLSwift, with the same answers")
    func w6OutsideTheSubsetFallsBack() async throws {
        try await Self.withServers { servers in
            let cases: [(query: String, variables: String, operationName: String?)] = [
                // Fragments, several root fields, introspection, directives.
                ("fragment F on Item { sortKey } { listItems(partition: 1, limit: 2) { items { ...F } } }", "{}", nil),
                (
                    "{ a: listItems(partition: 1, limit: 2) { nextToken } b: listItems(partition: 2, limit: 2) { nextToken } }",
                    "{}", nil
                ),
                ("{ __schema { queryType { name } } }", "{}", nil),
                ("{ listItems(partition: 1, limit: 2) { nextToken @include(if: true) } }", "{}", nil),
                // Values GraphQL coerces or rejects: a float, a string for an Int, a too-large Int, a
                // missing non-null variable, an unknown enum value, an unknown filter field.
                (Self.listQuery, #"{"p": 1.5}"#, nil),
                (Self.listQuery, #"{"p": "1"}"#, nil),
                (Self.listQuery, #"{"l": 4294967296}"#, nil),
                ("query($p: Int!) { listItems(partition: $p) { nextToken } }", "{}", nil),
                (Self.listQuery, #"{"d": "SIDEWAYS"}"#, nil),
                // An empty enum value: GraphQLSwift's "did you mean" trapped on it and took the
                // server down (EmptyEnumValueGuard).
                (Self.listQuery, #"{"d": ""}"#, nil),
                (Self.listQuery, #"{"f": {"colour": {"eq": 1}}}"#, nil),
                // A missing variable inside an input-object literal.
                (
                    "query($c: Int) { listItems(partition: 1, filter: {category: {eq: $c}}) { scannedCount } }", "{}",
                    nil
                ),
                // An operation name the document does not have.
                ("query Named { listItems(partition: 1) { scannedCount } }", "{}", "Other"),
            ]
            for (query, variables, operationName) in cases {
                try await Self.same(servers, query, variables, operationName: operationName, compiled: false)
            }
            // The same nested variable given is compiled.
            try await Self.same(
                servers,
                "query($c: Int) { listItems(partition: 1, filter: {category: {eq: $c}}) { scannedCount } }",
                #"{"c": 0}"#,
                compiled: true
            )
        }
    }
}
