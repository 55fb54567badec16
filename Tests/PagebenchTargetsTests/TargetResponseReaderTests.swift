import Foundation
import NIOCore
import PagebenchBase
import PagebenchHTTPClient
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Testing

@testable import PagebenchTargets

/// The response reader of every target kind (T1, T2) against hostile bodies: whatever a
/// server sends, a response is a page or an error of its drain counted by kind, never a
/// crash, never the end of a drain by accident. No network: the bodies go straight to the
/// reader of a source that never connects.
@Suite struct TargetResponseReaderTests {
    /// One source per kind and shape, none of which ever connects (port 9, discard).
    static let targets: [(name: String, json: String)] = [
        (
            "http",
            """
            {"kind": "http", "endpoint": "http://127.0.0.1:9", "path": "/items?limit=${limit}", "items": "/items",
             "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}, "scannedCount": "/scanned"}
            """
        ),
        (
            "graphql-appsync",
            """
            {"kind": "graphql", "endpoint": "http://127.0.0.1:9/graphql", "query": "query($nextToken: String) { listItems(nextToken: $nextToken) { items { sortKey } nextToken } }",
             "items": "/data/listItems/items", "continuation": "/data/listItems/nextToken"}
            """
        ),
        (
            "graphql-relay",
            """
            {"kind": "graphql", "endpoint": "http://127.0.0.1:9/graphql", "shape": "relay",
             "query": "query($after: String) { itemsConnection(after: $after) { edges { cursor } pageInfo { hasNextPage endCursor } } }",
             "items": "/data/itemsConnection/edges", "pageInfo": "/data/itemsConnection/pageInfo"}
            """
        ),
        (
            "dynamodb",
            """
            {"kind": "dynamodb", "endpoint": "http://127.0.0.1:9", "region": "us-east-1", "table": "t", "operation": "Scan"}
            """
        ),
    ]

    static let credentials = ["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret-example"]

    static func source(_ json: String) throws -> TargetSource {
        try TargetSource(
            target: try Target.load(json: Data(json.utf8), defaultName: "reader"),
            connections: 1,
            environment: credentials
        )
    }

    /// What the reader made of one body: a page, or the kind of error.
    enum Outcome: Equatable, CustomStringConvertible {
        case page(items: Int, token: String?)
        case error(TargetError.Kind)

        var description: String {
            switch self {
            case .page(let items, let token): "page(\(items) items, token \(token ?? "nil"))"
            case .error(let kind): "error(\(kind.rawValue))"
            }
        }
    }

    static func read(_ source: TargetSource, _ body: [UInt8], token: String? = nil) -> Outcome {
        let request = PageRequest(range: .scan, limit: 10, token: token)
        do {
            let page = try source.readPage(ByteBuffer(bytes: body), request: request, described: "POST test")
            return .page(items: page.items.count, token: page.nextToken)
        } catch {
            return .error(error.kind)
        }
    }

    /// A body with `deep` in the place of `<DEEP>` of each kind's page: before the items,
    /// inside them, and as the continuation.
    static func pages(_ kind: String) -> [String] {
        switch kind {
        case "http":
            return [
                #"{"before": <DEEP>, "items": [], "nextToken": null}"#,
                #"{"items": [<DEEP>], "nextToken": null}"#,
                #"{"items": [], "nextToken": <DEEP>}"#,
            ]
        case "graphql-appsync":
            return [
                #"{"extensions": <DEEP>, "data": {"listItems": {"items": [], "nextToken": null}}}"#,
                #"{"data": {"listItems": {"items": [<DEEP>], "nextToken": null}}}"#,
                #"{"data": {"listItems": {"items": [], "nextToken": <DEEP>}}}"#,
                #"{"errors": <DEEP>, "data": {"listItems": {"items": [], "nextToken": null}}}"#,
            ]
        case "graphql-relay":
            return [
                #"{"data": {"x": <DEEP>, "itemsConnection": {"edges": [], "pageInfo": {"hasNextPage": false}}}}"#,
                #"{"data": {"itemsConnection": {"edges": [<DEEP>], "pageInfo": {"hasNextPage": false}}}}"#,
                #"{"data": {"itemsConnection": {"edges": [], "pageInfo": {"hasNextPage": true, "endCursor": <DEEP>}}}}"#,
                #"{"data": {"itemsConnection": {"edges": [], "pageInfo": <DEEP>}}}"#,
            ]
        default:
            return [
                #"{"ConsumedCapacity": <DEEP>, "Items": [], "Count": 0, "ScannedCount": 0}"#,
                #"{"Items": [<DEEP>], "Count": 1, "ScannedCount": 1}"#,
                #"{"Items": [], "Count": 0, "ScannedCount": 0, "LastEvaluatedKey": <DEEP>}"#,
            ]
        }
    }

