import Foundation
import GraphQL
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Testing

@testable import PagebenchGraphQL

/// W7 on the GraphQL front end: every class of hostile document of issue 24 gets a GraphQL
/// answer — the bound it exceeds, or GraphQL's own error — and the server keeps serving.
/// Each test failed (or killed the test process) before its fix.
@Suite("GraphQL request bounds (W7)")
struct GraphQLBoundsTests {
    /// Sends DynamoDB `operation` with `body` to a live server (the bounds hold for every protocol).
    static func dynamoDB(_ target: String, _ operation: String, _ body: String) async throws -> DynamoDBAnswer {
        let answer = try await DynamoDBAnswer.call(target, operation, body)
        #expect(answer.contentType == "application/x-amz-json-1.0")
        return answer
    }

    struct Answer {
        let status: Int
        let json: [String: Any]
        var errors: [[String: Any]] { json["errors"] as? [[String: Any]] ?? [] }
        var code: String? { (errors.first?["extensions"] as? [String: Any])?["code"] as? String }
        var bound: String? { (errors.first?["extensions"] as? [String: Any])?["bound"] as? String }
        var message: String { errors.first?["message"] as? String ?? "" }
        var locations: [[Int]] {
            (errors.first?["locations"] as? [[String: Int]] ?? []).map { [$0["line"] ?? 0, $0["column"] ?? 0] }
        }
        var data: [String: Any]? { json["data"] as? [String: Any] }
    }

    static func withServer(
        bounds: GraphQLBounds = GraphQLBounds(),
        request: RequestBounds = RequestBounds(),
        execution: GraphQLRoutes.Execution = .compiled,
        store: StoreConfiguration = TestStores.configuration,
        _ body: (String) async throws -> Void
    ) async throws {
        let routes = try GraphQLRoutes(execution: execution, bounds: bounds)
        let server = StoreServer(
            store: try TestStores.store(store),
            configuration: .init(bounds: request),
            extraRoutes: [routes, DynamoDBRoutes(tableName: "items")]
        )
        try await withLiveServer(server) { target in
            try await body(target)
            // Still serving.
            let health = try await TestHTTPClient(target).execute(uri: "/health")
            #expect(health.status.code == 200)
        }
    }

    static func post(_ target: String, _ query: String, variables: [String: Any] = [:]) async throws -> Answer {
        let body = String(
            decoding: try JSONSerialization.data(withJSONObject: ["query": query, "variables": variables]),
            as: UTF8.self
        )
        return try await post(target, body: body)
    }

