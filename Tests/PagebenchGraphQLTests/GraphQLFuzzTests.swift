import Foundation
import PagebenchBase
import PagebenchGraphQL
import PagebenchHTTPTestSupport
import PagebenchServer
import PagebenchWire
import Testing

/// W6, W7: a corpus of hostile GraphQL documents (every class of issue 24 and the string
/// forms of the lexer's corpus) and seeded random mutations of valid requests, sent to one
/// in-process server with the default bounds. Every answer must be a well-formed GraphQL
/// response — status 200 with `data` and/or `errors` (each error with a message), or a 400 or
/// 413 error list for a body that is not a GraphQL request — and the server must still
/// answer at the end. The seed is fixed, so a failure replays; it runs in seconds.
@Suite("GraphQL fuzz (W6, W7)")
struct GraphQLFuzzTests {
    static let valid = [
        "query L($p: Int, $f: ItemFilterInput, $t: String, $d: ModelSortDirection) { listItems(partition: $p, limit: 5, filter: $f, nextToken: $t, sortDirection: $d) { items { partition sortKey sizeBytes category fingerprint } nextToken scannedCount } }",
        "query($a: String) { itemsConnection(partition: 2, first: 3, after: $a) { edges { cursor node { sortKey } } pageInfo { hasNextPage endCursor } } }",
        "{ a: listItems(limit: 2) { ...P } b: listItems(limit: 3, sortDirection: DESC) @skip(if: false) { scannedCount } } fragment P on ItemList { items { sortKey } nextToken }",
        "{ __schema { types { name fields { name args { name } } } } }",
        "{ listItems(filter: {or: [{category: {eq: 0}}, {sizeBytes: {between: [100, 900]}}], not: {category: {ge: 3}}}) { scannedCount } }",
    ]

    static let tokens = [
        "{", "}", "(", ")", "[", "]", ":", "$", "!", "...", "@", "=", "|", "&", "query", "mutation", "subscription",
        "fragment",
        "on", "listItems", "itemsConnection", "items", "edges", "node", "cursor", "pageInfo", "nextToken", "partition",
        "limit",
        "filter", "category", "eq", "not", "and", "or", "first", "after", "__typename", "__schema", "__type", "Int",
        "String",
        "ItemFilterInput", "1", "-1", "2147483648", "1.5", "1e3", "\"s\"", "\"\"", "\"\"\"b\"\"\"", "true", "null",
        "DESC", "A",
        "#c\n", "\\u0000", ",", "\n", "\r\n", "\u{FEFF}", "\"\\u12", "\"\\", "@skip(if: false)", "@include(if: $x)",
        "... on Query",
    ]

    /// Documents from every hostile class, each small enough to keep the test quick.
    static var corpus: [String] {
        var documents = [
            "query A { __typename } query A { __typename }", "{ __typename } { __typename }",
            "fragment F on Query { __typename } fragment F on Query { __typename } { ...F }",
            String(repeating: "[", count: 100_000), String(repeating: "{", count: 100_000),
            "{ a(b: " + String(repeating: "[", count: 40) + "1" + String(repeating: "]", count: 40) + ") }",
            "{ listItems(limit: " + String(repeating: "[", count: 30) + String(repeating: "1, ", count: 100) + "1"
                + String(repeating: "]", count: 30) + ") { scannedCount } }",
            String(repeating: "{ __typename @skip(if: false) }", count: 3_000),
            "{"
                + (0..<100).map { "a\($0): listItems(limit: 1000) { items { partition sortKey } }" }.joined(
                    separator: " "
                ) + " }",
            "{ __schema { types { fields { type { fields { type { fields { type { name } } } } } } } } }",
            "query(" + (0..<3_000).map { "$v\($0): Int" }.joined(separator: ", ") + ") { __typename }",
            "{ a(b: \"\\u", "{ a(b: \"\\u12", "{ a(b: \"\\", String(repeating: "\n", count: 200_000) + "{ nope }",
            "#" + String(repeating: "x", count: 500_000) + "\n{ listItems(limit: ) }", "", " ", "\u{FEFF}", "{}",
            "query", "{ ...F }",
        ]
        for form in DocumentLexerTests.stringForms {
            documents.append(
                "{ a(b: [ \(form) " + String(repeating: "[", count: 2_000) + String(repeating: "]", count: 2_000)
                    + " ]) }"
            )
            documents.append(
                "{ a(b: \(form)) " + String(repeating: "{ a ", count: 2_000) + String(repeating: "}", count: 2_001)
            )
        }
        return documents
    }

