import PagebenchHTTPClient
import PagebenchHarness
import PagebenchScaleOut

/// What one run is asked to do, parsed and validated by the caller (`run`, `knee`, `baseline
/// update`, a test): the scenarios, the source they page, where the results go, and the SLOs
/// the rows are judged on. ``RunSession`` does it.
package struct RunRequest: Sendable {
    /// The scenarios, loaded, with the flags applied, checked for repeats (``checkRepeats(_:shard:)``) and labelled.
    package var scenarios: [Scenario]
    /// `--target URL`: a store served by `pagebench serve`; rows are named `SCENARIO@http`.
    package var servedStore: String?
    /// `--http-client`: the client that pages ``servedStore``.
    package var httpClient: HTTPStoreSource.Client = .lean
    /// `--target-file`: a real list API; rows are named `SCENARIO@NAME`, the built-in scenario's `NAME` (a scenario's `target`
    /// section, when every scenario has the same one, does the same without it).
    package var targetFile: String?
    /// `--ca-file`: HTTPS targets trust this PEM file instead of the system store.
    package var caFile: String?
    /// `--insecure`: HTTPS targets accept any certificate.
    package var insecure = false
    /// The results CSV (default ``PagebenchHarness/ResultWriter/defaultOutput``).
    package var output: String?
    /// A history CSV the rows are appended to.
    package var history: String?
    /// The per-second CSV.
    package var timeSeries: String?
    /// `--shard I/N`: this process runs its share of every phase and writes a shard file to
    /// ``shardDirectory`` instead of the CSV.
    package var shard: Shard?
    /// Where shard files go (`--shard-output`).
    package var shardDirectory = RunRequest.defaultShardDirectory
    /// `--start-at`: when the first phase begins (ISO 8601, UTC).
    package var startAt: String?
    /// `--workers N`: N local worker processes, their shards merged.
    package var workers: Int?
    /// The SLOs the rows are judged on; nil: neither marked nor checked (a knee step is judged
    /// by the search).
    package var objectives: RunObjectives?
    /// The shared service timer's tick in microseconds; 0 arms one timer per request.
    package var serviceTimerMicroseconds = 250
    /// `--exact-allocations`: this process must count every allocation.
    package var exactAllocations = false
    /// `--count-instructions`: each phase runs once more under callgrind first.
    package var countInstructions = false
    /// In the process `--count-instructions` runs under valgrind: callgrind's output file.
    package var instructionDumps: String?
    /// No progress, notes or summary; errors only.
    package var quiet = false
    /// Watches the phases in this process (a test's marker, a progress view) instead of the
    /// progress lines on standard error; nil: those lines, unless ``quiet``.
    package var observer: (any PhaseObserver)?

    /// `--metrics-listen HOST:PORT`: serve live metrics at `/metrics` (docs/live-metrics.md);
    /// a shard `I/N` listens on PORT + I (PORT 0: any free port, printed).
    package var metricsListen: String?
    /// `--metrics-linger`: seconds the server keeps answering after the run.
    package var metricsLingerSeconds: Double = 0
    /// `--metrics-interval`: seconds between remote-write pushes.
    package var metricsIntervalSeconds: Double = 5
    /// `--remote-write URL`: push the live metrics with Prometheus remote write 1.0.
    package var remoteWrite: String?
    /// Live metrics a caller keeps across several sessions (`knee`'s steps); nil: the
    /// session starts its own from the fields above.
    package var liveMetrics: LiveMetricsSession?

    /// The default `--shard-output`.
    package static let defaultShardDirectory = "results/shards"

    package init(scenarios: [Scenario]) {
        self.scenarios = scenarios
    }

    /// The options that are not part of a scenario, as arguments for another `pagebench run`
    /// of the same scenarios (a worker's, or the callgrind run of `--count-instructions`).
    package var passedOnOptions: [String] {
        var options = ["--service-timer-microseconds", String(serviceTimerMicroseconds)]
        if let servedStore { options += ["--target", servedStore, "--http-client", httpClient.rawValue] }
        if let targetFile { options += ["--target-file", targetFile] }
        if let caFile { options += ["--ca-file", caFile] }
        if insecure { options += ["--insecure"] }
        // The process inherits MALLOC_CONF=tcache:false from this re-executed one; the flag
        // makes it check that.
        if exactAllocations { options += [ExactAllocations.flag] }
        return options
    }

    /// The live-metrics flags for worker `--shard` processes: the same address (shard I
    /// listens on PORT + I), linger, interval and remote-write URL.
    package var passedOnMetricsOptions: [String] {
        var options: [String] = []
        if let metricsListen { options += ["--metrics-listen", metricsListen] }
        if metricsListen != nil || remoteWrite != nil {
            options += [
                "--metrics-linger", "\(metricsLingerSeconds)s", "--metrics-interval", "\(metricsIntervalSeconds)s",
            ]
        }
        if let remoteWrite { options += ["--remote-write", remoteWrite] }
        return options
    }
}
