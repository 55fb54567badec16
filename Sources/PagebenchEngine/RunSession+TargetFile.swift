import Foundation
import PagebenchBase
import PagebenchHTTPClient
import PagebenchHarness
import PagebenchMetrics
import PagebenchPage
import PagebenchStore
import PagebenchTargets
import PagebenchWire

extension RunSession {
    /// The real target of this run: `--target-file`, or the scenarios' `target` section (all
    /// the same). Adapts the scenarios to it: drains choose among the target's partition
    /// values, so the store's partition count becomes their number.
    ///
    /// - Throws: 66 for a missing target file, 65 for an invalid one, 64 when the scenarios
    ///   name different targets or read partitions the target does not list.
    func loadRealTarget(_ scenarios: inout [Scenario]) throws(CommandError) -> Target? {
        let loaded: Target
        if let targetFile = request.targetFile {
            do {
                loaded = try Target.load(path: targetFile)
            } catch {
                throw error.isMissingFile ? .missingInput(error.message) : .invalidInput(error.message)
            }
        } else {
            let sections = Set(scenarios.map(\.target))
            guard sections.contains(where: { $0 != nil }) else { return nil }
            guard sections.count == 1, let section = sections.first!, request.servedStore == nil else {
                throw .usage(
                    request.servedStore != nil
                        ? "--target pages a `pagebench serve`, but a scenario has a target section; leave one out"
                        : "these scenarios name different targets (or some none); run them one at a time"
                )
            }
            do {
                loaded = try Target.load(JSONValue.parse(section), defaultName: "target")
            } catch let error as TargetFileError {
                throw error.isMissingFile
                    ? .missingInput("target: \(error.message)") : .invalidInput("target: \(error.message)")
            } catch {
                throw .invalidInput("target: \(error)")
            }
        }
        let target = loaded
        for index in scenarios.indices {
            let read = scenarios[index].workload.read
            guard case .partition = read else { continue }
            guard let partitions = target.partitions else {
                throw .usage(
                    "scenario \(scenarios[index].name) reads \(read) but target \(target.name) lists no partitions; "
                        + "add a partitions section to the target or use read scan (or segment:N)"
                )
            }
            scenarios[index].store.partitions = partitions.count
            do {
                try scenarios[index].validate()
            } catch {
                throw CommandError(error.asArgumentError())
            }
        }
        return target
    }

    /// A source for `target` with one connection per pager of the widest phase, checked by
    /// fetching the first page of the first drain: a target that is down, refuses the
    /// credentials or answers no page stops the run before it starts. A signal during that
    /// request ends it at once (T5, H6).
    ///
    /// - Throws: 65 for a target the environment cannot complete (an unset variable, no AWS
    ///   credentials), 64 for a bad --ca-file or --insecure (``connectionRefusal(_:_:)``),
    ///   69 when the first page fails, 128 + the signal when `interruption` is requested
    ///   during the check.
    func connectRealTarget(_ target: Target, scenarios: [Scenario]) async throws(CommandError) -> TargetSource {
        let connections = max(1, scenarios.flatMap(\.workload.concurrency).max() ?? 1)
        try Self.checkDescriptorLimit(connections: connections)
        if let caFile = request.caFile { try Self.checkReadable(caFile, flag: "--ca-file") }
        let source: TargetSource
        do {
            source = try TargetSource(
                target: target,
                connections: connections,
                caFile: request.caFile,
                insecure: request.insecure
            )
        } catch {
            throw await connectionRefusal(target, error, connections: connections)
        }
        guard let first = scenarios.first else { return source }
        let request = DrainPlanner(workload: first.workload, store: first.store).plan(0).request
        do {
            _ = try await Self.unlessInterrupted(interruption) { try await source.page(request) }
        } catch  where PageError.isRetryable(error) {
            // Throttled: the target is up; the run's retry policy deals with it.
        } catch {
            await source.shutdown()
            try Self.checkInterrupted(interruption, rows: [])
            throw .targetUnavailable("target \(target.name): the first page failed: \(error)")
        }
        return source
    }