    static func nested(_ depth: Int, object: Bool) -> String {
        object
            ? String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
            : String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    /// Issue 24: a body nested 300,000 deep anywhere crashed the run (unbounded recursion
    /// skipping values). Now every such body is a `notJSON` error of its drain (T2), with the
    /// reason named, for every kind and every place.
    @Test(arguments: targets.map(\.name))
    func t2ABodyNestedDeeperThanTheBoundIsNotJSONWherever(kind: String) throws {
        let source = try Self.source(Self.targets.first { $0.name == kind }!.json)
        for template in Self.pages(kind) {
            for deep in [
                Self.nested(300_000, object: false), Self.nested(300_000, object: true),
                String(repeating: "[", count: 300_000),
            ] {
                let body = Array(template.replacingOccurrences(of: "<DEEP>", with: deep).utf8)
                #expect(Self.read(source, body) == .error(.notJSON), "\(kind): \(template)")
            }
        }
        var reason = ""
        do {
            _ = try source.readPage(
                ByteBuffer(
                    string: Self.pages(kind)[0].replacingOccurrences(
                        of: "<DEEP>",
                        with: Self.nested(1000, object: false)
                    )
                ),
                request: PageRequest(range: .scan, limit: 1),
                described: "POST test"
            )
        } catch {
            reason = error.message
        }
        #expect(reason.contains("nest deeper than \(JSONReader.maximumDepth) levels"), "\(reason)")
    }

    /// Within the bound, a deep continuation is a continuation of the wrong type and deep
    /// GraphQL `errors` are errors: never read as "no continuation" (the end of a drain) or
    /// "no errors" because a value parser gave up on its depth.
    @Test func t2ADeepButBoundedContinuationIsTheWrongTypeNotTheEnd() throws {
        let deep = Self.nested(200, object: false)
        let http = try Self.source(Self.targets[0].json)
        #expect(Self.read(http, Array(#"{"items": [1], "nextToken": \#(deep)}"#.utf8)) == .error(.badContinuation))
        #expect(Self.read(http, Array(#"{"items": [\#(deep)], "nextToken": "t"}"#.utf8)) == .page(items: 1, token: "t"))
        let appsync = try Self.source(Self.targets[1].json)
        #expect(
            Self.read(
                appsync,
                Array(#"{"errors": \#(deep), "data": {"listItems": {"items": [], "nextToken": null}}}"#.utf8)
            )
                == .error(.graphQLError)
        )
        #expect(
            Self.read(appsync, Array(#"{"data": {"listItems": {"items": [], "nextToken": \#(deep)}}}"#.utf8))
                == .error(.badContinuation)
        )
        let relay = try Self.source(Self.targets[2].json)
        #expect(
            Self.read(
                relay,
                Array(
                    #"{"data": {"itemsConnection": {"edges": [], "pageInfo": {"hasNextPage": true, "endCursor": \#(deep)}}}}"#
                        .utf8
                )
            )
                == .error(.badContinuation)
        )
    }

    // MARK: Corpus and seeded mutations

    /// A well-formed page of each kind, with a continuation: the seed of the mutations.
    static let validBodies: [String: String] = [
        "http":
            #"{"items": [{"id": 1, "name": "a\u00e9\"b\\"}, {"id": 2, "tags": [1, -2.5e3, true, false, null]}], "nextToken": "tok-1", "scanned": 5}"#,
        "graphql-appsync":
            #"{"data": {"listItems": {"items": [{"sortKey": "0"}, {"sortKey": "1"}], "nextToken": "AgAA", "scannedCount": 2}}}"#,
        "graphql-relay":
            #"{"data": {"itemsConnection": {"edges": [{"cursor": "c1", "node": {"id": 1}}], "pageInfo": {"hasNextPage": true, "endCursor": "c1"}}}}"#,
        "dynamodb":
            #"{"Items": [{"pk": {"N": "1"}, "sk": {"N": "2"}}], "Count": 1, "ScannedCount": 3, "LastEvaluatedKey": {"pk": {"N": "1"}, "sk": {"N": "2"}}, "ConsumedCapacity": {"TableName": "t", "CapacityUnits": 0.5}}"#,
    ]

    /// Bodies no server should send, for every kind: malformed JSON of every sort, valid
    /// JSON of the wrong shape, numbers no type holds.
    static let hostileBodies: [[UInt8]] = {
        let texts = [
            "", " ", "\u{FEFF}{}", "null", "true", "0", "-", "[]", "{}", "\"", "{\"", "{\"items\"", "{\"items\":",
            "{\"items\":[", "{\"items\":[1,]}", "{\"items\":[1}", "{,}", "{\"a\":1,,\"b\":2}", "{\"a\" 1}", "[1 2]",
            "1e99999",
            "-0", "01", "1.", ".5", "NaN", "Infinity", "\"\\u12\"", "\"\\uD800\"", "\"\\uDC00\\uD800\"", "\"\\x\"",
            "\"a\nb\"",
            #"{"items": [01]}"#, #"{"items": ["\q"]}"#, #"{"items": [1e], "nextToken": null}"#, #"{"items": [+1]}"#,
            #"{"items": [], "items": [1, 2], "nextToken": null}"#, #"{"items": [], "nextToken": "\uD83D\uDE00"}"#,
            #"{"items": {}, "nextToken": null}"#, #"{"items": "x"}"#, #"{"items": 5}"#, #"{"items": null}"#,
            #"{"items": [], "nextToken": 5}"#, #"{"items": [], "nextToken": {}}"#, #"{"items": [], "nextToken": []}"#,
            #"{"items": [], "nextToken": true}"#, #"{"items": [], "nextToken": ""}"#,
            #"{"items": [], "scanned": 1e400}"#, #"{"items": [], "scanned": -5}"#,
            #"{"items": [], "scanned": 99999999999999999999}"#,
            #"{"errors": [], "data": null}"#, #"{"errors": [{}]}"#, #"{"errors": "x"}"#,
            #"{"errors": null, "data": {}}"#,
            #"{"data": {"listItems": null}}"#, #"{"data": {"listItems": {"items": [], "nextToken": 7}}}"#,
            #"{"data": {"itemsConnection": {"edges": [], "pageInfo": null}}}"#,
            #"{"data": {"itemsConnection": {"edges": [], "pageInfo": []}}}"#,
            #"{"data": {"itemsConnection": {"edges": [], "pageInfo": {"hasNextPage": "yes"}}}}"#,
            #"{"data": {"itemsConnection": {"edges": [], "pageInfo": {"hasNextPage": true}}}}"#,
            #"{"data": {"itemsConnection": {"edges": [], "pageInfo": {"hasNextPage": true, "endCursor": ""}}}}"#,
            #"{"data": {"itemsConnection": {"edges": [], "pageInfo": {"hasNextPage": true, "endCursor": 5}}}}"#,
            #"{"Items": [], "LastEvaluatedKey": []}"#, #"{"Items": [], "LastEvaluatedKey": "k"}"#,
            #"{"Items": [], "LastEvaluatedKey": 5}"#,
            #"{"Items": [], "LastEvaluatedKey": null}"#, #"{"Items": {}}"#,
            #"{"__type": "x#ValidationException", "message": "no"}"#,
            #"{"Items": [], "ScannedCount": 1e400, "ConsumedCapacity": {"CapacityUnits": 1e309}}"#,
            #"{"Items": [], "ConsumedCapacity": {"CapacityUnits": -1e309}}"#,
            #"{"Items": [], "ConsumedCapacity": {"CapacityUnits": 1e300}}"#,
            #"{"Items": [], "ConsumedCapacity": {"CapacityUnits": 9.3e18}}"#,
            #"{"Items": [], "ConsumedCapacity": {"CapacityUnits": -5}}"#,
            #"{"Items": [], "ConsumedCapacity": {"CapacityUnits": "x"}}"#,
            "{\"items\": [" + String(repeating: "0,", count: 100_000) + "0], \"nextToken\": null}",
            "{\"items\": [\"" + String(repeating: "x", count: 1 << 20) + "\"], \"nextToken\": null}",
            String(repeating: "[", count: 300_000), String(repeating: "{\"a\":", count: 300_000),
        ]
        return texts.map { Array($0.utf8) } + [
            [0xFF, 0xFE], [0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D], [0x00],
        ]
    }()

    /// Some mutations of `body`: bytes overwritten, deleted, inserted (structural ones
    /// mostly), slices duplicated, brackets piled up, the end cut off.
    static func mutate(_ body: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        let alphabet = Array(#"{}[]":,\ 0123456789-+.eEtruefalsn"#.utf8)
        func pick() -> UInt8 {
            random.next(below: 4) == 0
                ? UInt8(truncatingIfNeeded: random.next()) : alphabet[random.next(below: alphabet.count)]
        }
        var bytes = body
        for _ in 0...random.next(below: 3) {
            let at = random.next(below: bytes.count + 1)
            switch random.next(below: 6) {
            case 0 where at < bytes.count: bytes[at] = pick()
            case 1 where at < bytes.count: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.next(below: 8)))
            case 2: bytes.insert(pick(), at: at)
            case 3 where at < bytes.count:
                let end = min(bytes.count, at + 1 + random.next(below: 40))
                bytes.insert(contentsOf: bytes[at..<end], at: random.next(below: bytes.count + 1))
            case 4:
                bytes.insert(
                    contentsOf: repeatElement(
                        random.next(below: 2) == 0 ? UInt8(ascii: "[") : UInt8(ascii: "{"),
                        count: random.next(below: 1200)
                    ),
                    at: at
                )
            default: bytes.removeLast(random.next(below: bytes.count + 1))
            }
        }
        return bytes
    }

