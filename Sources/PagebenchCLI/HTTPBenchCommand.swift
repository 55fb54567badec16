import ArgumentParser
import Foundation
import PagebenchBase
import PagebenchEngine
import PagebenchHTTPClient
import PagebenchPage
import PagebenchStore
import PagebenchTargets
import PagebenchWire

/// `pagebench http-bench`: a closed-loop HTTP drain load against `pagebench serve`, to
/// compare the HTTP client with wrk (`Benchmarks/wrk/follow-token.lua`) at the same
/// connection count, or against any target file's API (`--target-file`): the same loop
/// (``HTTPDrainLoad``) over the same page exchange, whichever source.
package struct HTTPBenchCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "http-bench",
        abstract:
            "Drain a served store (or a target file's API) over HTTP with N connections for a fixed time; print requests/s.",
        discussion: """
            Each of --connections tasks follows nextToken from the first page to the last, then \
            starts again, until --duration has passed (the duration holds: whatever is still \
            connecting or waiting then is cancelled, and only answers within it count); retryable \
            answers (429, 503) repeat the request, and so does a request that got no answer, after \
            a back-off. Prints one JSON line: requests (answered), unanswered, pages, items, drains, \
            retries, failures, seconds (the measured window), requestsPerSecond (answered requests) \
            and the HTTP status counts (every answer received, after the window too). More \
            --connections than the file-descriptor limit allows \
            (ulimit -n, raised to the hard limit when needed) exit 64 before connecting. A non-retryable \
            failure (a 404, a bad token) ends the run, and so does a server that stops answering \
            (6 unanswered requests in a row on one connection): the line is printed, then the \
            error, exit 69; a run in which no drain completed is exit 69 too. --target-file FILE drains the API a target file describes (kinds \
            \(Target.Kind.names); docs/file-formats.md) with the same loop instead of a served store: \
            --partition I picks its I-th partition value (without it, each drain picks one of the file's \
            partition values, uniformly and seeded, as run's partition:uniform); the line adds targetFile, throttles and \
            targetErrors (non-page answers by kind). Retry-After is waited out (at most 30 s) before \
            a throttled request is repeated, whichever the source.
            """
    )

    @Option(parsing: .unconditional, help: "Base URL of `pagebench serve`, e.g. http://127.0.0.1:8080.")
    package var target: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Drain the API this target file describes instead (kinds \(Target.Kind.names); docs/file-formats.md); secrets come from the environment and are masked.",
            valueName: "file"
        )
    )
    package var targetFile: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "HTTPS targets: trust the certificates in this PEM file instead of the system store.",
            valueName: "file"
        )
    )
    package var caFile: String?

    @Flag(help: "HTTPS targets: accept any certificate and host name (self-signed test servers only).")
    package var insecure = false

    @Option(parsing: .unconditional, help: HTTPClientOption.help)
    package var httpClient: HTTPClientOption = .lean

    @Option(parsing: .unconditional, help: "Concurrent connections (one drain loop each).")
    package var connections = 8

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("How long to run: 10s, 500ms (a bare number is seconds).", valueName: "duration"),
        transform: DurationOption.seconds("--duration")
    )
    package var duration = 10.0

    @OptionGroup package var range: RangeOptions

    @Option(parsing: .unconditional, help: "Items to evaluate per page; the server's default when absent.")
    package var limit: Int?

    @Flag(help: "Ask for item payloads (payload=true).")
    package var payload = false

    @Option(
        parsing: .unconditional,
        help:
            "Where the drain tasks run: event-loop (each on its connection's event loop, no thread hop per request) or global (the global concurrent executor, like the harness's pagers)."
    )
    package var tasks: TaskPlacement = .eventLoop

    /// Where ``HTTPBenchCommand`` runs its drain tasks.
    package enum TaskPlacement: String, ExpressibleByArgument, CaseIterable, Sendable {
        case eventLoop = "event-loop"
        case global
    }

    package init() {}

    package func validate() throws {
        try range.requirePartitionNumber()
        try range.validateFilter()
        switch (target, targetFile) {
        case (nil, nil):
            throw ValidationError("give --target URL (a `pagebench serve`) or --target-file FILE (any target kind)")
        case (.some, .some):
            throw ValidationError("--target and --target-file name two sources; give one")
        case (.some, nil):
            if caFile != nil || insecure {
                throw ValidationError("--ca-file and --insecure apply to --target-file targets")
            }
        case (nil, .some):
            if httpClient != .lean {
                throw ValidationError(
                    "--http-client applies to --target (a served store); --target-file uses the lean client"
                )
            }
            if payload { throw ValidationError("--payload applies to --target (a served store)") }
        }
        guard connections >= 1, connections <= Self.maximumConnections else {
            throw ValidationError(
                "--connections must be between 1 and \(Self.maximumConnections) (a socket and a file descriptor each), got \(connections)"
            )
        }
        guard duration > 0, duration <= 3600 else {
            throw ValidationError("--duration must be between 0 and 3600 seconds, got \(duration)")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, got \(limit) (S1)") }
        try httpClient.validate()
    }

    package func run() async throws {
        let outcome: (line: String, failure: CommandError?)
        do {
            outcome = try await execute()
        } catch {
            throw error.report()
        }
        var output = StandardOutput()
        output.write(outcome.line + "\n")
        do { try output.finish() } catch { throw error.report() }
        if let failure = outcome.failure { throw failure.report() }
    }

    /// Runs the load and returns its JSON summary line, and the failure that ended it early
    /// (a non-retryable answer, or a server that stopped answering), if one did.
    package func execute() async throws -> (line: String, failure: CommandError?) {
        try checkDescriptorLimit()
        let request = PageRequest(
            range: range.range,
            reverse: range.reverse,
            limit: limit,
            filter: try range.parsedFilter()
        )
        var load = HTTPDrainLoad(request: request, concurrency: connections, duration: .seconds(duration))
        let target: String
        let result: HTTPDrainLoad.Result
        let counts: HTTPStatusCounts
        var extra = ""
        if let targetFile {
            let source = try targetSource(targetFile, request: request)
            target = source.target.endpoint
            // Without a range flag, each drain reads one of the file's partitions, as `run`'s
            // partition:uniform does (not the partition template left empty).
            if case .scan = request.range, let partitions = source.target.partitions {
                load.partitionCount = partitions.count
            }
            result = await load.run(executor: executor { source.taskExecutor($0) }) { try await source.page($0) }
            counts = source.statusCounts
            await source.shutdown()
            let errors = source.errorCountsByKind.sorted { $0.key.rawValue < $1.key.rawValue }
                .map { "\(jsonString($0.key.rawValue)):\($0.value)" }.joined(separator: ",")
            extra =
                ",\"targetFile\":\(jsonString(targetFile)),\"throttles\":\(source.throttles),\"targetErrors\":{\(errors)}"
        } else {
            target = self.target ?? ""
            let configuration = HTTPStoreSource.Configuration(
                connections: connections,
                requestPayload: payload,
                client: httpClient.client
            )
            let source: HTTPStoreSource
            do {
                source = try HTTPStoreSource(target: target, configuration: configuration)
            } catch {
                throw CommandError.usage(error.message)
            }
            result = await load.run(executor: executor { source.taskExecutor($0) }) { try await source.page($0) }
            counts = source.statusCounts
            try await source.shutdown()
        }
        let seconds = result.elapsed.totalSeconds
        let statuses = counts.byStatus.keys.sorted().map { "\"\($0)\":\(counts[$0])" }.joined(separator: ",")
        let firstFailure = result.firstFailure.map { ",\"firstFailure\":\(jsonString($0))" } ?? ""
        if result.pages == 0 && result.failures == 0 && !result.serverStoppedAnswering {
            throw CommandError.unavailable(
                "no page received from \(target) in \(duration) s (\(counts)); \(result.lastUnanswered ?? "is the server running?")"
            )
        }
        var failure: CommandError?
        if let first = result.firstFailure, result.failures > 0 {
            failure = .unavailable(
                "a non-retryable failure ended the run (repeating it would only measure the error): \(first)"
            )
        } else if result.serverStoppedAnswering {
            failure = .unavailable(
                "\(target) stopped answering (\(HTTPDrainLoad.giveUpAfterUnanswered) requests in a row got no answer); "
                    + "the figures cover the time before: \(result.lastUnanswered ?? "")"
            )
        } else if result.drains == 0 {
            failure = .unavailable(
                "no drain completed in \(duration) s (\(result.pages) pages received): the figures hold no whole drain; "
                    + "give a longer --duration, a larger --limit or a smaller range"
            )
        }
        let line =
            "{\"target\":\(jsonString(target)),\"connections\":\(connections),\"requests\":\(result.requests),\"unanswered\":\(result.unanswered),\"pages\":\(result.pages),\"items\":\(result.items),\"drains\":\(result.drains),\"retries\":\(result.retries),\"failures\":\(result.failures),\"seconds\":\(seconds),\"requestsPerSecond\":\(result.requestsPerSecond),\"statusCounts\":{\(statuses)},\"transportFailures\":\(counts.transportFailures)\(extra)\(firstFailure)}"
        return (line, failure)
    }

    /// Where task `i` runs (``tasks``): on an event loop of the source's client, or on the
    /// global concurrent executor.
    private func executor(
        _ eventLoop: @escaping @Sendable (Int) -> any TaskExecutor
    ) -> (@Sendable (Int) -> (any TaskExecutor)?)? {
        switch tasks {
        case .eventLoop: { eventLoop($0) }
        case .global: nil
        }
    }

    /// The source of `--target-file`: the target loaded and checked against the range flags.
    ///
    /// - Throws: exit 66 for a missing target file, 65 for an invalid one or one the
    ///   environment cannot complete (an unset variable, no AWS credentials), 64 for a
    ///   `--partition` the target does not list or a bad `--ca-file`.
    private func targetSource(_ path: String, request: PageRequest) throws(CommandError) -> TargetSource {
        let target: Target
        do {
            target = try Target.load(path: path)
        } catch {
            throw error.isMissingFile ? .missingInput(error.message) : .invalidInput(error.message)
        }
        if case .partition(let index) = request.range {
            guard let partitions = target.partitions else {
                throw .usage(
                    "--partition \(index): target \(target.name) lists no partitions; add a partitions section to the target or leave --partition out (a scan)"
                )
            }
            guard index < partitions.count else {
                throw .usage(
                    "--partition \(index): target \(target.name) lists \(partitions.count) partition values; give 0 to \(partitions.count - 1)"
                )
            }
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .usage("--ca-file \(caFile): no such file or not readable; check the path")
        }
        do {
            return try TargetSource(target: target, connections: connections, caFile: caFile, insecure: insecure)
        } catch {
            throw .invalidInput("target \(target.name): \(error.message)")
        }
    }

    /// The most connections `--connections` takes: one socket each, far past what a
    /// process may open on a usual system (``checkDescriptorLimit()`` says so first).
    static let maximumConnections = 1_000_000

    /// Descriptors the process keeps besides its connections' sockets: standard streams,
    /// the event loops' epoll, event and timer descriptors, and room to spare.
    static let reservedDescriptors = 64

    /// Every connection is a socket: more than the process may open would fail to connect
    /// (EMFILE) part way and be counted as a server that stopped answering. The soft limit
    /// is raised as far as the hard limit allows; beyond that, exit 64 before connecting.
    func checkDescriptorLimit() throws(CommandError) {
        let needed = connections + Self.reservedDescriptors
        let limits = FileDescriptorLimit.raiseSoftLimit(toAtLeast: needed)
        guard limits.soft < needed else { return }
        throw .usage(
            "--connections \(connections) needs \(needed) file descriptors (a socket per connection and "
                + "\(Self.reservedDescriptors) for the process), but this process may open \(limits.soft) "
                + "(ulimit -n; hard limit \(limits.hard == Int.max ? "unlimited" : String(limits.hard))); give at most "
                + "--connections \(max(0, limits.soft - Self.reservedDescriptors)), or raise the hard limit "
                + "(ulimit -Hn, as root; the server needs as many for its side)"
        )
    }

    private func jsonString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
