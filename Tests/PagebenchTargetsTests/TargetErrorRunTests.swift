import Foundation
import PagebenchCLI
import PagebenchCLITestSupport
import PagebenchHarness
import PagebenchMetrics
import PagebenchPage
import PagebenchStore
import PagebenchTargets
import PagebenchTestSupport
import Testing

/// T2, T3, T4 against a JSON API that misbehaves on purpose (Servers/misbehaving.py): every
/// response that is not a page ends its drain as an error counted by kind, never a page and
/// never the end of a drain; a run that cannot go on exits 69 naming the problem; throttling
/// is retried and counted; no secret from the environment reaches any output.
@Suite(.serialized) struct TargetErrorRunTests {
    static let scenario = """
        {"name": "api", "workload": {"pager": "streaming", "concurrency": [2], "limit": 5, "drains": 6,
                                     "read": "scan", "warmupSeconds": 0, "filter": "none"}}
        """

    /// A target of `path`; its timeout is one no loaded test machine reaches (all suites start
    /// at once), so that no test here depends on how fast the server answers.
    static func target(_ endpoint: String, path: String, headers: String = "{}") -> String {
        """
        {"kind": "http", "timeoutSeconds": 600, "endpoint": "\(endpoint)", "path": "\(path)?limit=${limit}", "items": "/items",
         "continuation": "/nextToken", "continuationIn": {"query": "nextToken"}, "headers": \(headers)}
        """
    }

    /// Runs the scenario against `path` of the server; returns the run's result.
    func run(
        _ server: ChildServer,
        path: String,
        in directory: URL,
        extra: [String] = [],
        headers: String = "{}",
        csv: Bool = true
    )
        async throws -> RunInvocation
    {
        let scenario = try write(Self.scenario, "api.json", in: directory)
        let name = "t" + path.replacingOccurrences(of: "/", with: "-")
        let target = try write(Self.target(server.url, path: path, headers: headers), name + ".json", in: directory)
        let output = csv ? ["--output", directory.appendingPathComponent(name + ".csv").path] : []
        return await runPagebench([scenario, "--target-file", target] + output + extra)
    }

