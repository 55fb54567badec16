import NIOCore
import PagebenchHTTPClient
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `--remote-write URL`: pushes ``LiveMetrics``' series with Prometheus remote write 1.0
/// every `interval`, as soon as a phase ends, and once more when the run ends (interrupted
/// by SIGINT or SIGTERM too: ``push()`` after the sweep), so that a short run or the last
/// values are never lost to a missed scrape.
///
/// A push that fails is counted and named on standard error once; it never fails the run.
package final class RemoteWriter: Sendable {
    package let url: String
    package let interval: Duration
    private let metrics: LiveMetrics
    private let client: HTTPRequestClient
    private let extraLabels: [(name: String, value: String)]
    private let state = Mutex(State())

    struct State {
        var phaseEnded = false
        var pushes = 0
        var failures = 0
        var lastFailure: String?
    }

    /// - Parameter instance: the `instance` label of every series (with `job="pagebench"`).
    /// - Throws: ``LiveMetricsError`` (`invalidRemoteWrite`) for a URL that is not `http://`.
    package init(url: String, interval: Duration, metrics: LiveMetrics, instance: String) throws(LiveMetricsError) {
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw LiveMetricsError(.invalidRemoteWrite, "--remote-write '\(url)': give an http:// or https:// URL")
        }
        do {
            client = try HTTPRequestClient(
                baseURL: url,
                configuration: .init(connections: 1, requestTimeout: .seconds(10), maximumResponseBytes: 1 << 20)
            )
        } catch {
            throw LiveMetricsError(.invalidRemoteWrite, "--remote-write '\(url)': \(error)")
        }
        self.url = url
        self.interval = interval
        self.metrics = metrics
        self.extraLabels = [("instance", instance), ("job", "pagebench")]
        metrics.onPhaseEnded { [weak self] in self?.state.withLock { $0.phaseEnded = true } }
    }

    /// Pushes until cancelled: every ``interval``, and within 100 ms of a phase's end.
    package func run() async {
        var last = ContinuousClock.now
        while !Task.isCancelled {
            do { try await Task.sleep(for: .milliseconds(100)) } catch { return }
            let due = state.withLock { state in
                defer { state.phaseEnded = false }
                return state.phaseEnded
            }
            if due || ContinuousClock.now - last >= interval {
                last = ContinuousClock.now
                await push()
            }
        }
    }

    /// Pushes the series now; true when the receiver took them (2xx).
    @discardableResult
    package func push() async -> Bool {
        var timestamp = timespec()
        clock_gettime(CLOCK_REALTIME, &timestamp)
        let milliseconds = Int64(timestamp.tv_sec) * 1000 + Int64(timestamp.tv_nsec) / 1_000_000
        let request = RemoteWriteRequest(
            families: metrics.families(),
            timestampMilliseconds: milliseconds,
            extraLabels: extraLabels
        )
        var body = ByteBuffer()
        body.writeBytes(request.snappyCompressed)
        let headers: [(name: String, value: String)] = [
            ("Content-Encoding", "snappy"), ("Content-Type", "application/x-protobuf"),
            ("X-Prometheus-Remote-Write-Version", "0.1.0"), ("User-Agent", "pagebench"),
        ]
        var failure: String?
        do {
            let answer = try await client.send(.init(method: "POST", pathAndQuery: "", headers: headers, body: body))
            if !(200..<300).contains(answer.status) {
                failure = "HTTP \(answer.status): \(String(buffer: answer.body).prefix(200))"
            }
        } catch is CancellationError {
            // The run ended while this push was under way: the final push follows at once.
            return false
        } catch {
            if Task.isCancelled { return false }
            failure = "\(error)"
        }
        let first = state.withLock { state -> Bool in
            state.pushes += 1
            guard let failure else { return false }
            state.failures += 1
            state.lastFailure = failure
            return state.failures == 1
        }
        if first, let failure {
            let text = "pagebench: warning: --remote-write \(url): a push failed (\(failure)); the run goes on\n"
            var bytes = Array(text.utf8)
            _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        }
        return failure == nil
    }

    /// Pushes made and how many failed.
    package var counts: (pushes: Int, failures: Int) { state.withLock { ($0.pushes, $0.failures) } }

    package func shutdown() async {
        await client.shutdown()
    }
}
