import Foundation
import PagebenchCLI
import PagebenchCLITestSupport
import PagebenchMetrics
import PagebenchTestSupport
import Testing

/// The http kind against `pagebench serve`'s REST endpoint: the same workload gives the
/// in-process deterministic figures (H3, T1), over HTTP and HTTPS, in one process and
/// with --workers, from a target file or a scenario's target section.
@Suite(.serialized) struct HTTPKindRunTests {
    static let store = """
        {"partitions": 5, "itemsPerPartition": 40, "itemSize": "fixed:512", "selectivity": 0.25, "scanBudgetBytes": 4096, "seed": 7}
        """

    static func scenario(target: String? = nil) -> String {
        """
        {"name": "rest", "store": \(store),
         "workload": {"pager": "streaming", "concurrency": [1, 3], "filter": "match", "limit": 7, "drains": 15,
                      "read": "partition:uniform", "warmupSeconds": 0}\(target.map { ", \"target\": \($0)" } ?? "")}
        """
    }

    /// The REST endpoint as an http target: placeholders for partition, limit and filter, the
    /// token as the `nextToken` query parameter, the page's own scanned count.
    static func target(_ endpoint: String) -> String {
        """
        {"kind": "http", "timeoutSeconds": 600, "endpoint": "\(endpoint)", "partitions": {"range": [0, 4]},
         "path": "/partitions/${partition}/items?limit=${limit}&filter=${filter}",
         "items": "/items", "continuation": "/nextToken", "continuationIn": {"query": "nextToken"},
         "scannedCount": "/scanned"}
        """
    }

    /// Rows of the same phases agree on every deterministic figure a target reports (H3):
    /// scanned bytes are the JSON bytes received, so they are not compared.
    static func expectSameDeterministicFigures(_ local: [ResultRow], _ remote: [ResultRow]) {
        #expect(local.count == remote.count)
        for (a, b) in zip(local, remote) {
            #expect(a.concurrency == b.concurrency)
            #expect(a.drains == b.drains)
            #expect(a.pages == b.pages)
            #expect(a.items == b.items)
            #expect(a.scannedItems == b.scannedItems)
            #expect(a.emptyPagesWasted == b.emptyPagesWasted)
            #expect(a.emptyPagesFinal == b.emptyPagesFinal)
            #expect(a.pagesPerDrainMean == b.pagesPerDrainMean)
            #expect(a.pagesPerDrainMax == b.pagesPerDrainMax)
            #expect(b.errors.total == 0)
            #expect(a.pages > 0)
        }
    }

    func inProcess(_ directory: URL) async throws -> [ResultRow] {
        let scenario = try write(Self.scenario(), "rest.json", in: directory)
        let local = await runPagebench([
            scenario, "--quiet", "--output", directory.appendingPathComponent("local.csv").path,
        ])
        return try #require(local.output).rows
    }

    /// The in-process rows, a `pagebench serve` of the same store, and a target file for it.
    func inProcessAndServed(_ directory: URL) async throws -> ([ResultRow], ChildServer, String) {
        let local = try await inProcess(directory)
        let server = try ChildServer.serve(["--config", try write(Self.store, "store.json", in: directory)])
        return (local, server, try write(Self.target(server.url), "serve-rest.json", in: directory))
    }

    @Test func h3HttpKindAgainstServeGivesTheInProcessFigures() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (local, server, targetFile) = try await inProcessAndServed(directory)
        defer { server.stop() }
        let remote = await runPagebench([
            directory.appendingPathComponent("rest.json").path, "--target-file", targetFile,
            "--output", directory.appendingPathComponent("remote.csv").path,
        ])
        #expect(remote.failure == nil, "\(remote.failure?.message ?? "")")
        let rows = try #require(remote.output).rows
        #expect(rows.allSatisfy { $0.scenario == "rest@serve-rest" })
        Self.expectSameDeterministicFigures(local, rows)
        #expect(remote.text.contains("responses from http target serve-rest"))

