import Foundation
import PagebenchPage
import Testing

@testable import PagebenchTargets

/// Issue 37: a target's declared `filters` reach the API through `${filter}` once verify or
/// `pages` chooses one (``Target/filterValue``); as loaded, `${filter}` is still the
/// workload's, as `run` sends it. No network: requests are only described.
@Suite struct TargetFiltersTests {
    static let environment = ["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret-example"]

    static func sent(_ json: String, filterValue: Int?, workload: Filter? = nil) throws -> String {
        var target = try Target.load(json: Data(json.utf8), defaultName: "filters")
        if let filterValue { target.filterValue = target.filters![filterValue] }
        let source = try TargetSource(target: target, connections: 1, environment: environment)
        let described = source.describe(PageRequest(range: .partition(0), limit: 5, filter: workload))
        return described.sent + (described.body.map { " " + $0 } ?? "")
    }

    @Test func theChosenFilterValueIsSentAndAsLoadedTheWorkloadsFilterIs() throws {
        let http = """
            {"kind": "http", "endpoint": "http://127.0.0.1:9", "partitions": {"values": ["a"]},
             "path": "/p/${partition}?limit=${limit}&status=${filter}", "items": "/items", "continuation": "/next",
             "continuationIn": {"query": "next"}, "filters": ["open", "closed"], "tokensBind": ["filter", "limit"]}
            """
        #expect(try Self.sent(http, filterValue: 1) == "GET http://127.0.0.1:9/p/a?limit=5&status=closed")
        #expect(
            try Self.sent(http, filterValue: nil, workload: .matching)
                == "GET http://127.0.0.1:9/p/a?limit=5&status=category%3D0"
        )
        let target = try Target.load(json: Data(http.utf8), defaultName: "filters")
        #expect(target.tokensBind == [.limit, .filter] && target.filters == [.string("open"), .string("closed")])
        // Not part of the hash: the same API as without them.
        let plain = http.replacingOccurrences(
            of: #", "filters": ["open", "closed"], "tokensBind": ["filter", "limit"]"#,
            with: ""
        )
        #expect(try Target.load(json: Data(plain.utf8), defaultName: "filters").targetHash == target.targetHash)
    }

    @Test func aNumberFilterIsANumberInGraphQLAndAStringInDynamoDBsWireForm() throws {
        let graphql = """
            {"kind": "graphql", "endpoint": "http://127.0.0.1:9/graphql", "query": "q", "items": "/data/l/items",
             "continuation": "/data/l/next", "variables": {"c": "${filter}", "l": "${limit}"}, "filters": [3, 4]}
            """
        #expect(try Self.sent(graphql, filterValue: 0).contains(#""variables":{"c":3,"l":5,"#))
        let dynamo = """
            {"kind": "dynamodb", "endpoint": "http://127.0.0.1:9", "region": "us-east-1", "table": "t", "operation": "Scan",
             "filterExpression": "c = :c", "expressionAttributeValues": {":c": {"N": "${filter}"}}, "filters": [3, 4]}
            """
        #expect(try Self.sent(dynamo, filterValue: 1).contains(#"":c":{"N":"4"}"#))
    }
}
