import Foundation
import PagebenchCLI
import PagebenchCLITestSupport
import PagebenchHarness
import PagebenchMetrics
import PagebenchStore
import PagebenchTestSupport
import Testing

/// The graphql and dynamodb kinds against servers nobody here wrote: a strawberry-graphql
/// app (Relay connection by strawberry's own ListConnection, forward and backward, and an
/// AppSync-style nextToken field) and moto's DynamoDB server loaded with boto3. The figures
/// pagebench counts equal what the server holds (T1), as boto3's paginator sees it.
@Suite(.serialized) struct IndependentServerRunTests {
    /// The partition each measured drain of `scenario` reads, as the run plans them (H3).
    static func plannedPartitions(_ scenarioPath: String, partitions: Int) throws -> [Int] {
        var scenario = try Scenario.load(path: scenarioPath)
        scenario.store.partitions = partitions
        guard case .drains(let count) = scenario.workload.bound else {
            throw TestFailure("the scenario must be bounded by drains")
        }
        let planner = DrainPlanner(workload: scenario.workload, store: scenario.store)
        return (0..<count).map { index in
            guard case .partition(let partition) = planner.plan(index).request.range else { return -1 }
            return partition
        }
    }

    static let graphQLScenario = """
        {"name": "gql", "workload": {"pager": "streaming", "concurrency": [2], "limit": 4, "drains": 12,
                                     "read": "partition:uniform", "warmupSeconds": 0, "filter": "none"}}
        """

    /// strawberry's partition p holds 5p + 3 items (Servers/graphql_app.py).
    static func graphQLItems(_ partition: Int) -> Int { 5 * partition + 3 }

    func runGraphQL(
        _ server: ChildServer,
        target: String,
        in directory: URL
    ) async throws
        -> (rows: [ResultRow]?, text: String, failure: CommandError?, expected: (items: Int, pages: Int))
    {
        let scenario = try write(Self.graphQLScenario, "gql.json", in: directory)
        let targetFile = try write(target, "strawberry.json", in: directory)
        let result = await runPagebench([
            scenario, "--target-file", targetFile, "--output", directory.appendingPathComponent("gql.csv").path,
        ])
        let partitions = try Self.plannedPartitions(scenario, partitions: 4)
        let items = partitions.map(Self.graphQLItems).reduce(0, +)
        let pages = partitions.map { (Self.graphQLItems($0) + 3) / 4 }.reduce(0, +)
        return (result.output?.rows, result.text, result.failure, (items, pages))
    }

    static func relayTarget(_ endpoint: String, backward: Bool) -> String {
        let (size, cursor, flag, next) =
            backward
            ? ("last", "before", "hasPreviousPage", "startCursor") : ("first", "after", "hasNextPage", "endCursor")
        return """
            {"kind": "graphql", "timeoutSeconds": 600, "endpoint": "\(endpoint)/", "shape": "relay", "direction": "\(backward ? "backward" : "forward")",
             "query": "query Items($partition: Int!, $\(size): Int, $\(cursor): String) { items(partition: $partition, \(size): $\(size), \(cursor): $\(cursor)) { edges { cursor node { sort } } pageInfo { \(flag) \(next) } } }",
             "operationName": "Items", "variables": {"partition": "${partition}", "\(size)": "${limit}"},
             "partitions": {"range": [0, 3]}, "items": "/data/items/edges", "pageInfo": "/data/items/pageInfo"}
            """
    }