    @Test func aWellBehavedPageIsCountedAndEveryDrainEnds() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("misbehaving.py")
        defer { server.stop() }
        let result = try await run(server, path: "/ok", in: directory)
        let row = try #require(result.output?.rows.first, "\(result.failure?.message ?? "")")
        // 20 items in pages of 5: 4 pages per drain, the last without a token (T1).
        #expect(row.drains == 6)
        #expect(row.pages == 24)
        #expect(row.items == 120)
        #expect(row.errors.total == 0)
        // Issue 25: the first-page check is a real request in no row: stdout says so, and
        // what it prints in the rows is what the CSV holds. Issue 35: it names only the cause
        // that happened (no warm-up ran), with its count.
        #expect(row.httpResponses == "200=24 transport=0")
        #expect(row.warmupRequests == nil)
        #expect(
            result.text.contains(
                "200=24 transport=0 in the rows; 200=1 transport=0 outside them: 1 the first-page check\n"
            ),
            "\(result.text)"
        )
    }

    /// Issue 35: with a warm-up, the requests in no row are named by cause with their counts:
    /// the first-page check and the warm-ups (the row's `warmup_requests`), which add up to
    /// what was outside the rows.
    @Test func requestsOutsideTheRowsAreNamedByCauseWithTheirCounts() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("misbehaving.py")
        defer { server.stop() }
        // A second of warm-up: in 200 ms a loaded machine had the Python server answer none.
        let result = try await run(server, path: "/ok", in: directory, extra: ["--warmup", "1s"])
        let row = try #require(result.output?.rows.first, "\(result.failure?.message ?? "")")
        let warmups = try #require(row.warmupRequests)
        #expect(warmups > 0)
        #expect(
            result.text.contains(
                "200=\(1 + warmups) transport=0 outside them: 1 the first-page check, \(warmups) the warm-ups\n"
            ),
            "\(result.text)"
        )
    }

    /// The first page of the run fails: the run cannot go on, exit 69 with the reason (T2).
    @Test(arguments: [
        ("/notjson", "the body is not JSON", "notJSON"),
        ("/noitems", "nothing at the items pointer '/items'", "missingItems"),
        ("/badtoken", "must be a string or null, got a number", "badContinuation"),
        ("/forbidden", "answered HTTP 403", "unauthorized"),
        ("/status/404", "answered HTTP 404", "httpStatus"),
        ("/status/500", "answered HTTP 500", "httpStatus"),
    ])
    func aResponseThatIsNotAPageStopsTheRunWithItsReason(path: String, reason: String, kind: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("misbehaving.py")
        defer { server.stop() }
        let result = try await run(server, path: path, in: directory)
        let failure = try #require(result.failure, "\(path) was accepted as a page")
        #expect(failure.exitStatus.rawValue == 69)
        #expect(failure.message.contains(reason), "\(failure.message)")
        #expect(
            !FileManager.default.fileExists(
                atPath: directory.appendingPathComponent("t" + path.replacingOccurrences(of: "/", with: "-") + ".csv")
                    .path
            )
        )
        // The source itself classifies the response by kind, and never as a page.
        let target = try Target.load(json: Data(Self.target(server.url, path: path).utf8), defaultName: "direct")
        let source = try TargetSource(target: target, connections: 1)
        do {
            let page = try await source.page(PageRequest(range: .scan, limit: 5))
            Issue.record("\(path) gave a page: \(page)")
        } catch let error as PageError {
            // The contract's kind, not the synthetic store's error; the target's own cause
            // is counted below (`target_errors_*`).
            let targetKind = try #require(TargetError.Kind(rawValue: kind))
            #expect(error.kind == targetKind.pageErrorKind)
            #expect(
                error.kind
                    == (kind == "notJSON" || kind == "missingItems" || kind == "badContinuation"
                        ? .malformedAnswer : .refused)
            )
            #expect(!error.isRetryable)
        }
        #expect(source.errorCountsByKind[TargetError.Kind(rawValue: kind)!] == 1)
        await source.shutdown()
    }

    /// The row the run wrote for `path` (its CSV), when it failed.
    func writtenRow(_ path: String, in directory: URL) throws -> ResultRow {
        let file = directory.appendingPathComponent("t" + path.replacingOccurrences(of: "/", with: "-") + ".csv")
        let rows = try ResultRow.parseCSV(try String(contentsOf: file, encoding: .utf8), file: file.path)
        return try #require(rows.first)
    }

    /// A server that answers the continuation it was sent (P9): the first page is a page, the
    /// repeat ends every drain as a counted `repeatedContinuation` error, nothing loops. Not
    /// one drain ended, so the phase failed (T6): its row is written with the counts, exit 69.
    @Test func p9TheSameContinuationForeverEndsEachDrainAsACountedError() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("misbehaving.py")
        defer { server.stop() }
        let result = try await run(server, path: "/repeat", in: directory)
        let failure = try #require(result.failure, "a phase in which every drain failed is not a result")
        #expect(failure.exitStatus.rawValue == 69)
        #expect(
            failure.message.contains("ended no drain in phase api@t-repeat")
                && failure.message.contains("6 of 6 drains failed"),
            "\(failure.message)"
        )
        #expect(failure.message.contains("repeatedContinuation=6"), "\(failure.message)")
        let row = try writtenRow("/repeat", in: directory)
        #expect(row.pages == 6)  // one page per drain, then the repeat
        #expect(row.errors.other == 6)
        #expect(row.drains == 0)
        // The CSV row carries the kind of target, the responses and the errors by kind.
        #expect(row.targetKind == "http")
        #expect(row.targetHash.count == 16)
        #expect(row.targetErrors.repeatedContinuation == 6)
        #expect(row.httpResponses == "200=12 transport=0")
    }

    /// T6 (issue 24): a good first page, then a second page that is not a page (not JSON, or
    /// HTTP 500) on every drain: no drain ended, so the phase failed. The run exited 0; now
    /// its row is written with the error counts and the run exits 69 naming the phase.
    @Test(arguments: [("/pagetwo/notjson", "notJSON"), ("/pagetwo/500", "httpStatus")])
    func t6APhaseWhoseDrainsAllFailAfterAGoodFirstPageFails(path: String, kind: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("misbehaving.py")
        defer { server.stop() }
        let result = try await run(server, path: path, in: directory)
        let failure = try #require(result.failure, "\(path): a phase in which every drain failed is not a result")
        #expect(failure.exitStatus.rawValue == 69)
        #expect(
            failure.message.contains("ended no drain") && failure.message.contains("\(kind)=6"),
            "\(failure.message)"
        )
        let row = try writtenRow(path, in: directory)
        #expect(row.pages == 6 && row.drains == 0 && row.errors.other == 6)
        #expect(row.targetErrors.byKind == [TargetError.Kind(rawValue: kind)!: 6])
        #expect(row.notAResult == "ended no drain")
    }

    /// 429 with Retry-After is retried per the retry policy and counted (T3); the drains
    /// then complete with every page.
    @Test func t3ThrottlingIsRetriedAndCounted() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("misbehaving.py")
        defer { server.stop() }
        let result = try await run(server, path: "/throttle", in: directory)
        let row = try #require(result.output?.rows.first, "\(result.failure?.message ?? "")")
        #expect(row.pages == 24)
        #expect(row.errors.total == 0)
        // Each of the 4 tokens is throttled once; the first one by the run's first-page check.
        #expect(row.retries == 3)
        #expect(row.throttles == row.retries)
        #expect(row.httpResponses == "200=24 429=3 transport=0")
        #expect(
            result.text.contains("200=24 429=3 transport=0 in the rows; 429=1 transport=0 outside them"),
            "\(result.text)"
        )
        #expect(result.text.contains("throttling answers: 3 in the rows; 1 outside them"), "\(result.text)")
    }

    /// 503 forever: every retry is counted, every drain fails as throttled, no page: exit 69.
    @Test func t3UnavailableForeverExhaustsTheRetriesAndStopsTheRun() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("misbehaving.py")
        defer { server.stop() }
        let result = try await run(server, path: "/unavailable", in: directory)
        let failure = try #require(result.failure)
        #expect(failure.exitStatus.rawValue == 69)
        #expect(failure.message.contains("answered no page"), "\(failure.message)")
    }

    @Test func aTargetThatIsDownStopsTheRunBeforeItStarts() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A port that was just free: nothing listens there.
        let server = try ChildServer.python("misbehaving.py")
        server.stop()
        let result = try await run(server, path: "/ok", in: directory)
        let failure = try #require(result.failure)
        #expect(failure.exitStatus.rawValue == 69)
        #expect(failure.message.contains("cannot connect") || failure.message.contains("refused"), "\(failure.message)")
    }

    /// The server goes away part way through a timed run: the drains that meet the refused
    /// connection end as counted errors, the rows are written with the pages before, and the
    /// run fails with exit 69 saying the target stopped answering (issue 12: a failure is
    /// never a result). The server exits after the 8th page it answered (the check before the
    /// phase takes one), not after a sleep: on a loaded machine a run may not have begun its
    /// phase 700 ms after it started, and then the check before it failed instead.
    @Test func aConnectionRefusedMidRunIsCountedAndTheRunEnds() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try ChildServer.python("misbehaving.py")
        defer { server.stop() }
        let scenario = try write(
            Self.scenario.replacingOccurrences(of: "\"drains\": 6", with: "\"durationSeconds\": 3"),
            "timed.json",
            in: directory
        )
        let target = try write(Self.target(server.url, path: "/okthenexit/8"), "t.json", in: directory)
        let result = await runPagebench([
            scenario, "--target-file", target, "--quiet", "--output", directory.appendingPathComponent("t.csv").path,
        ])
        let failure = try #require(result.failure, "the run must fail")
        #expect(failure.exitStatus == ExitCodes.unavailable)
        #expect(
            failure.message.contains("stopped answering") && failure.message.contains("got no response"),
            "\(failure.message)"
        )
        let rows = try ResultRow.parseCSV(
            try String(contentsOf: directory.appendingPathComponent("t.csv"), encoding: .utf8),
            file: "t.csv"
        )
        let row = try #require(rows.first)
        #expect(row.pages > 0)
        #expect(row.errors.other > 0)
    }

    /// T4 (issue 25): a server that echoes the `Authorization` header in its 403 body, on the
    /// first page or on page two of every drain, gets no secret printed or written: the
    /// secret (300 characters, so that the 200-character excerpt would cut it; non-ASCII,
    /// which the server escapes as `\u00e9`) is masked in the failure messages, and appears
    /// in no output, CSV or shard file. It used to be printed in the first-page error.
    @Test func t4ASecretTheServerEchoesIsMaskedInEveryMessage() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "s3cr3t-é-\(UUID().uuidString)-" + String(repeating: "x", count: 250)
        let variable = "PAGEBENCH_T4_ECHO_\(UInt32.random(in: 0...UInt32.max))"
        setenv(variable, secret, 1)
        defer { unsetenv(variable) }
        let server = try ChildServer.python("misbehaving.py")
        defer { server.stop() }
        let headers = "{\"Authorization\": \"Bearer ${\(variable)}\"}"
        let first = try await run(server, path: "/echo", in: directory, headers: headers)
        let firstFailure = try #require(first.failure)
        #expect(firstFailure.exitStatus.rawValue == 69)
        #expect(firstFailure.message.contains(#"{"authorization": "[masked]"}"#), "\(firstFailure.message)")
        let second = try await run(server, path: "/pagetwo/echo", in: directory, headers: headers)
        let secondFailure = try #require(second.failure)
        #expect(
            secondFailure.message.contains("unauthorized=6") && secondFailure.message.contains("[masked]"),
            "\(secondFailure.message)"
        )
        let sharded = try await run(
            server,
            path: "/pagetwo/echo",
            in: directory,
            extra: ["--shard", "0/2", "--shard-output", directory.appendingPathComponent("shards").path],
            headers: headers,
            csv: false
        )
        var everything =
            first.text + firstFailure.message + second.text + secondFailure.message + sharded.text
            + (sharded.failure?.message ?? "")
        let files = FileManager.default.enumerator(atPath: directory.path)!.compactMap { $0 as? String }
        #expect(files.contains { $0.hasSuffix(".csv") } && files.contains { $0.hasPrefix("shards/") })
        for file in files {
            everything += (try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)) ?? ""
        }
        #expect(!everything.contains("s3cr3t"))
        #expect(!everything.contains("xxxxxxxxxx"))
    }

    /// T4 (issue 39): a server that echoes the secret lower-cased, upper-cased or
    /// base64-encoded, or decodes a Basic credential and echoes that, gets none of it printed.
    @Test func t4ASecretEchoedInAnotherFormIsMasked() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "S3cr3T-\(UUID().uuidString)"
        let variable = "PAGEBENCH_T4_FORMS_\(UInt32.random(in: 0...UInt32.max))"
        let server = try ChildServer.python("misbehaving.py")
        defer { server.stop() }
        defer { unsetenv(variable) }
        var everything = ""
        setenv(variable, secret, 1)
        for form in ["lower", "upper", "base64"] {
            let result = try await run(
                server,
                path: "/echo/\(form)",
                in: directory,
                headers: "{\"Authorization\": \"Bearer ${\(variable)}\"}"
            )
            let failure = try #require(result.failure)
            #expect(failure.message.contains(#"{"you_sent": "[masked]"}"#), "\(form): \(failure.message)")
            everything += result.text + failure.message
        }
        setenv(variable, Data("user:\(secret)".utf8).base64EncodedString(), 1)
        let basic = try await run(
            server,
            path: "/echo/basic",
            in: directory,
            headers: "{\"Authorization\": \"Basic ${\(variable)}\"}"
        )
        let failure = try #require(basic.failure)
        #expect(failure.message.contains(#"{"you_sent": "[masked]"}"#), "\(failure.message)")
        everything += basic.text + failure.message
        #expect(!everything.lowercased().contains("s3cr3t"))
        #expect(!everything.contains(String(Data(secret.utf8).base64EncodedString().prefix(12))))
    }

    /// T4: a secret in the environment, sent as a header, is accepted by the server and
    /// appears in no results file, shard file, printed text or error message.
    @Test func t4ASecretFromTheEnvironmentNeverAppearsInAnyOutput() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = "s3cr3t-\(UUID().uuidString)"
        let variable = "PAGEBENCH_T4_SECRET_\(UInt32.random(in: 0...UInt32.max))"
        setenv(variable, secret, 1)
        defer { unsetenv(variable) }
        let server = try ChildServer.python("misbehaving.py", environment: ["EXPECTED_SECRET": secret])
        defer { server.stop() }
        let headers = "{\"Authorization\": \"Bearer ${\(variable)}\"}"
        let accepted = try await run(
            server,
            path: "/auth",
            in: directory,
            extra: ["--history", directory.appendingPathComponent("history.csv").path],
            headers: headers
        )
        #expect(accepted.failure == nil, "\(accepted.failure?.message ?? "")")
        #expect(accepted.output?.rows.first?.pages == 24)
        let sharded = try await run(
            server,
            path: "/auth",
            in: directory,
            extra: ["--shard", "0/2", "--shard-output", directory.appendingPathComponent("shards").path],
            headers: headers,
            csv: false
        )
        #expect(sharded.failure == nil, "\(sharded.failure?.message ?? "")")
        // A wrong secret: 401, exit 69, and the message names neither secret.
        setenv(variable, secret + "-wrong", 1)
        let refused = try await run(server, path: "/auth", in: directory, headers: headers)
        let failure = try #require(refused.failure)
        #expect(failure.exitStatus.rawValue == 69)
        #expect(failure.message.contains("HTTP 401"))
        var everything = accepted.text + sharded.text + refused.text + failure.message
        let files = FileManager.default.enumerator(atPath: directory.path)!.compactMap { $0 as? String }
        #expect(files.contains { $0.hasSuffix(".csv") })
        #expect(files.contains { $0.hasPrefix("shards/") })
        for file in files {
            everything += (try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)) ?? ""
        }
        #expect(!everything.contains(secret))
        #expect(!everything.contains("s3cr3t"))
    }
}
