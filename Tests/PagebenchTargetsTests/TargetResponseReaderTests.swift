import Foundation
import NIOCore
import PagebenchBase
import PagebenchHTTP
import PagebenchStore
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
            target: try Target.load(json: Data(json.utf8), defaultName: "reader"), connections: 1, environment: credentials)
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
    func t2_aBodyNestedDeeperThanTheBoundIsNotJSONWherever(kind: String) throws {
        let source = try Self.source(Self.targets.first { $0.name == kind }!.json)
        for template in Self.pages(kind) {
            for deep in [Self.nested(300_000, object: false), Self.nested(300_000, object: true), String(repeating: "[", count: 300_000)] {
                let body = Array(template.replacingOccurrences(of: "<DEEP>", with: deep).utf8)
                #expect(Self.read(source, body) == .error(.notJSON), "\(kind): \(template)")
            }
        }
        var reason = ""
        do {
            _ = try source.readPage(
                ByteBuffer(string: Self.pages(kind)[0].replacingOccurrences(of: "<DEEP>", with: Self.nested(1000, object: false))),
                request: PageRequest(range: .scan, limit: 1), described: "POST test")
        } catch {
            reason = error.message
        }
        #expect(reason.contains("nest deeper than \(JSONReader.maximumDepth) levels"), "\(reason)")
    }

    /// Within the bound, a deep continuation is a continuation of the wrong type and deep
    /// GraphQL `errors` are errors: never read as "no continuation" (the end of a drain) or
    /// "no errors" because a value parser gave up on its depth.
    @Test func t2_aDeepButBoundedContinuationIsTheWrongTypeNotTheEnd() throws {
        let deep = Self.nested(200, object: false)
        let http = try Self.source(Self.targets[0].json)
        #expect(Self.read(http, Array(#"{"items": [1], "nextToken": \#(deep)}"#.utf8)) == .error(.badContinuation))
        #expect(Self.read(http, Array(#"{"items": [\#(deep)], "nextToken": "t"}"#.utf8)) == .page(items: 1, token: "t"))
        let appsync = try Self.source(Self.targets[1].json)
        #expect(
            Self.read(appsync, Array(#"{"errors": \#(deep), "data": {"listItems": {"items": [], "nextToken": null}}}"#.utf8))
                == .error(.graphQLError))
        #expect(
            Self.read(appsync, Array(#"{"data": {"listItems": {"items": [], "nextToken": \#(deep)}}}"#.utf8))
                == .error(.badContinuation))
        let relay = try Self.source(Self.targets[2].json)
        #expect(
            Self.read(
                relay,
                Array(#"{"data": {"itemsConnection": {"edges": [], "pageInfo": {"hasNextPage": true, "endCursor": \#(deep)}}}}"#.utf8))
                == .error(.badContinuation))
    }
}