    /// T2 for every kind: each corpus body, every truncation of a real page and 1500 seeded
    /// mutations of it end as a page or a classified error, never a crash; a page is read
    /// only from text a strict JSON parser (Foundation's) accepts, and its figures hold
    /// together. Runs in a few seconds (no network).
    @Test(arguments: targets.map(\.name))
    func t2EveryHostileBodyIsAPageOrAClassifiedError(kind: String) throws {
        let source = try Self.source(Self.targets.first { $0.name == kind }!.json)
        let valid = Array(Self.validBodies[kind]!.utf8)
        guard case .page(let items, let token?) = Self.read(source, valid) else {
            Issue.record("\(kind): the valid body is not a page with a continuation: \(Self.read(source, valid))")
            return
        }
        #expect(items > 0 && !token.isEmpty)
        var bodies = Self.hostileBodies + (0..<valid.count).map { Array(valid.prefix($0)) }
        var random = SplitMix64(seed: 0x7A26_E7 ^ UInt64(kind.utf8.count))
        bodies += (0..<1500).map { _ in Self.mutate(valid, &random) }
        var outcomes: [String: Int] = [:]
        for body in bodies {
            let request = PageRequest(range: .scan, limit: 10)
            let page: Page
            do {
                page = try source.readPage(ByteBuffer(bytes: body), request: request, described: "POST test")
            } catch {
                #expect(!error.message.isEmpty && error.status == 200)
                outcomes[error.kind.rawValue, default: 0] += 1
                continue
            }
            outcomes["page", default: 0] += 1
            let text = String(decoding: body, as: UTF8.self)
            // Invalid UTF-8 and \u escapes (surrogates) are left to a comparison of their own.
            if String(validating: body, as: UTF8.self) != nil, !text.contains("\\u") {
                do {
                    _ = try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
                } catch {
                    // (1e400 is JSON, RFC 8259 §6, that no Double holds: Foundation refuses it.)
                    if !"\(error)".contains("is not representable") {
                        Issue.record(
                            "\(kind): a page was read from text that is not JSON (\(error)): \(text.prefix(300))"
                        )
                    }
                }
            }
            #expect(page.scannedCount >= page.items.count)
            #expect(page.scannedBytes <= body.count)
            #expect(page.nextToken.map { !$0.isEmpty } ?? true)
        }
        // The mutations reach every outcome that kind has: pages and errors of several kinds.
        #expect(outcomes["page", default: 0] > 0 && outcomes["notJSON", default: 0] > 0, "\(kind): \(outcomes)")
    }
}