        // The same target as the scenario's own section.
        let withSection = try write(Self.scenario(target: Self.target(server.url)), "with-target.json", in: directory)
        let sectioned = await runPagebench([
            withSection, "--quiet", "--output", directory.appendingPathComponent("s.csv").path,
        ])
        #expect(sectioned.failure == nil, "\(sectioned.failure?.message ?? "")")
        Self.expectSameDeterministicFigures(local, try #require(sectioned.output).rows)
    }

    /// Issue 35, the `serve` journey: the built-in scenario (no scenario file) against a target
    /// whose request sends no `${filter}` and reports no scanned count. Its rows say what was
    /// sent to that API: named and labelled by the target, no filter (the built-in `match`
    /// was never sent: the pages are those of an unfiltered in-process run), the limit and
    /// read it was sent, response bytes rather than bytes evaluated, no scanned items. A
    /// time-bound run of it counts whole drains per drain, as the drain-bound run does, and
    /// the drains it cut off apart.
    @Test func t1h14TargetRowsSayWhatWasSentAndCountWholeDrains() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try write(Self.store, "store.json", in: directory)
        let flags = ["--config", store, "--limit", "7", "--concurrency", "2", "--warmup", "0", "--quiet"]
        let local = await runPagebench(
            flags + [
                "--filter", "none", "--drains", "15", "--output", directory.appendingPathComponent("local.csv").path,
            ]
        )
        let unfiltered = try #require(local.output?.rows.first, "\(local.failure?.message ?? "")")
        let server = try ChildServer.serve(["--config", store])
        defer { server.stop() }
        let target = try write(
            """
            {"kind": "http", "timeoutSeconds": 600, "endpoint": "\(server.url)", "partitions": {"range": [0, 4]},
             "path": "/partitions/${partition}/items?limit=${limit}",
             "items": "/items", "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}}
            """,
            "plain.json",
            in: directory
        )
        let drainBound = await runPagebench(
            flags + [
                "--target-file", target, "--drains", "15", "--output", directory.appendingPathComponent("d.csv").path,
            ]
        )
        let row = try #require(drainBound.output?.rows.first, "\(drainBound.failure?.message ?? "")")
        #expect(row.scenario == "plain")
        #expect(row.label == "plain")
        #expect(row.filter == "")
        #expect(row.limit == 7)
        #expect(row.read == "partition:uniform")
        #expect(row.scannedItems == nil)
        #expect(row.scannedBytes == nil && row.scannedBytesPerSecond == nil)
        #expect(try #require(row.responseBytes) > 0)
        #expect(row.pages == unfiltered.pages)
        #expect(row.items == unfiltered.items)
        #expect(row.emptyPagesWasted == unfiltered.emptyPagesWasted)
        // Every partition holds 40 items: every drain is the same number of pages.
        #expect(row.pagesPerDrainMean == Double(row.pagesPerDrainMax))