    @Test(arguments: [false, true])
    func t1ARelayConnectionIsDrainedForwardAndBackward(backward: Bool) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("graphql_app.py")
        defer { server.stop() }
        let result = try await runGraphQL(
            server,
            target: Self.relayTarget(server.url, backward: backward),
            in: directory
        )
        let row = try #require(result.rows?.first, "\(result.failure?.message ?? "")")
        #expect(row.scenario == "gql@strawberry")
        #expect(row.drains == 12)
        #expect(row.items == result.expected.items)
        #expect(row.pages == result.expected.pages)
        #expect(row.emptyPagesWasted == 0)
        #expect(row.errors.total == 0)
    }

    @Test func t1AnAppSyncNextTokenFieldIsDrained() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("graphql_app.py")
        defer { server.stop() }
        let target = """
            {"kind": "graphql", "timeoutSeconds": 600, "endpoint": "\(server.url)", "shape": "appsync",
             "query": "query($partition: Int!, $limit: Int!, $nextToken: String) { listItems(partition: $partition, limit: $limit, nextToken: $nextToken) { items { sort } nextToken } }",
             "variables": {"partition": "${partition}", "limit": "${limit}"},
             "partitions": {"values": [0, 1, 2, 3]}, "items": "/data/listItems/items", "continuation": "/data/listItems/nextToken"}
            """
        let result = try await runGraphQL(server, target: target, in: directory)
        let row = try #require(result.rows?.first, "\(result.failure?.message ?? "")")
        #expect(row.items == result.expected.items)
        #expect(row.pages == result.expected.pages)
        #expect(row.errors.total == 0)
    }

    /// T2: a GraphQL `errors` entry with HTTP 200 is an error, never a page; P9: a field that
    /// answers the token it was sent ends each drain as a counted error.
    @Test func t2p9GraphQLErrorsWithHTTP200AreErrorsAndARepeatedTokenEndsTheDrain() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("graphql_app.py")
        defer { server.stop() }
        func target(_ field: String) -> String {
            """
            {"kind": "graphql", "timeoutSeconds": 600, "endpoint": "\(server.url)", "query": "query($limit: Int!, $nextToken: String) { \(field)(limit: $limit, nextToken: $nextToken) { items { sort } nextToken } }",
             "variables": {"limit": "${limit}"}, "items": "/data/\(field)/items", "continuation": "/data/\(field)/nextToken"}
            """
        }
        let scenario = Self.graphQLScenario.replacingOccurrences(of: "partition:uniform", with: "scan")
        let scenarioFile = try write(scenario, "scan.json", in: directory)
        let failing = await runPagebench([
            scenarioFile, "--target-file", try write(target("failing"), "failing.json", in: directory), "--quiet",
            "--output", directory.appendingPathComponent("f.csv").path,
        ])
        let failure = try #require(failing.failure)
        #expect(failure.exitStatus.rawValue == 69)
        #expect(failure.message.contains("GraphQL errors"), "\(failure.message)")
        #expect(failure.message.contains("the list is unavailable"))

        let looping = await runPagebench([
            scenarioFile, "--target-file", try write(target("looping"), "looping.json", in: directory),
            "--output", directory.appendingPathComponent("l.csv").path,
        ])
        // No drain ended: a failed phase (T6), its row written with the counts, exit 69.
        let loopFailure = try #require(looping.failure)
        #expect(
            loopFailure.exitStatus.rawValue == 69 && loopFailure.message.contains("ended no drain"),
            "\(loopFailure.message)"
        )
        let rows = try ResultRow.parseCSV(
            try String(contentsOf: directory.appendingPathComponent("l.csv"), encoding: .utf8),
            file: "l.csv"
        )
        let row = try #require(rows.first)
        #expect(row.pages == 12)
        #expect(row.emptyPagesWasted == 12)
        #expect(row.errors.other == 12)
        #expect(loopFailure.message.contains("repeatedContinuation=12"))
        #expect(looping.text.contains("repeatedContinuation=12 in the rows"), "\(looping.text)")
    }

    /// moto's DynamoDB server, a fixture table of 300 items loaded with boto3, a Query with a
    /// 10 % filter at Limit 7: the items, pages and empty pages with a LastEvaluatedKey that
    /// pagebench counts equal what boto3's paginator returned for the same partitions.
    @Test func t1ADynamoDBQueryWithAFilterCountsWhatBoto3Sees() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("moto_fixture.py", ["5", "60", "7"])
        defer { server.stop() }
        let expected =
            try JSONSerialization.jsonObject(with: Data(try #require(server.linesBeforeBanner.last).utf8))
            as! [String: [String: Any]]
        setenv("AWS_ACCESS_KEY_ID", "AKIDPAGEBENCH", 1)
        setenv("AWS_SECRET_ACCESS_KEY", "pagebench-moto-secret", 1)
        try write((0..<5).map { "user-\($0)" }.joined(separator: "\n") + "\n", "keys.txt", in: directory)
        let target = """
            {"kind": "dynamodb", "timeoutSeconds": 600, "endpoint": "\(server.url)", "region": "us-east-1", "table": "Items", "operation": "Query",
             "keyConditionExpression": "pk = :pk", "filterExpression": "#k = :k", "expressionAttributeNames": {"#k": "kind"},
             "expressionAttributeValues": {":pk": {"S": "${partition}"}, ":k": {"N": "0"}},
             "partitions": {"file": "keys.txt"}}
            """
        let scenario = try write(
            """
            {"name": "ddb", "workload": {"pager": "loop", "concurrency": [2], "limit": 7, "drains": 10,
                                         "read": "partition:uniform", "warmupSeconds": 0, "filter": "none"}}
            """,
            "ddb.json",
            in: directory
        )
        let result = await runPagebench([
            scenario, "--target-file", try write(target, "moto.json", in: directory), "--output",
            directory.appendingPathComponent("ddb.csv").path,
        ])
        let row = try #require(result.output?.rows.first, "\(result.failure?.message ?? "")")
        let partitions = try Self.plannedPartitions(scenario, partitions: 5)
        func sum(_ key: String) -> Int { partitions.map { expected["user-\($0)"]![key] as! Int }.reduce(0, +) }
        #expect(row.drains == 10)
        #expect(row.items == sum("items"))
        #expect(row.pages == sum("pages"))
        #expect(row.emptyPagesWasted == sum("emptyWithKey"))
        #expect(row.emptyPagesWasted > 0)
        #expect(try #require(row.scannedItems) >= row.items)
        // Issue 35: the row says what DynamoDB was sent: its own FilterExpression (the workload
        // has none), the limit (always sent as Limit), and ScannedCount per drain; the bytes
        // are the responses', not bytes evaluated.
        #expect(row.filter == "#k = :k")
        #expect(row.limit == 7)
        #expect(row.scannedBytes == nil)
        #expect(try #require(row.responseBytes) > 0)
        #expect(row.errors.total == 0)
        // W4: moto returns ConsumedCapacity; the run reports its sum, the row its phase's.
        #expect(row.targetKind == "dynamodb")
        let units = partitions.map { expected["user-\($0)"]!["capacityUnits"] as! Double }.reduce(0, +)
        #expect(row.consumedCapacityUnits == units)
        #expect(result.text.contains("consumed capacity: "), "\(result.text)")
        #expect(!result.text.contains("pagebench-moto-secret"))
        let csv = try String(contentsOf: directory.appendingPathComponent("ddb.csv"), encoding: .utf8)
        #expect(!csv.contains("pagebench-moto-secret"))
    }
}
