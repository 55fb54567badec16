import Foundation
import HTTPTypes
import HummingbirdCore
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchStore
import Testing

@testable import PagebenchServer
@testable import PagebenchWire

/// The DynamoDB JSON endpoint (W1–W5) against the store's own pages. The same behaviour is
/// checked with boto3 and the AWS CLI in Tests/protocols/test_dynamodb.py.
@Suite("DynamoDB endpoint")
struct DynamoDBEndpointTests {
    typealias Answer = DynamoDBAnswer

    /// Sends DynamoDB `operation` with `body` to a live server.
    static func call(
        _ target: String,
        _ operation: String,
        _ body: String,
        headers: [(String, String)] = []
    ) async throws -> Answer {
        let answer = try await DynamoDBAnswer.call(target, operation, body, headers: headers)
        #expect(answer.contentType == "application/x-amz-json-1.0")
        return answer
    }

    static func withServer<R: Sendable>(
        _ configuration: StoreConfiguration = TestStores.configuration,
        payload: Bool = false,
        _ body: (SyntheticStore, String) async throws -> R
    ) async throws -> R {
        let store = try TestStores.store(configuration)
        let server = StoreServer(
            store: store,
            configuration: .init(includePayloadByDefault: payload),
            extraRoutes: [DynamoDBRoutes(tableName: "items")]
        )
        return try await withLiveServer(server) { target in try await body(store, target) }
    }

    /// Keys of a store page, as `[[partition, sortKey]]`.
    static func keys(_ page: Page) -> [[Int]] { page.items.map { [$0.partition, Int($0.sortKey)] } }

    static func lastEvaluated(_ store: SyntheticStore, _ page: Page) throws -> [Int]? {
        try page.nextToken.map { token in
            let contents = try store.decodeToken(token)
            return [contents.lastEvaluatedPartition, Int(contents.lastEvaluatedSortKey)]
        }
    }

