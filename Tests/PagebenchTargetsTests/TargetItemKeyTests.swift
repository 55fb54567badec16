import Foundation
import NIOCore
import Testing

@testable import PagebenchTargets

/// Issue 37: each item's identity read at the target's `itemKey`, inside the item, for every
/// kind: what `verify` compares and `pages --target-file` prints. No network: the bodies go
/// straight to the codec of a source that never connects.
@Suite struct TargetItemKeyTests {
    static func keys(_ json: String, _ body: String) throws -> [String?] {
        let target = try Target.load(json: Data(json.utf8), defaultName: "keys")
        let source = try TargetSource(
            target: target,
            connections: 1,
            environment: ["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret-example"]
        )
        return source.exchange.codec.itemKeys(in: ByteBuffer(string: body), at: target.itemKey!)
    }

    @Test func theKeyOfEachItemIsItsValueAtTheItemKeyAsCompactJSON() throws {
        let http = """
            {"kind": "http", "endpoint": "http://127.0.0.1:9", "path": "/i?limit=${limit}", "items": "/data/items",
             "continuation": "/next", "continuationIn": {"query": "next"}, "itemKey": "/id"}
            """
        let keys = try Self.keys(
            http,
            #"{"data": {"items": [{"id": "a"}, {"id": 7}, {"other": 1}, {"id": {"b": [1, 2]}}]}, "next": null}"#
        )
        #expect(keys == ["\"a\"", "7", nil, #"{"b":[1,2]}"#])
        #expect(try Self.keys(http, #"{"data": {"items": []}}"#) == [])
    }

    @Test func relayEdgesAndDynamoDBAttributesAreReadInsideTheItem() throws {
        let relay = """
            {"kind": "graphql", "endpoint": "http://127.0.0.1:9/graphql", "shape": "relay", "query": "q",
             "items": "/data/c/edges", "pageInfo": "/data/c/pageInfo", "itemKey": "/node/id"}
            """
        #expect(
            try Self.keys(
                relay,
                #"{"data": {"c": {"edges": [{"cursor": "x", "node": {"id": "n1"}}], "pageInfo": {"hasNextPage": false}}}}"#
            )
                == ["\"n1\""]
        )
        let dynamo = """
            {"kind": "dynamodb", "endpoint": "http://127.0.0.1:9", "region": "us-east-1", "table": "t", "operation": "Scan", "itemKey": "/sk/N"}
            """
        #expect(
            try Self.keys(
                dynamo,
                #"{"Items": [{"pk": {"S": "a"}, "sk": {"N": "5"}}, {"pk": {"S": "a"}, "sk": {"N": "6"}}], "Count": 2}"#
            ) == ["\"5\"", "\"6\""]
        )
    }
}
