import Foundation
import PagebenchCLI
import PagebenchCLITestSupport
import PagebenchMetrics
import PagebenchTestSupport
import Testing

/// Issue 35's journeys, end to end against list APIs written for the purpose: a REST API with
/// a DynamoDB-like filter (Servers/orders_api.py) and strawberry's GraphQL API
/// (Servers/graphql_app.py); the third, `pagebench serve`, is
/// ``HTTPKindRunTests/t1h14TargetRowsSayWhatWasSentAndCountWholeDrains()``. Each checks the
/// figures the journey exposed: what the rows say was sent, whole drains per drain in a
/// time-bound run, requests outside the rows named, one achieved rate.
@Suite(.serialized) struct JourneyTests {
    /// The REST journey's target: the workload's filter sent as `${filter}`, the limit as
    /// `${limit}`, the API's own scanned count read.
    static func ordersTarget(_ endpoint: String) -> String {
        """
        {"kind": "http", "name": "orders-open", "timeoutSeconds": 600, "endpoint": "\(endpoint)", "partitions": {"range": [0, 3]},
         "path": "/orders/${partition}?limit=${limit}&filter=${filter}",
         "items": "/items", "continuation": "/next", "continuationIn": {"query": "next"}, "scannedCount": "/scannedCount"}
        """
    }

    /// A REST API that filters after its limit, as DynamoDB does: every drain at limit 10
    /// with `category=0` is 4 pages, 2 orders, 1 empty page with a token and an empty last
    /// page, 40 orders evaluated (Servers/orders_api.py). The rows say the filter that was
    /// sent, are named and labelled by the target, count scanned items per drain from the
    /// API, and a time-bound run's figures are those of whole drains: never more empty pages
    /// than round trips. Every request is in a row or named outside them.
    @Test func t1h14ARESTAPIWithAFilterAfterItsLimitIsCountedPerWholeDrain() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("orders_api.py")
        defer { server.stop() }
        let target = try write(Self.ordersTarget(server.url), "orders-open.json", in: directory)
        let flags = [
            "--target-file", target, "--limit", "10", "--filter", "match", "--concurrency", "2", "--warmup", "0",
        ]
        let drainBound = await runPagebench(
            flags + ["--drains", "12", "--output", directory.appendingPathComponent("d.csv").path]
        )
        let row = try #require(drainBound.output?.rows.first, "\(drainBound.failure?.message ?? "")")
        #expect(row.scenario == "orders-open" && row.label == "orders-open")
        #expect(row.filter == "category=0")
        #expect(row.limit == 10)
        #expect(row.drains == 12)
        #expect(row.pages == 4 * 12)
        #expect(row.items == 2 * 12)
        #expect(row.emptyPagesWasted == 12 && row.emptyPagesFinal == 12)
        #expect(row.scannedItems == 40 * 12)
        #expect(row.scannedBytes == nil && (row.responseBytes ?? 0) > 0)
        #expect(
            drainBound.text.contains(
                "200=48 transport=0 in the rows; 200=1 transport=0 outside them: 1 the first-page check\n"
            ),
            "\(drainBound.text)"
        )

        let timeBound = await runPagebench(
            flags + ["--duration", "1s", "--output", directory.appendingPathComponent("t.csv").path]
        )
        let timed = try #require(timeBound.output?.rows.first, "\(timeBound.failure?.message ?? "")")
        #expect(timed.pages == 4 * timed.drains)
        #expect(timed.emptyPagesWasted == timed.drains && timed.emptyPagesFinal == timed.drains)
        #expect(timed.scannedItems == 40 * timed.drains)
        #expect(timed.pagesPerDrainMean == (timed.drains > 0 ? 4 : 0))
        let answered = try #require(RemoteCounts.responses(fromText: timed.httpResponses)?["200"])
        #expect(answered == timed.pages + timed.cutOffPages)
    }

    /// strawberry's AppSync-style field: its request sends no filter and it reports no scanned
    /// count. The built-in scenario's rows against it are the target's, with no filter (the
    /// built-in `match` was never sent), no scanned items; an open-loop run of it has one
    /// achieved rate (started drains/s) beside the completed drains/s and requests/s, and
    /// its summary shows the corrected drain p99 without an SLO naming it.
    @Test func t1AGraphQLAPIRowsSayWhatWasSentAndOpenLoopRatesAreNamed() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("graphql_app.py")
        defer { server.stop() }
        let target = try write(
            """
            {"kind": "graphql", "name": "strawberry", "timeoutSeconds": 600, "endpoint": "\(server.url)/", "shape": "appsync",
             "query": "query($p: Int!, $l: Int!, $t: String) { listItems(partition: $p, limit: $l, nextToken: $t) { items { sort } nextToken } }",
             "variables": {"p": "${partition}", "l": "${limit}"}, "continuationVariable": "t",
             "partitions": {"range": [0, 3]}, "items": "/data/listItems/items", "continuation": "/data/listItems/nextToken"}
            """,
            "strawberry.json",
            in: directory
        )
        let result = await runPagebench([
            "--target-file", target, "--limit", "4", "--concurrency", "4", "--warmup", "0", "--load", "open-fixed:20/s",
            "--duration", "1s", "--output", directory.appendingPathComponent("g.csv").path,
        ])
        let row = try #require(result.output?.rows.first, "\(result.failure?.message ?? "")")
        #expect(row.scenario == "strawberry" && row.label == "strawberry")
        #expect(row.filter == "")
        #expect(row.scannedItems == nil)
        #expect(row.limit == 4)
        let started = try #require(row.startedDrainsPerSecond)
        #expect(started == Double(row.drains + row.cancellations + row.errors.total) / 1)
        #expect(result.text.contains("drain p99 corr."), "\(result.text)")
    }
}
