import ArgumentParser
import PagebenchEngine
import PagebenchHarness
import PagebenchReport
import PagebenchStore

/// The flags and arguments of `pagebench run`, and what they ask for as a
/// ``PagebenchEngine/RunRequest``: scenarios loaded with the flags applied, the source, the
/// outputs and the SLOs. `knee` and `baseline update` take the same after `--` and build
/// their runs' requests from it.
public struct RunOptions: ParsableArguments, Sendable {
    @Argument(help: ArgumentHelp("Scenario files or directories of them (default: the built-in default scenario).", valueName: "scenario"))
    public var scenarioPaths: [String] = []

    @OptionGroup(title: "Store options (override the scenario's store)")
    public var store: StoreOptions

    @OptionGroup(title: "Writes during pagination (S22–S26; in-process only)")
    public var writes: WriteOptions

    @OptionGroup(title: "Workload options (override the scenario's workload)")
    public var workload: WorkloadOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Where to write the results CSV (atomically; default results/latest.csv).", valueName: "file"))
    public var output: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Also append the rows to this history CSV.", valueName: "file"))
    public var history: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Write per-second rows (pages/s, page latency p99, memory) to this CSV.", valueName: "file"))
    public var timeseries: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Page a store served by `pagebench serve` at this URL (http://host:port) instead of an in-process one; rows are named SCENARIO@http.",
            valueName: "url"))
    public var target: String?

    @Option(parsing: .unconditional, help: HTTPClientOption.help)
    public var httpClient: HTTPClientOption = .lean

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Page a real list API described by this target file (kinds dynamodb, http, graphql; docs/file-formats.md); rows are named SCENARIO@NAME. Its timeoutSeconds bounds each whole request, connect to last byte; known secrets (header values from ${VAR}, AWS keys) are masked in everything printed or written; the first-page check and warm-ups are counted apart from the rows.",
            valueName: "file"))
    public var targetFile: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("HTTPS targets: trust the certificates in this PEM file instead of the system store.", valueName: "file"))
    public var caFile: String?

    @Flag(help: "HTTPS targets: accept any certificate and host name (self-signed test servers only).")
    public var insecure = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Tick of the shared timer that waits out injected service times, in microseconds (delays round up to it); 0 arms one runtime timer per request.",
            valueName: "us"))
    public var serviceTimerMicroseconds: Int = 250

    @Flag(
        help: "Count allocations exactly (allocation_counting=exact): run with jemalloc's thread caches off, which makes allocation-heavy runs slower (docs/measurement.md).")
    public var exactAllocations = false

    @Flag(
        help: "Also count instructions per page (instructions_per_page): each phase runs once more, one repetition, under valgrind's callgrind, before the measured run, which it leaves alone. It costs time (Benchmarks/Scenarios/ci at 5 repetitions: 10 to 30 s instead of 3 s on a shared 2-core machine); `pagebench check` gates the count (docs/gate.md).")
    public var countInstructions = false

    /// Set by `--count-instructions` on the process it runs under valgrind: callgrind's output file.
    @Option(name: .customLong("instruction-dumps"), parsing: .unconditional, help: .hidden)
    var instructionDumps: String?

    @Flag(help: "No progress output and no summary table; errors only.")
    public var quiet = false

    @Flag(help: "Print the effective scenarios as JSON and exit without running.")
    public var printScenarios = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Run only shard I of N (0 ≤ I < N) of every phase and write a shard file to --shard-output instead of the CSV.",
            valueName: "I/N"))
    public var shard: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Begin the first phase at this UTC time, ISO 8601 (2026-11-22T10:00:00Z); up to 5 s late starts at once.",
            valueName: "time"))
    public var startAt: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Directory for shard files (shard-I-of-N.json).", valueName: "dir"))
    public var shardOutput: String = RunRequest.defaultShardDirectory

    @Option(parsing: .unconditional, help: ArgumentHelp("Run N local worker processes (shards 0/N … N-1/N), wait, and merge their shards.", valueName: "N"))
    public var workers: Int?

    @Option(
        name: .customLong("slo"),
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "A service-level objective every row must meet, COLUMN<BOUND (also <=, >, >=) with units: page_latency_p99_ns<5ms, drain_latency_corrected_p99_ns<200ms, error_rate<0.1%. Repeatable.",
            valueName: "expr"))
    public var sloExpressions: [String] = []

    @Flag(
        name: .customLong("no-scenario-slo"),
        help: "Do not judge rows on their scenarios' slo lists (each --slo still applies).")
    public var noScenarioSLO = false

    public init() {}

    public func validate() throws {
        do {
            try workload.check()
        } catch {
            throw ValidationError(error.message)
        }
        guard serviceTimerMicroseconds == 0 || (10...1_000_000).contains(serviceTimerMicroseconds) else {
            throw ValidationError(
                "--service-timer-microseconds must be 0 (one timer per request) or 10...1000000, got \(serviceTimerMicroseconds)")
        }
        for path in [output, history, timeseries].compactMap({ $0 }) where path.isEmpty || path.hasSuffix("/") {
            throw ValidationError("'\(path)' is not a file path; give a file name such as results/latest.csv")
        }
        try validateScaleOut()
        try httpClient.validate()
        do {
            _ = try ServiceLevelObjective.parseAll(sloExpressions)
        } catch {
            throw ValidationError(error.message)
        }
        if shard != nil && !sloExpressions.isEmpty {
            // A shard writes a shard file, not rows: its share of a phase is not the phase.
            throw ValidationError("--slo does not apply to --shard: judge the merged rows (`pagebench merge`, or --workers N)")
        }
        if countInstructions, workers != nil || shard != nil {
            throw ValidationError(
                "--count-instructions does not apply to --workers or --shard: count instructions in one process")
        }
        if targetFile != nil, target != nil {
            throw ValidationError("--target-file and --target exclude each other: --target is for a `pagebench serve`")
        }
        if (caFile != nil || insecure), target != nil {
            throw ValidationError("--ca-file and --insecure apply to --target-file targets")
        }
    }

    /// The scenarios this invocation runs: files (or the default) with the flags applied.
    ///
    /// - Throws: ``PagebenchEngine/RunError``: 66 missing file, 65 invalid scenario content, 64
    ///   when a flag makes a scenario invalid.
    public func scenarios() throws(RunError) -> [Scenario] {
        var loaded: [Scenario]
        do {
            if scenarioPaths.isEmpty {
                loaded = [.default]
            } else {
                loaded = []
                for path in try Scenario.files(expanding: scenarioPaths) {
                    let scenario = try Scenario.load(path: path)
                    // Its SLOs are parsed here (the harness does not judge rows): a bad one
                    // names its file before anything runs.
                    try RunObjectives.check(scenario, file: path)
                    loaded.append(scenario)
                }
            }
        } catch {
            throw RunError(wrapping: error)
        }
        var fromConfigFile: StoreConfiguration?
        if store.configFile != nil {
            do {
                fromConfigFile = try store.configuration(writes: writes)
            } catch {
                throw RunError(error)
            }
        }
        var planned: [RunSession.Planned] = []
        var processes = workers ?? 1
        if workers == nil, let shard = try parsedShard() { processes = shard.count }
        let sweep: [WorkloadOptions]
        do {
            sweep = try workload.sweep()
        } catch {
            throw .invalidRequest(error.message)
        }
        // `--limit 10,100` and the like run every loaded scenario at every point (issue 26).
        for (file, loadedScenario) in loaded.enumerated() {
            for point in sweep {
                try planned.append(.init(configure(loadedScenario, point, fromConfigFile: fromConfigFile, processes: processes), file: file))
            }
        }
        return try RunSession.scenarios(planned, sharded: shard != nil)
    }

    /// One scenario of the run: `scenario` with the store flags (or `--config`) and one point
    /// of the workload sweep applied, validated.
    private func configure(
        _ loaded: Scenario, _ point: WorkloadOptions, fromConfigFile: StoreConfiguration?, processes: Int
    ) throws(RunError) -> Scenario {
        var scenario = loaded
        if let fromConfigFile {
            scenario.store = fromConfigFile
        } else {
            do {
                try store.applyFlags(to: &scenario.store)
                try writes.applyFlags(to: &scenario.store)
            } catch {
                throw .invalidRequest(error.message)
            }
        }
        do {
            try point.apply(to: &scenario.workload)
            try scenario.validate()
        } catch {
            // The file was valid on its own: the flags made it invalid.
            throw RunError(error.asArgumentError())
        }
        do {
            // Each process of the run holds its share of the pagers' histograms (issue 24).
            try scenario.workload.checkMemory(processes: processes)
        } catch {
            throw .invalidRequest("scenario '\(scenario.name)': " + error.message)
        }
        return scenario
    }

    /// What this invocation asks the engine to do: the scenarios, source, outputs and SLOs.
    ///
    /// - Parameter judgingObjectives: false: the SLOs (`--slo`, a scenario's `slo`) are
    ///   neither marked on the rows nor checked.
    public func request(judgingObjectives: Bool = true) throws(RunError) -> RunRequest {
        let scenarios = try self.scenarios()
        var request = RunRequest(scenarios: scenarios)
        // Every `--slo` on every row, each scenario's `slo` on its rows.
        if judgingObjectives { request.objectives = try RunObjectives(flags: sloExpressions, scenarios: noScenarioSLO ? [] : scenarios) }
        request.servedStore = target
        request.httpClient = httpClient.client
        request.targetFile = targetFile
        request.caFile = caFile
        request.insecure = insecure
        request.output = output
        request.history = history
        request.timeSeries = timeseries
        request.shard = try parsedShard()
        request.shardDirectory = shardOutput
        request.startAt = startAt
        request.workers = workers
        request.serviceTimerMicroseconds = serviceTimerMicroseconds
        request.exactAllocations = exactAllocations
        request.countInstructions = countInstructions
        request.instructionDumps = instructionDumps
        request.quiet = quiet
        return request
    }

}