        let timeBound = await runPagebench(
            flags + [
                "--target-file", target, "--duration", "2s", "--output", directory.appendingPathComponent("t.csv").path,
            ]
        )
        let timed = try #require(timeBound.output?.rows.first, "\(timeBound.failure?.message ?? "")")
        // However few drains a loaded machine ends in the time, each is whole.
        #expect(timed.pages == timed.drains * row.pagesPerDrainMax)
        #expect(timed.items == timed.drains * row.items / row.drains)
        #expect(timed.pagesPerDrainMean == (timed.drains > 0 ? row.pagesPerDrainMean : 0))
        // A drain still running when time is up is cut off with every page it was answered,
        // its last one too when the end came while that page was on its way (H14).
        #expect(timed.cutOffPages <= timed.cutOffDrains * row.pagesPerDrainMax)
        // Every request the API answered is in a row, the cut-off drains' in their own column.
        let responses = try #require(RemoteCounts.responses(fromText: timed.httpResponses)?["200"])
        #expect(responses == timed.pages + timed.cutOffPages)
    }

    @Test func h3WorkersPageAnHTTPTargetAndMergeToTheInProcessFigures() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (local, server, targetFile) = try await inProcessAndServed(directory)
        defer { server.stop() }
        let merged = await runPagebench(
            [
                directory.appendingPathComponent("rest.json").path, "--target-file", targetFile, "--workers", "2",
                "--quiet",
                "--shard-output", directory.appendingPathComponent("shards").path,
                "--output", directory.appendingPathComponent("merged.csv").path,
            ],
            workerExecutable: try ChildServer.pagebench()
        )
        #expect(merged.failure == nil, "\(merged.failure?.message ?? "")")
        let rows = try #require(merged.output).rows
        #expect(rows.allSatisfy { $0.scenario == "rest@serve-rest" })
        Self.expectSameDeterministicFigures(local, rows)
    }

    /// The same workload through `pagebench serve`'s DynamoDB endpoint with the dynamodb kind
    /// (SigV4-signed Query, filter in FilterExpression, LastEvaluatedKey as the continuation)
    /// gives the in-process figures too (T1, W2, W3): the protocol front end pages the store.
    @Test func t1DynamoDBKindAgainstServeGivesTheInProcessFigures() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (local, server, _) = try await inProcessAndServed(directory)
        defer { server.stop() }
        setenv("AWS_ACCESS_KEY_ID", "AKIDPAGEBENCH", 1)
        setenv("AWS_SECRET_ACCESS_KEY", "pagebench-serve-secret", 1)
        let target = """
            {"kind": "dynamodb", "timeoutSeconds": 600, "endpoint": "\(server.url)", "region": "us-east-1", "table": "pagebench", "operation": "Query",
             "keyConditionExpression": "pk = :p", "filterExpression": "category = :c",
             "expressionAttributeValues": {":p": {"N": "${partition}"}, ":c": {"N": "0"}},
             "partitions": {"range": [0, 4]}}
            """
        let remote = await runPagebench([
            directory.appendingPathComponent("rest.json").path, "--target-file",
            try write(target, "serve-ddb.json", in: directory),
            "--output", directory.appendingPathComponent("ddb.csv").path,
        ])
        #expect(remote.failure == nil, "\(remote.failure?.message ?? "")")
        let rows = try #require(remote.output).rows
        #expect(rows.allSatisfy { $0.scenario == "rest@serve-ddb" && $0.targetKind == "dynamodb" })
        Self.expectSameDeterministicFigures(local, rows)
    }

    /// The same workload through `pagebench serve`'s GraphQL endpoint with the graphql kind,
    /// AppSync style (nextToken) and Relay style (pageInfo.endCursor, which carries the
    /// token on empty pages too), gives the in-process figures (T1, W6).
    @Test(arguments: ["appsync", "relay"])
    func t1GraphQLKindAgainstServeGivesTheInProcessFigures(shape: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (local, server, _) = try await inProcessAndServed(directory)
        defer { server.stop() }
        let target =
            shape == "appsync"
            ? """
            {"kind": "graphql", "timeoutSeconds": 600, "endpoint": "\(server.url)/graphql", "shape": "appsync",
             "query": "query($p: Int, $l: Int, $t: String) { listItems(partition: $p, limit: $l, nextToken: $t, filter: {category: {eq: 0}}) { items { sortKey } nextToken scannedCount } }",
             "variables": {"p": "${partition}", "l": "${limit}"}, "continuationVariable": "t",
             "partitions": {"range": [0, 4]}, "items": "/data/listItems/items", "continuation": "/data/listItems/nextToken",
             "scannedCount": "/data/listItems/scannedCount"}
            """
            : """
            {"kind": "graphql", "timeoutSeconds": 600, "endpoint": "\(server.url)/graphql", "shape": "relay",
             "query": "query($p: Int, $first: Int, $after: String) { itemsConnection(partition: $p, first: $first, after: $after, filter: {category: {eq: 0}}) { edges { node { sortKey } } pageInfo { hasNextPage endCursor } } }",
             "variables": {"p": "${partition}", "first": "${limit}"},
             "partitions": {"range": [0, 4]}, "items": "/data/itemsConnection/edges", "pageInfo": "/data/itemsConnection/pageInfo"}
            """
        let remote = await runPagebench([
            directory.appendingPathComponent("rest.json").path, "--target-file",
            try write(target, "serve-gql.json", in: directory),
            "--output", directory.appendingPathComponent("gql.csv").path,
        ])
        #expect(remote.failure == nil, "\(remote.failure?.message ?? "")")
        let rows = try #require(remote.output).rows
        #expect(rows.allSatisfy { $0.scenario == "rest@serve-gql" && $0.targetKind == "graphql" })
        if shape == "appsync" {
            Self.expectSameDeterministicFigures(local, rows)
        } else {
            // Relay reports no scanned count: everything else agrees.
            #expect(local.map(\.pages) == rows.map(\.pages))
            #expect(local.map(\.items) == rows.map(\.items))
            #expect(local.map(\.emptyPagesWasted) == rows.map(\.emptyPagesWasted))
            #expect(rows.allSatisfy { $0.errors.total == 0 && $0.pages > 0 })
        }
    }

    /// HTTPS through swift-nio-ssl: a certificate made with openssl for 127.0.0.1 is trusted
    /// with --ca-file, refused (a TLS handshake failure, exit 69) without it, and accepted
    /// with --insecure.
    @Test func httpsWithACAFileGivesTheSameFiguresAndAnUntrustedCertificateFailsTheHandshake() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("key.pem").path
        let certificate = directory.appendingPathComponent("cert.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days",
            "2",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl is needed (Debian package openssl)")
        let local = try await inProcess(directory)
        let server = try ChildServer.serve([
            "--config", try write(Self.store, "store.json", in: directory), "--tls-cert", certificate, "--tls-key", key,
        ])
        defer { server.stop() }
        #expect(server.url.hasPrefix("https://127.0.0.1:"))
        let targetFile = try write(Self.target(server.url), "tls.json", in: directory)
        let scenario = directory.appendingPathComponent("rest.json").path
        let output = directory.appendingPathComponent("tls.csv").path
        let trusted = await runPagebench([
            scenario, "--target-file", targetFile, "--ca-file", certificate, "--quiet", "--output", output,
        ])
        #expect(trusted.failure == nil, "\(trusted.failure?.message ?? "")")
        Self.expectSameDeterministicFigures(local, try #require(trusted.output).rows)

        let untrusted = await runPagebench([scenario, "--target-file", targetFile, "--quiet", "--output", output])
        let failure = try #require(untrusted.failure)
        #expect(failure.exitStatus.rawValue == 69)
        #expect(failure.message.contains("TLS failed"), "\(failure.message)")

        let insecure = await runPagebench([
            scenario, "--target-file", targetFile, "--insecure", "--quiet", "--output", output,
        ])
        #expect(insecure.failure == nil, "\(insecure.failure?.message ?? "")")

        // TLS to a plain HTTP server fails the handshake too.
        let plain = try ChildServer.serve(["--config", directory.appendingPathComponent("store.json").path])
        defer { plain.stop() }
        let wrong = try write(
            Self.target(plain.url.replacingOccurrences(of: "http://", with: "https://")),
            "wrong.json",
            in: directory
        )
        let handshake = await runPagebench([scenario, "--target-file", wrong, "--quiet", "--output", output])
        #expect(handshake.failure?.exitStatus.rawValue == 69)
        #expect(handshake.failure?.message.contains("TLS failed") == true, "\(handshake.failure?.message ?? "")")
    }
}