    /// A mutation of `text`: tokens inserted, deleted, duplicated; the text cut; a span repeated.
    static func mutate(_ text: String, _ random: inout SplitMix64) -> String {
        var words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        for _ in 0..<Int(random.next() % 4 + 1) {
            let position = Int(random.next() % UInt64(words.count + 1))
            switch random.next() % 5 {
            case 0 where !words.isEmpty: words.remove(at: min(position, words.count - 1))
            case 1 where !words.isEmpty:
                let word = words[min(position, words.count - 1)]
                words.insert(contentsOf: Array(repeating: word, count: Int(random.next() % 50)), at: position)
            case 2:
                return String(
                    decoding: text.utf8.prefix(Int(random.next() % UInt64(text.utf8.count + 1))),
                    as: UTF8.self
                )
            default: words.insert(tokens[Int(random.next() % UInt64(tokens.count))], at: position)
            }
        }
        return words.joined(separator: " ")
    }

    static var variables: [Any] {
        [
            NSNull(), 1, -1, 1.5, 2_147_483_648, 1e300, "", "x", "DESC", "\u{0000}", [Any](), [1, 2], [String: Any](),
            ["category": ["eq": 0]], ["not": ["not": ["category": ["eq": ""]]]], ["": 1], [[[[[1]]]]],
        ]
    }

    @Test("W6, W7: every hostile and mutated document gets a well-formed GraphQL answer, and the server keeps serving")
    func w6w7EveryDocumentIsAnswered() async throws {
        try await GraphQLBoundsTests.withServer { target in
            var random = SplitMix64(seed: 2_024)
            var bodies = (Self.corpus + Self.valid).map { query in
                String(decoding: try! JSONSerialization.data(withJSONObject: ["query": query]), as: UTF8.self)
            }
            for _ in 0..<1_500 {
                let query = Self.mutate(Self.valid[Int(random.next() % UInt64(Self.valid.count))], &random)
                var request: [String: Any] = ["query": query]
                if random.next() % 2 == 0 {
                    let names = ["p", "f", "t", "d", "a", "x", "l"]
                    request["variables"] = Dictionary(
                        (0..<Int(random.next() % 4)).map { _ in
                            (
                                names[Int(random.next() % 7)],
                                Self.variables[Int(random.next() % UInt64(Self.variables.count))]
                            )
                        },
                        uniquingKeysWith: { first, _ in first }
                    )
                }
                if random.next() % 10 == 0 {
                    request["operationName"] = ["L", "A", "", "nope"][Int(random.next() % 4)]
                }
                var body = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
                if random.next() % 25 == 0 { body = String(body.prefix(Int(random.next() % UInt64(body.count + 1)))) }
                bodies.append(body)
            }
            var answered = (data: 0, errors: 0)
            for body in bodies {
                let response = try await TestHTTPClient(target).execute(
                    uri: "/graphql",
                    method: .POST,
                    headers: [("Content-Type", "application/json")],
                    body: body
                )
                #expect([200, 400, 413].contains(response.status.code), "\(response.status) for \(body.prefix(300))")
                let json = try? JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any]
                guard let json else {
                    Issue.record("not JSON: \(response.text.prefix(300)) for \(body.prefix(300))")
                    continue
                }
                #expect(json["data"] != nil || json["errors"] != nil, "\(json) for \(body.prefix(300))")
                if response.status.code != 200 { #expect(json["data"] == nil && json["errors"] != nil) }
                for error in json["errors"] as? [[String: Any]] ?? [] {
                    #expect((error["message"] as? String).map { !$0.isEmpty } == true, "\(error)")
                }
                if json["errors"] != nil { answered.errors += 1 } else { answered.data += 1 }
            }
            #expect(answered.errors > bodies.count / 3 && answered.data >= Self.valid.count, "\(answered)")
        }
    }
}