    @Test(
        "W2, W3, W4: every Query page (filter, sort-key condition, reverse) is the store's page; LastEvaluatedKey resumes"
    )
    func w2w3w4QueryPagesAreTheStorePages() async throws {
        try await Self.withServer { store, target in
            let cases: [(partition: Int, expression: String, values: String, sortKeys: Range<UInt64>?, forward: Bool)] =
                [
                    (2, "pk = :p", #"":p":{"N":"2"}"#, nil, true),
                    (2, "pk = :p", #"":p":{"N":"2"}"#, nil, false),
                    (
                        3, "#k = :p AND sk BETWEEN :a AND :b", #"":p":{"N":"3"},":a":{"N":"5"},":b":{"N":"30"}"#,
                        5..<31, true
                    ),
                    (1, ":a < sk AND pk = :p", #"":p":{"N":"1"},":a":{"N":"12"}"#, 13..<UInt64.max, false),
                    (1, "pk = :p AND sk < :a", #"":p":{"N":"1"},":a":{"N":"0"}"#, 0..<0, true),
                ]
            for test in cases {
                for (filterText, filter) in [
                    ("", nil),
                    (
                        #","FilterExpression":"category = :c OR (sizeBytes >= :s AND NOT category = :d)""#,
                        try Filter(parsing: "category=0 or (size>=600 and not category=1)")
                    ),
                ] as [(String, Filter?)] {
                    let values =
                        filter == nil ? test.values : test.values + #",":c":{"N":"0"},":s":{"N":"600"},":d":{"N":"1"}"#
                    let names = test.expression.contains("#k") ? ##","ExpressionAttributeNames":{"#k":"pk"}"## : ""
                    var request = PageRequest(
                        range: .partition(test.partition),
                        reverse: !test.forward,
                        limit: 4,
                        filter: filter,
                        sortKeys: test.sortKeys
                    )
                    var start = ""
                    for _ in 0..<100 {
                        let answer = try await Self.call(
                            target,
                            "Query",
                            #"{"TableName":"items","KeyConditionExpression":"\#(test.expression)","ExpressionAttributeValues":{\#(values)}\#(names)\#(filterText),"Limit":4,"ScanIndexForward":\#(test.forward)\#(start)}"#
                        )
                        let page = try store.evaluatePage(request)
                        #expect(answer.status == 200, "\(answer.json)")
                        #expect(answer.keys == Self.keys(page), "\(test.expression) \(filterText)")
                        #expect(answer.json["Count"] as? Int == page.returnedCount)
                        #expect(answer.json["ScannedCount"] as? Int == page.scannedCount)
                        #expect(answer.lastEvaluatedKey == (try Self.lastEvaluated(store, page)))
                        guard let last = answer.lastEvaluatedKey, let token = page.nextToken else { break }
                        request.token = token
                        start = #","ExclusiveStartKey":{"pk":{"N":"\#(last[0])"},"sk":{"N":"\#(last[1])"}}"#
                    }
                }
            }
        }
    }

    @Test("W2, S15, S3: Scan segments and an absent Limit (the budget alone ends a page) are the store's pages")
    func w2s15s3ScanSegmentsAndBudgetPages() async throws {
        try await Self.withServer { store, target in
            for (segment, total) in [(nil, nil), (0, 3), (2, 3)] as [(Int?, Int?)] {
                let range: ScanRange = segment.map { .segment(index: $0, total: total ?? 1) } ?? .scan
                var request = PageRequest(range: range, limit: PageRequest.maximumLimit)
                var start = ""
                let segmentText = segment.map { #","Segment":\#($0),"TotalSegments":\#(total ?? 1)"# } ?? ""
                var pages = 0
                while pages < 1000 {
                    pages += 1
                    let answer = try await Self.call(target, "Scan", #"{"TableName":"items"\#(segmentText)\#(start)}"#)
                    let page = try store.evaluatePage(request)
                    #expect(answer.keys == Self.keys(page))
                    #expect(page.scannedBytes <= 4096)  // the budget, not a limit, ended it
                    guard let last = answer.lastEvaluatedKey, let token = page.nextToken else {
                        #expect(answer.lastEvaluatedKey == nil && page.nextToken == nil)
                        break
                    }
                    request.token = token
                    start = #","ExclusiveStartKey":{"pk":{"N":"\#(last[0])"},"sk":{"N":"\#(last[1])"}}"#
                }
                #expect(pages > 1)
            }
        }
    }

    @Test("W3, S6: a page that ends exactly at the range's end still has a LastEvaluatedKey, and the next is empty")
    func w3s6ExactEndGivesAnEmptyLastPage() async throws {
        try await Self.withServer { _, target in
            let values = #""ExpressionAttributeValues":{":p":{"N":"0"},":a":{"N":"36"}}"#
            let first = try await Self.call(
                target,
                "Query",
                #"{"TableName":"items","KeyConditionExpression":"pk = :p AND sk >= :a","Limit":4,\#(values)}"#
            )
            #expect(first.keys == [[0, 36], [0, 37], [0, 38], [0, 39]])
            #expect(first.lastEvaluatedKey == [0, 39])
            let second = try await Self.call(
                target,
                "Query",
                #"{"TableName":"items","KeyConditionExpression":"pk = :p AND sk >= :a","Limit":4,\#(values),"ExclusiveStartKey":{"pk":{"N":"0"},"sk":{"N":"39"}}}"#
            )
            #expect(second.status == 200 && second.keys.isEmpty && second.json["ScannedCount"] as? Int == 0)
            #expect(second.lastEvaluatedKey == nil)
        }
    }

    @Test("W3, S19: a start key from another partition or outside the key schema is a ValidationException")
    func w3s19ForeignStartKeysAreRefused() async throws {
        try await Self.withServer { _, target in
            let query =
                #""TableName":"items","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"N":"1"}}"#
            for start in [
                #"{"pk":{"N":"2"},"sk":{"N":"3"}}"#, #"{"pk":{"N":"1"},"sk":{"N":"400"}}"#, #"{"pk":{"N":"1"}}"#,
                #"{"pk":{"N":"1"},"sk":{"S":"3"}}"#, #"{"pk":{"N":"1"},"sk":{"N":"3"},"x":{"N":"1"}}"#,
            ] {
                let answer = try await Self.call(target, "Query", "{\(query),\"ExclusiveStartKey\":\(start)}")
                #expect(answer.status == 400 && answer.errorType == "ValidationException", "\(start)")
                #expect(answer.message.contains("starting key"), "\(answer.message)")
            }
        }
    }

    @Test(
        "W3: a page token that cannot be read back as a key is an InternalServerError, never a page without LastEvaluatedKey"
    )
    func w3UnreadableTokenIsAnErrorNotTheEnd() throws {
        let store = try TestStores.store()
        let page = try store.evaluatePage(PageRequest(range: .partition(2), limit: 3))
        let key = try #require(try DynamoDBOperations.lastEvaluatedKey(of: page, store: store))
        #expect(key.partition == 2 && key.sortKey == page.items.last?.sortKey)
        #expect(
            try DynamoDBOperations.lastEvaluatedKey(
                of: Page(items: [], scannedCount: 0, scannedBytes: 0, nextToken: nil),
                store: store
            ) == nil
        )
        // A token this store cannot decode (another store's): leaving LastEvaluatedKey out would
        // end the client's drain at this page, as if the range were exhausted.
        var other = TestStores.configuration
        other.seed = 8
        let foreign = try TestStores.store(other).evaluatePage(PageRequest(range: .partition(2), limit: 3))
        let foreignToken: String = try #require(foreign.nextToken)
        var unreadable = page
        unreadable.nextToken = foreignToken
        do {
            _ = try DynamoDBOperations.lastEvaluatedKey(of: unreadable, store: store)
            Issue.record("an unreadable token must throw")
        } catch {
            #expect(error.kind == .internalServerError)
            #expect(error.message.contains("LastEvaluatedKey") && error.message.contains("token"), "\(error.message)")
        }
    }

    @Test("W4: ConsumedCapacity is the evaluated bytes in 4 KB units, halved unless strongly consistent")
    func w4ConsumedCapacity() async throws {
        try await Self.withServer { store, target in
            let base =
                #""TableName":"items","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"N":"4"}},"Limit":9"#
            let page = try store.evaluatePage(PageRequest(range: .partition(4), limit: 9))
            let blocks = Double((page.scannedBytes + 4095) / 4096)
            let eventual = try await Self.call(target, "Query", "{\(base),\"ReturnConsumedCapacity\":\"TOTAL\"}")
            #expect((eventual.json["ConsumedCapacity"] as? [String: Any])?["CapacityUnits"] as? Double == blocks / 2)
            #expect((eventual.json["ConsumedCapacity"] as? [String: Any])?["TableName"] as? String == "items")
            let strong = try await Self.call(
                target,
                "Query",
                "{\(base),\"ReturnConsumedCapacity\":\"INDEXES\",\"ConsistentRead\":true}"
            )
            let consumed = strong.json["ConsumedCapacity"] as? [String: Any]
            #expect(consumed?["CapacityUnits"] as? Double == blocks)
            #expect((consumed?["Table"] as? [String: Any])?["CapacityUnits"] as? Double == blocks)
            let none = try await Self.call(target, "Query", "{\(base)}")
            #expect(none.json["ConsumedCapacity"] == nil)
            let count = try await Self.call(target, "Query", "{\(base),\"Select\":\"COUNT\"}")
            #expect(count.json["Items"] == nil && count.json["Count"] as? Int == page.returnedCount)
            let projected = try await Self.call(
                target,
                "Query",
                "{\(base),\"ProjectionExpression\":\"sk, #s\",\"ExpressionAttributeNames\":{\"#s\":\"sizeBytes\"}}"
            )
            #expect(projected.items.first.map { Set($0.keys) } == ["sk", "sizeBytes"])
        }
    }

    @Test("W1: with payloads served, an item's DynamoDB size is its sizeBytes, so pages end where the store's do")
    func w1PayloadMakesTheDynamoDBSizeTheItemSize() async throws {
        let configuration = StoreConfiguration(
            partitions: 2,
            itemsPerPartition: .uniform(30),
            itemSize: .uniform(min: 100, max: 3000),
            scanBudgetBytes: 8192,
            seed: 3
        )
        try await Self.withServer(configuration, payload: true) { _, target in
            let answer = try await Self.call(
                target,
                "Query",
                #"{"TableName":"items","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"N":"1"}}}"#
            )
            #expect(!answer.items.isEmpty)
            for item in answer.items {
                var size = 0
                for (name, value) in item {
                    size += name.utf8.count
                    let typed = value as? [String: String] ?? [:]
                    if let number = typed["N"] {
                        let digits = number.reversed().drop { $0 == "0" }.count
                        size += (max(1, digits) + 1) / 2 + 1
                    } else if let text = typed["S"] {
                        size += text.utf8.count
                    } else if let binary = typed["B"] {
                        size += Data(base64Encoded: binary)?.count ?? -1_000_000
                    }
                }
                #expect(size == Int(((item["sizeBytes"] as? [String: String])?["N"]).flatMap { Int($0) } ?? -1))
            }
        }
    }

    @Test("W1: GetItem, DescribeTable and ListTables")
    func w1PointReadAndTableDescription() async throws {
        try await Self.withServer { store, target in
            let item = try store.evaluatePage(PageRequest(range: .partition(3), limit: 1, sortKeys: 17..<18)).items[0]
            let got = try await Self.call(
                target,
                "GetItem",
                #"{"TableName":"items","Key":{"pk":{"N":"3"},"sk":{"N":"17"}}}"#
            )
            let attributes = got.json["Item"] as? [String: [String: String]]
            #expect(attributes?["sizeBytes"]?["N"] == String(item.sizeBytes))
            #expect(attributes?["category"]?["N"] == String(item.storeAttributes.category))
            #expect(
                attributes?["fingerprint"]?["S"]
                    == String(item.storeAttributes.fingerprint, radix: 16).leftPadded(to: 16)
            )
            let missing = try await Self.call(
                target,
                "GetItem",
                #"{"TableName":"items","Key":{"pk":{"N":"3"},"sk":{"N":"40"}}}"#
            )
            #expect(missing.status == 200 && missing.json.isEmpty)
            let described = try await Self.call(target, "DescribeTable", #"{"TableName":"items"}"#)
            let table = described.json["Table"] as? [String: Any]
            #expect(table?["ItemCount"] as? Int == store.totalItems)
            #expect((table?["KeySchema"] as? [[String: String]])?.map { $0["AttributeName"] ?? "" } == ["pk", "sk"])
            let listed = try await Self.call(target, "ListTables", "{}")
            #expect(listed.json["TableNames"] as? [String] == ["items"])
        }
    }

    @Test(
        "W2, W5: unsupported or malformed input is a ValidationException naming it; other errors have DynamoDB's types"
    )
    func w2w5ErrorsHaveDynamoDBTypes() async throws {
        let configuration = StoreConfiguration(partitions: 2, itemsPerPartition: .uniform(10), throttleRate: 1)
        try await Self.withServer { _, target in
            let query = #""TableName":"items","ExpressionAttributeValues":{":p":{"N":"1"}}"#
            let cases: [(String, String, String, String)] = [
                (
                    "Query", #"{\#(query),"KeyConditionExpression":"pk = :p AND begins_with(sk, :p)"}"#,
                    "ValidationException", "begins_with"
                ),
                (
                    "Query", #"{\#(query),"KeyConditionExpression":"pk = :p OR pk = :p"}"#, "ValidationException",
                    "OR is not allowed"
                ),
                (
                    "Query", #"{\#(query),"KeyConditionExpression":"pk = :p","FilterExpression":"colour = :p"}"#,
                    "ValidationException", "'colour'"
                ),
                (
                    "Query", #"{\#(query),"KeyConditionExpression":"pk = :p","IndexName":"byCategory"}"#,
                    "ValidationException", "IndexName"
                ),
                ("Query", #"{\#(query),"KeyConditionExpression":"pk = :p","Limt":3}"#, "ValidationException", "'Limt'"),
                ("Query", #"{\#(query),"KeyConditionExpression":"pk = :p","Limit":0}"#, "ValidationException", "limit"),
                ("Query", #"{\#(query),"KeyConditionExpression":"pk = :q"}"#, "ValidationException", ":q"),
                (
                    "Query",
                    #"{"TableName":"items","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"N":"1"},":x":{"N":"2"}}}"#,
                    "ValidationException", "unused"
                ),
                (
                    "Query", #"{"TableName":"other","KeyConditionExpression":"pk = :p"}"#, "ResourceNotFoundException",
                    "other"
                ),
                ("Query", #"{"TableName":"items""#, "ValidationException", "not valid JSON"),
                ("Query", String(repeating: "[", count: 5000), "ValidationException", "deeper"),
                ("Scan", #"{"TableName":"items","Segment":1}"#, "ValidationException", "TotalSegments"),
                ("PutItem", #"{"TableName":"items"}"#, "UnknownOperationException", "PutItem"),
            ]
            for (operation, body, type, fragment) in cases {
                let answer = try await Self.call(target, operation, body)
                #expect(answer.status == 400, "\(body)")
                #expect(answer.errorType == type, "\(body): \(answer.json)")
                #expect(answer.message.contains(fragment), "\(body): \(answer.message)")
            }
            // A SigV4 Authorization header is accepted whatever its signature.
            let signed = try await Self.call(
                target,
                "DescribeTable",
                #"{"TableName":"items"}"#,
                headers: [
                    (
                        "Authorization",
                        "AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00"
                    )
                ]
            )
            #expect(signed.status == 200)
        }
        try await Self.withServer(configuration) { _, target in
            let answer = try await Self.call(
                target,
                "Query",
                #"{"TableName":"items","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"N":"1"}}}"#
            )
            #expect(answer.status == 400 && answer.errorType == "ProvisionedThroughputExceededException")
        }
        var faulty = configuration
        faulty.throttleRate = 0
        faulty.faultRate = 1
        try await Self.withServer(faulty) { _, target in
            let answer = try await Self.call(target, "Scan", #"{"TableName":"items"}"#)
            #expect(answer.status == 500 && answer.errorType == "InternalServerError")
        }
    }
}