    static func post(_ target: String, body: String) async throws -> Answer {
        let response = try await TestHTTPClient(target).execute(
            uri: "/graphql",
            method: .POST,
            headers: [("Content-Type", "application/json")],
            body: body
        )
        let json = try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any]
        return Answer(status: response.status.code, json: json ?? [:])
    }

    static func expectBound(
        _ answer: Answer,
        _ bound: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(answer.status == 200, sourceLocation: sourceLocation)
        #expect(answer.code == "BOUND_EXCEEDED", "\(answer.json)", sourceLocation: sourceLocation)
        #expect(answer.bound == bound, "\(answer.json)", sourceLocation: sourceLocation)
        #expect(
            answer.message.contains("serve --"),
            "the message names the flag: \(answer.message)",
            sourceLocation: sourceLocation
        )
    }

    @Test("W7: two operations or two fragments of one name are GraphQL's validation error, not a trap in GraphQLSwift")
    func w7DuplicateDefinitionsAreRefused() async throws {
        try await Self.withServer { target in
            // GraphQLSwift keys dictionaries by these equal-but-distinct nodes: it traps on a
            // few percent of such documents, so send many (each text new: no cache).
            for round in 0..<150 {
                let space = String(repeating: " ", count: round % 7 + 1) + String(repeating: "\n", count: round / 7)
                for (query, message) in [
                    (
                        "query A { __typename }\(space)query A { __typename }",
                        "There can be only one operation named \"A\"."
                    ),
                    (
                        "{ __typename }\(space){ __typename }",
                        "This anonymous operation must be the only defined operation."
                    ),
                    (
                        "fragment F on Query { __typename }\(space)fragment F on Query { __typename } { ...F }",
                        "There can be only one fragment named \"F\"."
                    ),
                ] {
                    let answer = try await Self.post(target, query)
                    #expect(answer.code == "GRAPHQL_VALIDATION_FAILED", "\(answer.json)")
                    #expect(answer.message == message)
                }
            }
            for (query, message) in [
                (
                    "query($a: Int, $a: Int) { listItems(limit: $a) { scannedCount } }",
                    "There can be only one variable named \"$a\"."
                ),
                (
                    "{ listItems(limit: 1, limit: 2) { scannedCount } }",
                    "There can be only one argument named \"limit\"."
                ),
                (
                    "{ listItems(filter: {category: {eq: 1}, category: {eq: 2}}) { scannedCount } }",
                    "There can be only one input field named \"category\"."
                ),
            ] {
                let answer = try await Self.post(target, query)
                #expect(answer.code == "GRAPHQL_VALIDATION_FAILED")
                #expect(answer.message == message)
                #expect(answer.locations.count == 2, "both duplicates are located: \(answer.json)")
            }
        }
    }

    @Test("W7: no string form hides nesting from the depth bound; a short \\u escape is a parse error, not a trap")
    func w7StringFormsCannotHideNesting() async throws {
        try await Self.withServer { target in
            for form in DocumentLexerTests.stringForms {
                for query in [
                    "{ a(b: [ \(form) " + String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)
                        + " ]) }",
                    "{ a(b: \(form)) " + String(repeating: "{ a ", count: 5_000) + String(repeating: "}", count: 5_001),
                    "{ a(b: \(form) c: \"\") " + String(repeating: "{ a ", count: 5_000)
                        + String(repeating: "}", count: 5_001),
                ] {
                    // GraphQLSwift reads past the form into the brackets (its tokens are the
                    // lexer's: DocumentLexerTests), unless the form leaves a string open.
                    let answer = try await Self.post(target, query)
                    if Self.readsIntoTheBrackets(query) {
                        Self.expectBound(answer, "depth")
                    } else {
                        #expect(answer.code == "GRAPHQL_PARSE_FAILED", "\(form): \(answer.json)")
                    }
                }
            }
            for query in ["{ a(b: \"\\u", "{ a(b: \"\\u1", "{ a(b: \"\\u12", "{ a(b: \"\\u123"] {
                let answer = try await Self.post(target, query)
                #expect(answer.code == "GRAPHQL_PARSE_FAILED", "\(answer.json)")
                #expect(answer.message.contains("Unterminated string"))
            }
        }
    }

    /// Whether GraphQLSwift's lexer reads more than 32 levels of brackets in `query`.
    static func readsIntoTheBrackets(_ query: String) -> Bool {
        var depth = 0
        for token in DocumentLexerTests.lex(query).tokens {
            switch token.kind {
            case .openingBrace, .openingBracket, .openingParenthesis:
                depth += 1
                if depth > 32 { return true }
            case .closingBrace, .closingBracket, .closingParenthesis: depth -= 1
            default: break
            }
        }
        return false
    }

    @Test(
        "W7: a misplaced nested list literal is refused without GraphQLSwift's printer, which doubles its cost per level"
    )
    func w7NestedLiteralsArePrintedOnce() async throws {
        try await Self.withServer { target in
            let inner = String(repeating: "1, ", count: 300) + "1"
            let list = String(repeating: "[", count: 12) + inner + String(repeating: "]", count: 12)
            let object = String(repeating: "{a: ", count: 12) + "[\(inner)]" + String(repeating: "}", count: 12)
            for query in [
                "{ listItems(limit: \(list)) { scannedCount } }",
                "{ listItems(sortDirection: \(list)) { scannedCount } }",
                "{ listItems(limit: \(object)) { scannedCount } }",
                "{ listItems(filter: {category: {eq: \(list)}}) { scannedCount } }",
            ] {
                let answer = try await Self.post(target, query)
                #expect(answer.code == "GRAPHQL_VALIDATION_FAILED", "\(answer.json)")
                #expect(answer.message.hasPrefix("Expected value of type"), "\(answer.message.prefix(300))")
                // One line, cut short: GraphQLSwift's printer writes it over many lines, 2¹² times.
                #expect(
                    !answer.message.contains("\n") && answer.message.hasSuffix("….") && answer.message.utf8.count < 400
                )
                #expect(answer.locations.first?[0] == 1)
            }
            // A flat misplaced list is GraphQLSwift's own answer.
            let flat = try await Self.post(target, "{ listItems(limit: [1, 2]) { scannedCount } }")
            #expect(flat.code == "GRAPHQL_VALIDATION_FAILED" && flat.message.contains("[1, 2]"), "\(flat.json)")
        }
    }

    @Test("W7: the counts validation is quadratic in are bounded: definitions, tokens, directives, aliases")
    func w7CountsAreBounded() async throws {
        try await Self.withServer { target in
            Self.expectBound(
                try await Self.post(target, String(repeating: "{ __typename @skip(if: false) }\n", count: 10_000)),
                "tokens"
            )
            Self.expectBound(
                try await Self.post(target, String(repeating: "{ __typename @skip(if: false) }\n", count: 101)),
                "definitions"
            )
            let fragments = (0..<101).map { "fragment F\($0) on Query { __typename }" }.joined(separator: "\n")
            Self.expectBound(try await Self.post(target, fragments + "\n{ __typename }"), "definitions")
            Self.expectBound(
                try await Self.post(target, "{" + String(repeating: " __typename", count: 15_000) + " }"),
                "tokens"
            )
            Self.expectBound(
                try await Self.post(target, "{" + String(repeating: " __typename @skip(if: false)", count: 101) + " }"),
                "directives"
            )
            let aliases = (0..<101).map { "a\($0): __typename" }.joined(separator: " ")
            Self.expectBound(try await Self.post(target, "{ \(aliases) }"), "aliases")
            let variables = (0..<4_000).map { "$v\($0): Int" }.joined(separator: ", ")
            Self.expectBound(try await Self.post(target, "query(\(variables)) { __typename }"), "tokens")
            // At the bounds, the documents are answered by GraphQLSwift.
            let hundred = try await Self.post(
                target,
                (0..<100).map { "query Q\($0) { __typename }" }.joined(separator: "\n")
            )
            #expect(hundred.code == nil || hundred.code != "BOUND_EXCEEDED", "\(hundred.json)")
            let ok = try await Self.post(
                target,
                "{ " + (0..<100).map { "a\($0): __typename @skip(if: false)" }.joined(separator: " ") + " }"
            )
            #expect(ok.errors.isEmpty && ok.data != nil, "\(ok.json)")
        }
    }

    @Test("W7: fragments spreading fragments are counted as executed: 2ⁿ selections are refused, not executed")
    func w7FragmentFanOutIsBounded() async throws {
        try await Self.withServer { target in
            let levels = 14
            var fragments = (0..<levels).map { level in
                "fragment A\(level) on Query { ...A\(level + 1) ...B\(level + 1) } fragment B\(level) on Query { ...A\(level + 1) ...B\(level + 1) }"
            }
            fragments.append("fragment A\(levels) on Query { __typename } fragment B\(levels) on Query { __typename }")
            let answer = try await Self.post(target, "{ ...A0 }\n" + fragments.joined(separator: "\n"))
            Self.expectBound(answer, "fields")
            // Fields nested through fragments count toward the depth bound.
            let chain = (0..<40).map { "fragment T\($0) on __Type { ofType { ...T\($0 + 1) } }" }.joined(
                separator: "\n"
            )
            let deep = try await Self.post(
                target,
                "{ __type(name: \"Item\") { ...T0 } }\n" + chain + "\nfragment T40 on __Type { name }"
            )
            Self.expectBound(deep, "depth")
        }
    }

    static let itemFields = "items { partition sortKey sizeBytes category fingerprint } nextToken scannedCount"

    /// A store whose pages can hold 10,486 items (1 MiB budget, 100-byte items).
    static let largePages = StoreConfiguration(
        partitions: 2,
        itemsPerPartition: .uniform(5_000),
        itemSize: .fixed(100),
        scanBudgetBytes: 1 << 20,
        seed: 7
    )

    @Test("W7: the cost of an operation, from its requested limits, is bounded before it runs, on both executors")
    func w7CostIsBoundedBeforeExecution() async throws {
        for execution in GraphQLRoutes.Execution.allCases {
            try await Self.withServer(execution: execution, store: Self.largePages) { target in
                // 5 × (1 + (1 + 1000 × 6) + 2) = 30,020 > 10,000.
                let aliases = (0..<5).map { "a\($0): listItems(limit: 1000) { \(Self.itemFields) }" }.joined(
                    separator: " "
                )
                Self.expectBound(try await Self.post(target, "{ \(aliases) }"), "cost")
                let single = "query($l: Int) { listItems(limit: $l) { \(Self.itemFields) } }"
                Self.expectBound(try await Self.post(target, single, variables: ["l": 2000]), "cost")
                Self.expectBound(try await Self.post(target, single, variables: ["l": 1999.5]), "cost")
                // 1 + (1 + 2500 × (1 + 1 + 2)) = 10,002.
                Self.expectBound(
                    try await Self.post(
                        target,
                        "query($n: Int = 2500) { itemsConnection(first: $n) { edges { cursor node { sortKey } } } }"
                    ),
                    "cost"
                )
                // Within the bound: the page (at most its limit's items) is served.
                let fine = try await Self.post(target, single, variables: ["l": 1600])
                #expect(fine.errors.isEmpty, "\(fine.json)")
                #expect(((fine.data?["listItems"] as? [String: Any])?["items"] as? [Any])?.isEmpty == false)
            }
        }
        // A page is never larger than the store's budget lets it be: a limit past that costs
        // what the page can hold (the test store: 4 KiB budget, 512-byte items: 9 items).
        try await Self.withServer(bounds: GraphQLBounds(maximumCost: 100)) { target in
            let answer = try await Self.post(target, "{ listItems(limit: 1000000) { items { partition sortKey } } }")
            #expect(answer.errors.isEmpty, "\(answer.json)")
        }
    }

    @Test("W7: introspection, as clients send it, is within the default bounds; nested introspection lists are not")
    func w7IntrospectionFitsTheBounds() async throws {
        try await Self.withServer { target in
            let answer = try await Self.post(target, Self.introspectionQuery)
            #expect(answer.errors.isEmpty, "\(answer.json)")
        }
        // Introspection costs what the schema holds (about 1,400 here), 20 times over (with
        // the default bounds, the fields bound refuses this first).
        try await Self.withServer(bounds: GraphQLBounds(maximumSelections: 100_000)) { target in
            let fragments = Self.introspectionQuery[
                Self.introspectionQuery.range(of: "fragment FullType")!.lowerBound...
            ]
            let aliases = (0..<20).map { "a\($0): __schema { types { ...FullType } }" }.joined(separator: " ")
            Self.expectBound(try await Self.post(target, "{ \(aliases) }\n" + fragments), "cost")
        }
    }

    @Test("W7: variables nest at most the depth bound")
    func w7VariablesAreBounded() async throws {
        try await Self.withServer { target in
            var filter: Any = ["category": ["eq": 0]]
            for _ in 0..<40 { filter = ["not": filter] }
            let answer = try await Self.post(
                target,
                "query($f: ItemFilterInput) { listItems(filter: $f) { scannedCount } }",
                variables: ["f": filter]
            )
            Self.expectBound(answer, "depth")
        }
    }

    @Test(
        "W7: the CPU time of reading, parsing and validating a document is bounded; a request over it is refused, the next one is not"
    )
    func w7CpuTimeIsBounded() async throws {
        try await Self.withServer(request: RequestBounds(maximumCPUTime: .zero)) { target in
            for _ in 0..<2 {
                // Not cached: the time was the request's.
                Self.expectBound(try await Self.post(target, "{ listItems { scannedCount } }"), "cpu")
            }
            let dynamo = try await Self.dynamoDB(target, "Scan", #"{"TableName": "items", "Limit": 1}"#)
            #expect(
                dynamo.status == 400 && dynamo.errorType == "ValidationException"
                    && dynamo.message.contains("--max-request-cpu")
            )
        }
    }

    @Test("W7: a response larger than --max-response-bytes is an error naming the bound, in every protocol")
    func w7ResponsesAreBounded() async throws {
        for execution in GraphQLRoutes.Execution.allCases {
            try await Self.withServer(request: RequestBounds(maximumResponseBytes: 300), execution: execution) {
                target in
                Self.expectBound(
                    try await Self.post(target, "{ listItems(partition: 1, limit: 8) { \(Self.itemFields) } }"),
                    "responseBytes"
                )
                let small = try await Self.post(target, "{ listItems(partition: 1, limit: 1) { scannedCount } }")
                #expect(small.errors.isEmpty)
                let rest = try await TestHTTPClient(target).execute(uri: "/partitions/1/items?limit=8")
                #expect(rest.status.code == 400 && rest.text.contains("--max-response-bytes"), "\(rest.text)")
                let dynamo = try await Self.dynamoDB(
                    target,
                    "Query",
                    #"{"TableName": "items", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"N": "1"}}, "Limit": 8}"#
                )
                #expect(
                    dynamo.status == 400 && dynamo.errorType == "ValidationException"
                        && dynamo.message.contains("--max-response-bytes")
                )
            }
        }
    }

    @Test("W7: a body larger than --max-body-bytes is refused unread, in every protocol")
    func w7BodiesAreBounded() async throws {
        try await Self.withServer(request: RequestBounds(maximumBodyBytes: 200)) { target in
            let answer = try await Self.post(
                target,
                "{ listItems { scannedCount } }" + String(repeating: " ", count: 300)
            )
            #expect(answer.status == 413 && answer.message.contains("--max-body-bytes"), "\(answer.json)")
            let dynamo = try await Self.dynamoDB(
                target,
                "Scan",
                #"{"TableName": "items"}"# + String(repeating: " ", count: 300)
            )
            #expect(dynamo.status == 400 && dynamo.message.contains("--max-body-bytes"))
            let projection = try await Self.dynamoDB(target, "Scan", #"{"TableName": "items"}"#)
            #expect(projection.status == 200)
        }
    }

    @Test("W7: errors are located on the document as sent, however many lines it has")
    func w7ErrorsAreLocatedOnTheText() async throws {
        try await Self.withServer { target in
            let lines = String(repeating: "# a comment line\n", count: 20_000)
            let invalid = try await Self.post(target, lines + "{\n  noSuchField\n}")
            #expect(invalid.code == "GRAPHQL_VALIDATION_FAILED")
            #expect(invalid.locations == [[20_002, 3]], "\(invalid.json)")
            let syntax = try await Self.post(target, "\r\n\r\n{ listItems(limit: ) }")
            #expect(syntax.code == "GRAPHQL_PARSE_FAILED")
            #expect(syntax.locations == [[3, 20]], "\(syntax.json)")
            #expect(syntax.message.hasPrefix("Syntax Error GraphQL request (3:20) "), "\(syntax.message)")
            let token = try await Self.post(
                target,
                "\n\n query { listItems(partition: 0, nextToken: \"nope\") { scannedCount } __typename }"
            )
            #expect(token.locations == [[3, 10]], "\(token.json)")
            // Comments are dropped before GraphQLSwift parses the document it runs; nothing else is.
            let commented = try await Self.post(
                target,
                "# a\n{ # b { [ \"\n  listItems(limit: 3, partition: 1) { #c\n scannedCount } # d\n}\n# e"
            )
            #expect((commented.data?["listItems"] as? [String: Any])?["scannedCount"] as? Int == 3, "\(commented.json)")
        }
    }

    @Test("W7: the document cache keeps small documents only, so distinct large ones cannot fill the server's memory")
    func w7DocumentCacheIsBoundedByText() async throws {
        let routes = try GraphQLRoutes()
        try await withLiveServer(StoreServer(store: try TestStores.store(), extraRoutes: [routes])) { target in
            let small = "{ listItems(limit: 1) { scannedCount } }"
            let large = small + "\n#" + String(repeating: "x", count: 20_000)
            for query in [small, small, large, large] { _ = try await Self.post(target, query) }
            // The small text was parsed once; the large one each time.
            #expect(routes.documentCacheCounts.misses == 3)
            #expect(routes.documentCacheCounts.hits == 1)
        }
    }

    @Test("W7: ProjectionExpression is bounded like DynamoDB's other expressions (4 KB)")
    func w7ProjectionIsBounded() async throws {
        try await Self.withServer { target in
            let long = Array(repeating: "pk", count: 3_000).joined(separator: ", ")
            let answer = try await Self.dynamoDB(
                target,
                "Scan",
                #"{"TableName": "items", "ProjectionExpression": "\#(long)"}"#
            )
            #expect(
                answer.status == 400 && answer.errorType == "ValidationException" && answer.message.contains("4096"),
                "\(answer.json)"
            )
        }
    }

    /// The introspection query graphql-js and graphql-core send (`getIntrospectionQuery()`).
    static let introspectionQuery = """
        query IntrospectionQuery {
          __schema {
            queryType { name }
            mutationType { name }
            subscriptionType { name }
            types { ...FullType }
            directives { name description locations args { ...InputValue } }
          }
        }
        fragment FullType on __Type {
          kind name description
          fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
          inputFields { ...InputValue }
          interfaces { ...TypeRef }
          enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
          possibleTypes { ...TypeRef }
        }
        fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
        fragment TypeRef on __Type {
          kind name
          ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
        }
        """
}
