import ArgumentParser
import PagebenchEngine
import PagebenchHarness
import PagebenchReport
import PagebenchTargets

/// `pagebench run`'s own flags and its scenario arguments: everything of ``RunOptions`` but the
/// store, writes and workload groups. A group of its own so that ``RunCommand`` can hold it
/// beside those groups rather than ``RunOptions`` around them (see ``RunCommand/options``).
package struct RunFlags: ParsableArguments, Sendable {
    @Argument(
        help: ArgumentHelp(
            "Scenario files or directories of them (default: the built-in default scenario).",
            valueName: "scenario"
        )
    )
    package var scenarioPaths: [String] = []

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Where to write the results CSV (atomically; default results/latest.csv).",
            valueName: "file"
        )
    )
    package var output: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Also append the rows to this history CSV.", valueName: "file"))
    package var history: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Write per-second rows (pages/s, page latency p99, memory) to this CSV, each as its second ends.",
            valueName: "file"
        )
    )
    package var timeseries: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Serve live metrics at http://HOST:PORT/metrics (Prometheus text, OpenMetrics on request) while the run goes; shard I listens on PORT+I; port 0: any free port (printed).",
            valueName: "host:port"
        )
    )
    package var metricsListen: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Keep serving the final metrics this long after the run: 30s, 2m (default 0).",
            valueName: "duration"
        ),
        transform: DurationOption.seconds("--metrics-linger")
    )
    package var metricsLinger: Double = 0

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Push live metrics with Prometheus remote write 1.0 to this URL (http://HOST:PORT/api/v1/write).",
            valueName: "url"
        )
    )
    package var remoteWrite: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How often --remote-write pushes (also at each phase's end and the run's): 5s by default.",
            valueName: "duration"
        ),
        transform: DurationOption.seconds("--metrics-interval")
    )
    package var metricsInterval: Double = 5

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Page a store served by `pagebench serve` at this URL (http://host:port) instead of an in-process one; rows are named SCENARIO@http.",
            valueName: "url"
        )
    )
    package var target: String?

    @Option(parsing: .unconditional, help: HTTPClientOption.help)
    package var httpClient: HTTPClientOption = .lean

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Page a real list API described by this target file (kinds \(Target.Kind.names); docs/file-formats.md); rows are named SCENARIO@NAME (the built-in scenario's by NAME) and say only what was sent to the API. Its timeoutSeconds bounds each whole request, connect to last byte; known secrets (header values from ${VAR}, AWS keys) are masked in everything printed or written; the first-page check and warm-ups are counted apart from the rows.",
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

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Tick of the shared timer that waits out injected service times, in microseconds (delays round up to it); 0 arms one runtime timer per request.",
            valueName: "us"
        )
    )
    package var serviceTimerMicroseconds: Int = 250

    @Flag(
        help:
            "Count allocations exactly (allocation_counting=exact): run with jemalloc's thread caches off, which makes allocation-heavy runs slower (docs/measurement.md)."
    )
    package var exactAllocations = false

    @Flag(
        help:
            "Also count instructions per page (instructions_per_page): each phase runs once more, one repetition, under valgrind's callgrind, before the measured run, which it leaves alone. It costs time (Benchmarks/Scenarios/ci at 5 repetitions: 10 to 30 s instead of 3 s on a shared 2-core machine); `pagebench check` gates the count (docs/gate.md)."
    )
    package var countInstructions = false

    /// Set by `--count-instructions` on the process it runs under valgrind: callgrind's output file.
    @Option(name: .customLong("instruction-dumps"), parsing: .unconditional, help: .hidden)
    var instructionDumps: String?

    @Flag(help: "No progress output and no summary table; errors only.")
    package var quiet = false

    @Flag(help: "Print the effective scenarios as JSON and exit without running.")
    package var printScenarios = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Run only shard I of N (0 ≤ I < N) of every phase and write a shard file to --shard-output instead of the CSV.",
            valueName: "I/N"
        )
    )
    package var shard: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Begin the first phase at this UTC time, ISO 8601 (2026-11-22T10:00:00Z); up to 5 s late starts at once.",
            valueName: "time"
        )
    )
    package var startAt: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Directory for shard files (shard-I-of-N.json).", valueName: "dir")
    )
    package var shardOutput: String = RunRequest.defaultShardDirectory

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Run N local worker processes (shards 0/N … N-1/N), wait, and merge their shards.",
            valueName: "N"
        )
    )
    package var workers: Int?

    @Option(
        name: .customLong("slo"),
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "A service-level objective every row must meet, COLUMN<BOUND (also <=, >, >=) with units: page_latency_p99_ns<5ms, drain_latency_corrected_p99_ns<200ms, error_rate<0.1%. Repeatable.",
            valueName: "expr"
        )
    )
    package var sloExpressions: [String] = []

    @Flag(
        name: .customLong("no-scenario-slo"),
        help: "Do not judge rows on their scenarios' slo lists (each --slo still applies)."
    )
    package var noScenarioSLO = false

    package init() {}

    /// The live-metrics flags (exit 64).
    func checkLiveMetrics() throws {
        if let metricsListen {
            guard let colon = metricsListen.lastIndex(of: ":"), colon != metricsListen.startIndex,
                let port = Int(metricsListen[metricsListen.index(after: colon)...]), (0...65_535).contains(port)
            else {
                throw ValidationError("--metrics-listen '\(metricsListen)' is not HOST:PORT, e.g. 127.0.0.1:9464")
            }
        }
        if let remoteWrite, !(remoteWrite.hasPrefix("http://") || remoteWrite.hasPrefix("https://")) {
            throw ValidationError("--remote-write '\(remoteWrite)' is not an http:// or https:// URL")
        }
        guard metricsInterval >= 0.1, metricsInterval <= 3600 else {
            throw ValidationError("--metrics-interval must be between 100ms and 1h, got \(metricsInterval)s")
        }
        guard metricsLinger >= 0, metricsLinger <= 86_400 else {
            throw ValidationError("--metrics-linger must be between 0 and 24h, got \(metricsLinger)s")
        }
    }

    /// The checks of these flags alone and against each other (exit 64); ``RunOptions/validate()``
    /// runs them after the workload's. Not `validate()`, which the parser would call on its own,
    /// before the workload's checks.
    func check() throws {
        guard serviceTimerMicroseconds == 0 || (10...1_000_000).contains(serviceTimerMicroseconds) else {
            throw ValidationError(
                "--service-timer-microseconds must be 0 (one timer per request) or 10...1000000, got \(serviceTimerMicroseconds)"
            )
        }
        for path in [output, history, timeseries].compactMap({ $0 }) where path.isEmpty || path.hasSuffix("/") {
            throw ValidationError("'\(path)' is not a file path; give a file name such as results/latest.csv")
        }
        try checkLiveMetrics()
        try validateScaleOut()
        try httpClient.validate()
        do {
            _ = try ServiceLevelObjective.parseAll(sloExpressions)
        } catch {
            throw ValidationError(error.message)
        }
        if shard != nil && !sloExpressions.isEmpty {
            // A shard writes a shard file, not rows: its share of a phase is not the phase.
            throw ValidationError(
                "--slo does not apply to --shard: judge the merged rows (`pagebench merge`, or --workers N)"
            )
        }
        if countInstructions, workers != nil || shard != nil {
            throw ValidationError(
                "--count-instructions does not apply to --workers or --shard: count instructions in one process"
            )
        }
        if targetFile != nil, target != nil {
            throw ValidationError("--target-file and --target exclude each other: --target is for a `pagebench serve`")
        }
        if caFile != nil || insecure, target != nil {
            throw ValidationError("--ca-file and --insecure apply to --target-file targets")
        }
    }
}
