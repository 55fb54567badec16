import ArgumentParser
import Foundation
import PagebenchBase
import PagebenchEngine
import PagebenchHTTPClient
import PagebenchPage
import PagebenchWire
import PagebenchStore

/// `pagebench http-bench`: a closed-loop HTTP drain load against `pagebench serve`, to
/// compare the HTTP client with wrk (`Benchmarks/wrk/follow-token.lua`) at the same
/// connection count.
public struct HTTPBenchCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "http-bench",
        abstract: "Drain a served store over HTTP with N connections for a fixed time; print requests/s.",
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
            error, exit 69.
            """
    )

    @Option(parsing: .unconditional, help: "Base URL of `pagebench serve`, e.g. http://127.0.0.1:8080.")
    public var target: String

    @Option(parsing: .unconditional, help: HTTPClientOption.help)
    public var httpClient: HTTPClientOption = .lean

    @Option(parsing: .unconditional, help: "Concurrent connections (one drain loop each).")
    public var connections = 8

    @Option(
        parsing: .unconditional, help: ArgumentHelp("How long to run: 10s, 500ms (a bare number is seconds).", valueName: "duration"),
        transform: DurationOption.seconds("--duration"))
    public var duration = 10.0

    @OptionGroup public var range: RangeOptions

    @Option(parsing: .unconditional, help: "Items to evaluate per page; the server's default when absent.")
    public var limit: Int?

    @Flag(help: "Ask for item payloads (payload=true).")
    public var payload = false

    @Option(parsing: .unconditional, help: "Where the drain tasks run: event-loop (each on its connection's event loop, no thread hop per request) or global (the global concurrent executor, like the harness's pagers).")
    public var tasks: TaskPlacement = .eventLoop

    /// Where ``HTTPBenchCommand`` runs its drain tasks.
    public enum TaskPlacement: String, ExpressibleByArgument, CaseIterable, Sendable {
        case eventLoop = "event-loop"
        case global
    }

    public init() {}

    public func validate() throws {
        guard connections >= 1, connections <= Self.maximumConnections else {
            throw ValidationError(
                "--connections must be between 1 and \(Self.maximumConnections) (a socket and a file descriptor each), got \(connections)")
        }
        guard duration > 0, duration <= 3600 else {
            throw ValidationError("--duration must be between 0 and 3600 seconds, got \(duration)")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, got \(limit) (S1)") }
        try httpClient.validate()
    }

    public func run() async throws {
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
    public func execute() async throws -> (line: String, failure: CommandError?) {
        try checkDescriptorLimit()
        let request = PageRequest(range: range.range, reverse: range.reverse, limit: limit, filter: try range.parsedFilter())
        let load = HTTPDrainLoad(request: request, concurrency: connections, duration: .seconds(duration))
        let configuration = HTTPStoreSource.Configuration(
            connections: connections, requestPayload: payload, client: httpClient.client)
        let source: HTTPStoreSource
        do {
            source = try HTTPStoreSource(target: target, configuration: configuration)
        } catch {
            throw CommandError.usage(error.message)
        }
        let executor: (@Sendable (Int) -> (any TaskExecutor)?)? =
            switch tasks {
            case .eventLoop: { source.taskExecutor($0) }
            case .global: nil
            }
        let result = await load.run(executor: executor) { try await source.page($0) }
        let counts = source.statusCounts
        try await source.shutdown()
        let seconds = result.elapsed.totalSeconds
        let statuses = counts.byStatus.keys.sorted().map { "\"\($0)\":\(counts[$0])" }.joined(separator: ",")
        let firstFailure = result.firstFailure.map { ",\"firstFailure\":\(jsonString($0))" } ?? ""
        if result.pages == 0 && result.failures == 0 && !result.serverStoppedAnswering {
            throw CommandError.unavailable(
                "no page received from \(target) in \(duration) s (\(counts)); \(result.lastUnanswered ?? "is the server running?")")
        }
        var failure: CommandError?
        if let first = result.firstFailure, result.failures > 0 {
            failure = .unavailable(
                "a non-retryable failure ended the run (repeating it would only measure the error): \(first)")
        } else if result.serverStoppedAnswering {
            failure = .unavailable(
                "\(target) stopped answering (\(HTTPDrainLoad.giveUpAfterUnanswered) requests in a row got no answer); "
                    + "the figures cover the time before: \(result.lastUnanswered ?? "")")
        }
        let line = "{\"target\":\(jsonString(target)),\"connections\":\(connections),\"requests\":\(result.requests),\"unanswered\":\(result.unanswered),\"pages\":\(result.pages),\"items\":\(result.items),\"drains\":\(result.drains),\"retries\":\(result.retries),\"failures\":\(result.failures),\"seconds\":\(seconds),\"requestsPerSecond\":\(result.requestsPerSecond),\"statusCounts\":{\(statuses)},\"transportFailures\":\(counts.transportFailures)\(firstFailure)}"
        return (line, failure)
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
                + "(ulimit -Hn, as root; the server needs as many for its side)")
    }

    private func jsonString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