    /// Why `target`'s source could not be set up, as a typed failure: when the same target
    /// without `--ca-file` and `--insecure` can be, those flags are what it refused (a bad CA
    /// file, TLS options for an http:// endpoint): 64; otherwise the target the environment
    /// cannot complete (an unset variable, no AWS credentials, no trust store): 65.
    func connectionRefusal(_ target: Target, _ error: TargetFileError, connections: Int) async -> CommandError {
        let message = "target \(target.name): \(error.message)"
        guard request.caFile != nil || request.insecure else { return .invalidInput(message) }
        guard let plain = try? TargetSource(target: target, connections: connections) else {
            return .invalidInput(message)
        }
        await plain.shutdown()
        return .usage(message)
    }

    /// Checks that the file a flag names can be opened for reading, so that the reason a
    /// library would report in its own words is said plainly first (exit 64).
    static func checkReadable(_ path: String, flag: String) throws(CommandError) {
        do {
            _ = try FileSystem.InputFile(path)
        } catch {
            throw .usage("\(flag) \(path): \(error.kind == .missing ? "no such file; check the path" : error.reason)")
        }
    }

    /// `body` (a request before the first phase: the first-page check, `/health`), cancelled
    /// as soon as `interruption` is requested (T5, H6: a signal is handled at once, not after
    /// the request's timeout); the caller then ends the run with 128 + the signal.
    ///
    /// - Throws: what `body` throws; `CancellationError` once interrupted.
    static func unlessInterrupted<Result: Sendable>(
        _ interruption: Interruption?,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        guard let interruption else { return try await body() }
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                await interruption.wait()  // also returns when cancelled (body finished first)
                return nil
            }
            defer { group.cancelAll() }
            guard let result = try await group.next()!, !interruption.isRequested else { throw CancellationError() }
            return result
        }
    }

    /// A snapshot of the target's live counters, as rows carry them.
    static func remoteCounts(_ source: TargetSource) -> RemoteCounts {
        RemoteCounts(
            responses: source.statusCounts.keyedCounts,
            targetErrors: source.errorCountsByKind,
            consumedCapacityUnits: source.consumedCapacityUnits
        )
    }

    /// What the target answered over the run, for the end of the output: responses, errors by
    /// kind, throttling answers and consumed capacity, each split as the rows count them
    /// (``responsesSummary(_:rows:)``).
    static func targetSummary(_ source: TargetSource, rows: [ResultRow]) -> String {
        var text =
            "responses from \(source.target.kind.rawValue) target \(source.target.name) (\(source.target.endpoint)): "
            + responsesSummary(source.statusCounts, rows: rows, checks: 1) + "\n"
        let total = source.errorCountsByKind
        if !total.isEmpty {
            var inRows: [TargetError.Kind: Int] = [:]
            for row in rows { inRows.merge(row.targetErrors.byKind, uniquingKeysWith: +) }
            func line(_ counts: [TargetError.Kind: Int]) -> String {
                counts.filter { $0.value != 0 }.sorted { $0.key.rawValue < $1.key.rawValue }
                    .map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: " ")
            }
            let outside = Dictionary(uniqueKeysWithValues: total.map { ($0.key, $0.value - (inRows[$0.key] ?? 0)) })
            text += "target errors: " + remoteSplit(line(inRows), line(outside)) + "\n"
        }
        if source.throttles > 0 {
            let inRows = rows.map(\.throttles).reduce(0, +)
            text +=
                "throttling answers: "
                + remoteSplit("\(inRows)", source.throttles == inRows ? "" : "\(source.throttles - inRows)") + "\n"
        }
        if let units = source.consumedCapacityUnits {
            let inRows = rows.compactMap(\.consumedCapacityUnits).reduce(0, +)
            let outside = units - inRows
            text +=
                "consumed capacity: " + remoteSplit("\(inRows) units", abs(outside) < 1e-9 ? "" : "\(outside) units")
                + "\n"
        }
        return text
    }

    /// The responses a remote source got over the run (`total`), split as the rows count them
    /// (issue 25): a row's `http_responses` covers its measured phase only, so the requests
    /// made outside the phases (the check before the first one: a target's first page,
    /// `/health` of a served store; warm-ups) are real requests in no row, counted apart.
    /// What this prints "in the rows" is the sum of the rows' `http_responses`; what is
    /// outside them is named by cause with its count (issue 35), only the causes that
    /// happened: `checks` requests of `check` (the first-page check, one per process that
    /// paged), the warm-ups' requests (the rows' `warmup_requests`), and any rest as
    /// answered between phases.
    package static func responsesSummary(
        _ total: HTTPStatusCounts,
        rows: [ResultRow],
        checks: Int = 0,
        check: String = "the first-page check"
    ) -> String {
        var inRows = HTTPStatusCounts()
        for row in rows {
            inRows.add(HTTPStatusCounts(keyedCounts: RemoteCounts.responses(fromText: row.httpResponses) ?? [:]))
        }
        let outside = total.subtracting(inRows)
        guard outside != HTTPStatusCounts() else { return remoteSplit("\(inRows)", "") }
        var rest = outside.responses + outside.transportFailures
        var causes: [String] = []
        func name(_ count: Int, _ cause: String) {
            let count = min(count, rest)
            guard count > 0 else { return }
            causes.append("\(count) \(cause)")
            rest -= count
        }
        name(checks, check + (checks > 1 ? "s (one per worker)" : ""))
        let warmups = rows.compactMap(\.warmupRequests).reduce(0, +)
        name(warmups, "the warm-ups")
        name(rest, "answered between phases")
        return (inRows == HTTPStatusCounts() ? "none" : "\(inRows)") + " in the rows; \(outside) outside them: "
            + causes.joined(separator: ", ")
    }

    /// `A in the rows; B outside them (the first-page check, warm-ups)`, or only the first
    /// part when nothing was outside: for the figures whose outside part cannot be split by
    /// cause (errors by kind, throttling answers, consumed capacity).
    static func remoteSplit(_ inRows: String, _ outside: String) -> String {
        (inRows.isEmpty ? "none" : inRows) + " in the rows"
            + (outside.isEmpty ? "" : "; \(outside) outside them (the first-page check, warm-ups)")
    }

    /// After the rows are written (with their error counts): a phase in which a remote
    /// target answered no page, ended no drain (every drain failed, whatever the first page
    /// did: T6), or stopped answering (drains failed and requests got no response at all),
    /// is a failed run, exit 69 — a failure is never a result. Any remote source: a target
    /// file, a scenario's target section, or a served store (`--target URL`).
    package static func checkTargetAnswered(
        _ rows: [ResultRow],
        target: String,
        detail: String? = nil,
        lastError: String? = nil
    ) throws(CommandError) {
        for row in rows {
            let failed = row.errors.total
            let unanswered = row.unansweredRequests
            guard
                let what = ResultRow.targetFailure(
                    pages: row.pages + row.cutOffPages,
                    drains: row.drains,
                    failedDrains: failed,
                    unansweredRequests: unanswered
                )
            else { continue }
            var message =
                "target \(target) \(what) in phase \(row.scenario) ×\(row.concurrency) rep \(row.repetition): \(failed) of "
                + "\(failed + row.drains) drains failed, \(unanswered) request\(unanswered == 1 ? "" : "s") got no response"
            if let detail { message += " (\(detail))" }
            message +=
                "; the rows were written to the output with their error counts (errors_*, http_responses), "
                + "not to the history, and no later phase ran"
            if let lastError { message += "; last error: \(lastError)" }
            throw .targetUnavailable(message)
        }
    }
}
