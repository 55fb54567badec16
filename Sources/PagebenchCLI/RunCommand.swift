import ArgumentParser
import Foundation
import PagebenchHTTP
import PagebenchHarness
import PagebenchMetrics
import PagebenchPage
import PagebenchReport
import PagebenchScaleOut
import PagebenchStore
import PagebenchTargets

#if canImport(Glibc)
import Glibc
#endif

/// `pagebench run`: runs scenarios (the built-in default without arguments) through the load
/// harness and writes one CSV row per scenario × concurrency × repetition.
///
/// Thin wiring: parsing and validation here, everything else in `PagebenchHarness`.
public struct RunCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run benchmark scenarios: many pagers against the synthetic store; results as CSV.",
        discussion: """
            Without SCENARIO arguments runs the built-in default scenario (identical to \
            Benchmarks/Scenarios/default.json). A directory argument runs every *.json file in it. \
            Store flags override the scenario's store; workload flags override its workload. \
            --limit, --filter and --read take comma-separated lists and run their cross product (a sweep: \
            --limit 10,100 --filter none,category=0 is four configurations). Every row carries a label: the \
            scenario's label, else what sets it apart from the other rows of the run (limit=100 filter=category=0). \
            --shard I/N runs this process's share of every phase and writes a shard file instead of \
            the CSV (merge the shards with `pagebench merge`); --workers N runs N local shards as \
            processes and merges them. \
            --slo bounds a column of every row (page_latency_p99_ns<5ms, error_rate<0.1%); a run that \
            breaks one writes its results, names the bound, the row and by how much, and exits 99. \
            --target-file FILE (or a scenario's target section) pages a real API instead; a phase in which \
            no drain ended is a failed phase (T6). \
            Exit codes: 0 success, 64 invalid flags, 65 invalid scenario, target or shard file, 66 missing file, \
            69 target unreachable or a phase in which it answered no page or ended no drain (its rows written), 71 a worker process failed, 73 output not writable, \
            99 an SLO broke.
            """
    )

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
    public var shardOutput: String = RunCommand.defaultShardDirectory

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

    /// After the results are written: exit 99 naming every bound a row broke.
    func checkObjectives(_ rows: [ResultRow], _ objectives: RunObjectives?, into out: inout some TextOutputStream) throws(CommandFailure) {
        guard let objectives, !objectives.isEmpty else { return }
        if !quiet {
            for note in objectives.notApplicable(in: rows) { out.write(note + "\n") }
        }
        let violations = objectives.violations(in: rows)
        guard violations.isEmpty else {
            throw CommandFailure(
                ExitCodes.sloBroken,
                "\(violations.count) SLO violation\(violations.count == 1 ? "" : "s") (results were written):\n  "
                    + violations.joined(separator: "\n  "))
        }
        if !quiet {
            let applied = objectives.applied(in: rows)
            out.write(
                applied.isEmpty
                    ? "no SLO applied to any row\n"
                    : "every SLO held on every row: \(applied.map(\.description).joined(separator: ", "))\n")
        }
    }

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

    public func run() async throws {
        var standardOutput = StandardOutput()
        do {
            if exactAllocations { try ExactAllocations.reexecuteIfAsked(by: [ExactAllocations.flag]) }
            let interruption = Interruption()
            _ = try await SignalTrap.run(interruption) {
                try await execute(into: &standardOutput, interruption: interruption)
            }
            try standardOutput.finish()
        } catch {
            standardOutput.flush()
            throw error.report()
        }
    }

    /// The scenarios this invocation runs: files (or the default) with the flags applied.
    ///
    /// - Throws: ``CommandFailure``: 66 missing file, 65 invalid scenario content, 64 when a
    ///   flag makes a scenario invalid.
    public func scenarios() throws(CommandFailure) -> [Scenario] {
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
        } catch let error as HarnessError {
            throw CommandFailure(error)
        } catch {
            throw CommandFailure(wrapping: error)
        }
        var fromConfigFile: StoreConfiguration?
        if store.configFile != nil { fromConfigFile = try store.configuration(writes: writes) }
        var scenarios: [(scenario: Scenario, file: Int, name: String)] = []
        var processes = workers ?? 1
        if workers == nil, let shard = try parsedShard() { processes = shard.count }
        let sweep: [WorkloadOptions]
        do {
            sweep = try workload.sweep()
        } catch {
            throw CommandFailure(ExitCodes.usage, error.message)
        }
        // `--limit 10,100` and the like run every loaded scenario at every point (issue 26).
        for (file, loadedScenario) in loaded.enumerated() {
            for point in sweep {
                try scenarios.append(configure(loadedScenario, point, file: file, fromConfigFile: fromConfigFile, processes: processes))
            }
        }
        for (index, scenario) in scenarios.enumerated() {
            // A shard (a `--workers` worker) gets each point of a sweep as a file of its own:
            // there only the same configuration twice is refused.
            let clash = { (earlier: (scenario: Scenario, file: Int, name: String)) -> Bool in
                earlier.name == scenario.name && earlier.file != scenario.file
                    && (self.shard == nil || earlier.scenario.configurationHash == scenario.scenario.configurationHash)
            }
            if let earlier = scenarios[..<index].first(where: clash) {
                // Their rows would share identities (scenario, configuration, pager, concurrency).
                throw CommandFailure(
                    ExitCodes.usage,
                    "scenario '\(scenario.name)' is given twice\(earlier.scenario.store == scenario.scenario.store ? "" : " (with different stores)"); "
                        + "give each scenario once (use --repetitions to repeat it), or rename one")
            }
        }
        // Each row says which configuration it measured in words (issue 26).
        return Scenario.labelled(scenarios.map(\.scenario))
    }

    /// One scenario of the run: `scenario` with the store flags (or `--config`) and one point
    /// of the workload sweep applied, validated.
    private func configure(
        _ loaded: Scenario, _ point: WorkloadOptions, file: Int, fromConfigFile: StoreConfiguration?, processes: Int
    ) throws(CommandFailure) -> (scenario: Scenario, file: Int, name: String) {
        var scenario = loaded
        if let fromConfigFile {
            scenario.store = fromConfigFile
        } else {
            do {
                try store.applyFlags(to: &scenario.store)
                try writes.applyFlags(to: &scenario.store)
            } catch {
                throw CommandFailure(ExitCodes.usage, error.message)
            }
        }
        do {
            try point.apply(to: &scenario.workload)
            try scenario.validate()
        } catch {
            // The file was valid on its own: the flags made it invalid.
            throw CommandFailure(error.asArgumentError())
        }
        do {
            // Each process of the run holds its share of the pagers' histograms (issue 24).
            try scenario.workload.checkMemory(processes: processes)
        } catch {
            throw CommandFailure(ExitCodes.usage, "scenario '\(scenario.name)': " + error.message)
        }
        return (scenario, file, scenario.name)
    }

    /// Runs the scenarios, writes the files, prints the summary table to `output`.
    ///
    /// - Parameters:
    ///   - workerExecutable: `--workers`: the executable workers run (default: this one).
    ///   - workerLaunched: `--workers`: called with each worker's index and process id.
    ///   - interruption: stops the run early (H6; `run()` requests it on SIGINT or SIGTERM):
    ///     what was measured is written, the cut-short phase marked partial, and this throws
    ///     exit status 128 + the signal.
    ///   - judgingObjectives: false: the SLOs (`--slo`, a scenario's `slo`) are neither marked
    ///     on the rows nor checked; `knee` judges its steps itself.
    @discardableResult
    public func execute(
        into out: inout some TextOutputStream, workerExecutable: String? = nil,
        workerLaunched: @Sendable (Int, Int32) -> Void = { _, _ in }, interruption: Interruption? = nil,
        judgingObjectives: Bool = true
    ) async throws(CommandFailure) -> SweepRunner.Output {
        var scenarios = try self.scenarios()
        // Every `--slo` on every row, each scenario's `slo` on its rows.
        let objectives = judgingObjectives ? try RunObjectives(flags: sloExpressions, scenarios: noScenarioSLO ? [] : scenarios) : nil
        if printScenarios {
            for var scenario in scenarios {
                // A label that is only the name says nothing the name does not; printed, it
                // would outlive an edit of the name in the printed file and hide it.
                if scenario.label == scenario.name { scenario.label = nil }
                out.write((try? scenario.jsonText()) ?? "")
            }
            return SweepRunner.Output(rows: [], results: [], timeSeries: [])
        }
        if workers != nil || shard != nil { try Self.checkShardable(scenarios) }
        try ExactAllocations.check(asked: exactAllocations)
        // Every output path is checked before anything is measured, not after an hour.
        let shardFile = try parsedShard().map { LocalWorkers.shardPath(directory: shardOutput, shard: $0) }
        do {
            if let shardFile {
                try ResultWriter.checkWritable(output: nil, history: nil, timeSeries: timeseries, shardFile: shardFile)
            } else {
                try ResultWriter.checkWritable(
                    output: output ?? ResultWriter.defaultOutput, history: history, timeSeries: workers == nil ? timeseries : nil)
            }
        } catch {
            throw CommandFailure(error)
        }
        let realTarget = try loadRealTarget(&scenarios)
        try Self.checkWrites(
            scenarios, workers: workers != nil, shard: shard != nil, target: target != nil || realTarget != nil)
        // Counted first, in a process of its own under callgrind: a machine without valgrind
        // fails before anything is measured, and the measured run is not slowed by it.
        let instructions = countInstructions ? try await self.countInstructions(scenarios, interruption: interruption) : nil
        if let workers {
            if let realTarget {
                // Fail once, here, rather than in every worker: the same checks they make.
                let source = try await connectRealTarget(realTarget, scenarios: scenarios, interruption: interruption)
                await source.shutdown()
            }
            if let target {
                // Fail once, here, rather than in every worker: the same checks they make.
                let source = try await connectTarget(target, scenarios: scenarios, interruption: interruption)
                try? await source.shutdown()
            }
            let merged = try await runWorkers(
                workers, scenarios: scenarios, objectives: objectives, into: &out, executable: workerExecutable,
                launched: workerLaunched, interruption: interruption)
            try Self.checkInterrupted(interruption, rows: merged.rows)
            if let target = realTarget?.name ?? target { try Self.checkTargetAnswered(merged.rows, target: target) }
            try checkObjectives(merged.rows, objectives, into: &out)
            return merged
        }
        let shard = try parsedShard()
        let start = try parsedStartAt()
        var context = RunContext.current(pagebenchVersion: PagebenchVersion.string)
        context.allocationCounting = ExactAllocations.counting
        var options = SweepRunner.Options(context: context)
        // The run is all this process does: a pager with a spare core may keep its thread.
        options.dedicatedPool = true
        options.shard = shard ?? .whole
        if let start { options.waitForStart = { try await start.wait() } }
        options.timeSeries = timeseries != nil
        options.interruption = interruption
        options.instructionCounter = try InstructionCounting.counter(dumps: instructionDumps)
        // Against a target that stopped answering, later phases would only measure failures.
        options.stopAfter = { $0.targetStoppedAnswering }
        options.serviceTimerResolution =
            serviceTimerMicroseconds == 0 ? nil : .microseconds(serviceTimerMicroseconds)
        var remote: HTTPStoreSource?
        var realSource: TargetSource?
        if let realTarget {
            let source = try await connectRealTarget(realTarget, scenarios: scenarios, interruption: interruption)
            realSource = source
            options.remoteSource = RemotePageSource(name: realTarget.endpoint, counters: { Self.remoteCounts(source) }) {
                try await source.page($0)
            }
            // A row measured against a real API must never be matched with an in-process one.
            for index in scenarios.indices { scenarios[index].name += "@" + realTarget.name }
        }
        if let target {
            let source = try await connectTarget(target, scenarios: scenarios, interruption: interruption)
            remote = source
            options.remoteSource = RemotePageSource(
                name: target, counters: { RemoteCounts(responses: source.statusCounts.keyedCounts) }
            ) { try await source.page($0) }
            // A row measured over HTTP must never be matched with an in-process one.
            for index in scenarios.indices { scenarios[index].name += "@http" }
        }
        if !quiet {
            let printer = ProgressPrinter(isTerminal: isatty(STDERR_FILENO) == 1) { text in
                StandardError.write(text)
            }
            options.observer = printer
            options.progressInterval = printer.preferredInterval
        }
        let harness = SweepRunner(scenarios: scenarios, options: options)
        var responses: HTTPStatusCounts?
        var result: SweepRunner.Output
        do {
            result = try await harness.run()
        } catch {
            try? await remote?.shutdown()
            await realSource?.shutdown()
            throw CommandFailure(wrapping: error)
        }
        for warning in result.results.compactMap(\.probeWarning) { StandardError.write("pagebench: warning: \(warning)\n") }
        // Rows name what they paged, so that they are never matched with in-process rows.
        for index in result.rows.indices {
            if let realTarget {
                result.rows[index].targetKind = realTarget.kind.rawValue
                result.rows[index].targetHash = realTarget.targetHash
            } else if target != nil {
                result.rows[index].targetKind = "serve"
            }
        }
        if let instructions { Self.apply(instructions: instructions, to: &result.rows) }
        if let realSource {
            await realSource.shutdown()
            responses = realSource.statusCounts
            if !quiet { out.write(Self.targetSummary(realSource, rows: result.rows)) }
        }
        if let remote {
            let counts = remote.statusCounts
            responses = counts
            try? await remote.shutdown()
            if !quiet { out.write("HTTP responses from \(remote.target): \(Self.responsesSummary(counts, rows: result.rows))\n") }
        }
        let checkAnswered = { (rows: [ResultRow]) throws(CommandFailure) in
            if let realSource {
                let detail = realSource.errorCountsByKind.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(separator: " ")
                try Self.checkTargetAnswered(
                    rows, target: realSource.target.name, detail: detail.isEmpty ? nil : detail, lastError: realSource.lastError)
            } else if let target = self.target {
                try Self.checkTargetAnswered(rows, target: target)
            }
        }
        if let shard {
            let path = try writeShard(
                result, shard: shard, startAt: start, httpResponses: responses, interrupted: interruption?.isRequested == true)
            if !quiet {
                out.write("\n" + SummaryTable.render(result.rows))
                out.write("\nwrote shard \(shard) (\(result.rows.count) phases) to \(path)\n")
            }
            try Self.checkInterrupted(interruption, rows: result.rows, wroteEmpty: true)
            try checkAnswered(result.rows)
            return result
        }
        if interruption?.isRequested == true, result.rows.isEmpty { try Self.checkInterrupted(interruption, rows: []) }
        let output = self.output ?? ResultWriter.defaultOutput
        objectives?.mark(&result.rows)
        do {
            try ResultWriter.write(result, to: output, history: history, timeSeries: timeseries)
        } catch {
            throw CommandFailure(error)
        }
        if !quiet {
            out.write("\n" + (objectives?.summaryTable(result.rows) ?? SummaryTable.render(result.rows)))
            var files = [output]
            if let history { files.append(history + " (appended)") }
            if let timeseries { files.append(timeseries) }
            out.write("\nwrote \(result.rows.count) rows to \(files.joined(separator: ", "))\n")
        }
        try Self.checkInterrupted(interruption, rows: result.rows)
        try checkAnswered(result.rows)
        try checkObjectives(result.rows, objectives, into: &out)
        return result
    }

    /// After an interruption (H6), once what was measured is written: the exit status
    /// 128 + the signal (130 for SIGINT, 143 for SIGTERM), saying what was kept.
    static func checkInterrupted(
        _ interruption: Interruption?, rows: [ResultRow], wroteEmpty: Bool = false
    ) throws(CommandFailure) {
        guard let signal = interruption?.signal else { return }
        let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)"
        let partial = rows.filter { $0.partial == 1 }.count
        let kept =
            rows.isEmpty
            ? (wroteEmpty ? "no phase had begun measuring (an empty shard was written)" : "no phase had begun measuring; nothing was written")
            : "kept \(rows.count) row\(rows.count == 1 ? "" : "s")"
                + (partial > 0 ? ", \(partial) marked partial (cut short)" : ", none cut short")
        throw CommandFailure(ExitCodes.interrupted(signal: signal), "interrupted by \(name): \(kept)")
    }
}
