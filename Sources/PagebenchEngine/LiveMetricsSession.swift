import Foundation
import PagebenchHarness
import PagebenchLiveMetrics
import PagebenchMetrics

/// The live metrics of one `run` (or of all of `knee`'s steps): ``LiveMetrics`` as an observer
/// of the sweep, the `/metrics` server of `--metrics-listen`, the pusher of `--remote-write`,
/// and the linger after the run (docs/live-metrics.md).
package final class LiveMetricsSession: Sendable {
    package let metrics: LiveMetrics
    package let server: MetricsServer?
    package let writer: RemoteWriter?

    /// Starts serving (and prepares pushing) the metrics of `request`'s scenarios.
    ///
    /// - Throws: ``CommandError`` (usage, exit 64) when the address cannot be bound or the URL is not one.
    package static func start(
        _ request: RunRequest,
        target: String,
        context: RunContext
    ) async throws(CommandError)
        -> LiveMetricsSession?
    {
        guard request.metricsListen != nil || request.remoteWrite != nil else { return nil }
        let configurations = request.scenarios.map { scenario in
            LiveMetrics.Configuration(
                label: scenario.label ?? scenario.name,
                configHash: scenario.configurationHash,
                pager: scenario.workload.pager.rawValue,
                loadModel: scenario.workload.load.csvName
            )
        }
        let metrics = LiveMetrics(
            version: PagebenchVersion.string,
            target: target,
            configurations: configurations,
            context: context
        )
        do throws(LiveMetricsError) {
            var server: MetricsServer?
            if let listen = request.metricsListen {
                var (host, port) = try Self.address(listen)
                // Shard I of a run listens I ports up (`--workers N`: PORT … PORT+N-1).
                if port != 0, let shard = request.shard { port += shard.index }
                server = try await MetricsServer(host: host, port: port, metrics: metrics)
            }
            var writer: RemoteWriter?
            if let url = request.remoteWrite {
                let shard = request.shard.map { "shard \($0)" } ?? "whole"
                writer = try RemoteWriter(
                    url: url,
                    interval: .nanoseconds(Int64(request.metricsIntervalSeconds * 1e9)),
                    metrics: metrics,
                    instance: "\(ProcessInfo.processInfo.hostName) \(shard)"
                )
            }
            let session = LiveMetricsSession(metrics: metrics, server: server, writer: writer)
            if let server, !request.quiet || request.metricsListen?.hasSuffix(":0") == true {
                StandardError.write("pagebench: serving live metrics on http://\(server.host):\(server.port)/metrics\n")
            }
            return session
        } catch {
            throw .usage(error.message)
        }
    }

    private init(metrics: LiveMetrics, server: MetricsServer?, writer: RemoteWriter?) {
        self.metrics = metrics
        self.server = server
        self.writer = writer
    }

    /// `HOST:PORT` (`[::1]:PORT` for IPv6) split.
    static func address(_ text: String) throws(LiveMetricsError) -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else {
            throw LiveMetricsError(.cannotListen, "--metrics-listen '\(text)': give HOST:PORT, e.g. 127.0.0.1:9464")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else {
            throw LiveMetricsError(.cannotListen, "--metrics-listen '\(text)': give HOST:PORT, e.g. 127.0.0.1:9464")
        }
        return (host, port)
    }

    /// Runs `body` (the sweep) while the remote writer pushes every interval; then pushes once
    /// more (a run cut short by SIGINT or SIGTERM included).
    package func pushing<T: Sendable>(_ body: () async -> T) async -> T {
        guard let writer else { return await body() }
        let result = await withTaskGroup(of: Void.self) { group in
            group.addTask { await writer.run() }
            let result = await body()
            group.cancelAll()
            return result
        }
        await writer.push()
        return result
    }

    /// The run is over: the state gauge says `done`, the last values are pushed, and the
    /// server keeps answering for `linger` seconds (cut short by `interruption`) before it stops.
    package func finish(lingerSeconds: Double, interruption: Interruption?) async {
        metrics.finish()
        if let writer {
            await writer.push()
            await writer.shutdown()
        }
        guard let server else { return }
        if lingerSeconds > 0, interruption?.isRequested != true, metrics.phasesEnded > 0 {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await Task.sleep(for: .nanoseconds(Int64(lingerSeconds * 1e9))) }
                if let interruption { group.addTask { await interruption.wait() } }
                await group.next()
                group.cancelAll()
            }
        }
        await server.shutdown()
    }
}
