import ArgumentParser
import PagebenchEngine
import PagebenchHarness
import PagebenchReport
import PagebenchStore

/// The flags and arguments of `pagebench run`, and what they ask for as a
/// ``PagebenchEngine/RunRequest``: scenarios loaded with the flags applied, the source, the
/// outputs and the SLOs. `knee` and `baseline update` take the same after `--` and build
/// their runs' requests from it.
///
/// A `ParsableCommand` (never a subcommand) only so that `RunOptions.parse` reads these
/// groups as a command's own: a plain `ParsableArguments` is parsed inside a wrapping command,
/// one more level of nesting for swift-argument-parser's debug-build checks (``RunCommand``).
package struct RunOptions: ParsableCommand, Sendable {
    package static let configuration = CommandConfiguration(commandName: "run", shouldDisplay: false)

    /// The titles of the store, writes and workload sections of `--help`.
    static let storeTitle = "Store options (override the scenario's store)"
    static let writesTitle = "Writes during pagination (S22–S26; in-process only)"
    static let workloadTitle = "Workload options (override the scenario's workload)"

    /// The scenario arguments and `run`'s own flags.
    @OptionGroup package var flags: RunFlags

    @OptionGroup(title: RunOptions.storeTitle)
    package var store: StoreOptions

    @OptionGroup(title: RunOptions.writesTitle)
    package var writes: WriteOptions

    @OptionGroup(title: RunOptions.workloadTitle)
    package var workload: WorkloadOptions

    package init() {}

    /// The options of ``RunCommand``, which holds the same four groups itself.
    package init(flags: RunFlags, store: StoreOptions, writes: WriteOptions, workload: WorkloadOptions) {
        self.init()
        self.flags = flags
        self.store = store
        self.writes = writes
        self.workload = workload
    }

    package func validate() throws {
        do {
            try workload.check()
        } catch {
            throw ValidationError(error.message)
        }
        try flags.check()
    }

    /// The scenarios this invocation runs: files (or the default) with the flags applied.
    ///
    /// - Throws: ``PagebenchEngine/CommandError``: 66 missing file, 65 invalid scenario content, 64
    ///   when a flag makes a scenario invalid.
    package func scenarios() throws(CommandError) -> [Scenario] {
        var loaded: [Scenario]
        do {
            if flags.scenarioPaths.isEmpty {
                loaded = [.default]
            } else {
                loaded = []
                for path in try Scenario.files(expanding: flags.scenarioPaths) {
                    let scenario = try Scenario.load(path: path)
                    // Its SLOs are parsed here (the harness does not judge rows): a bad one
                    // names its file before anything runs.
                    try RunObjectives.check(scenario, file: path)
                    loaded.append(scenario)
                }
            }
        } catch {
            throw CommandError(wrapping: error)
        }
        var fromConfigFile: StoreConfiguration?
        if store.configFile != nil {
            do {
                fromConfigFile = try store.configuration(writes: writes)
            } catch {
                throw error
            }
        }
        var planned: [RunSession.Planned] = []
        var processes = flags.workers ?? 1
        if flags.workers == nil, let shard = try flags.parsedShard() { processes = shard.count }
        let sweep: [WorkloadOptions]
        do {
            sweep = try workload.sweep()
        } catch {
            throw .usage(error.message)
        }
        // `--limit 10,100` and the like run every loaded scenario at every point (issue 26).
        for (file, loadedScenario) in loaded.enumerated() {
            for point in sweep {
                try planned.append(
                    .init(
                        configure(loadedScenario, point, fromConfigFile: fromConfigFile, processes: processes),
                        file: file
                    )
                )
            }
        }
        return try RunSession.scenarios(planned, sharded: flags.shard != nil)
    }

    /// One scenario of the run: `scenario` with the store flags (or `--config`) and one point
    /// of the workload sweep applied, validated.
    private func configure(
        _ loaded: Scenario,
        _ point: WorkloadOptions,
        fromConfigFile: StoreConfiguration?,
        processes: Int
    ) throws(CommandError) -> Scenario {
        var scenario = loaded
        if let fromConfigFile {
            scenario.store = fromConfigFile
        } else {
            do {
                try store.applyFlags(to: &scenario.store)
                try writes.applyFlags(to: &scenario.store)
            } catch {
                throw .usage(error.message)
            }
        }
        do {
            try point.apply(to: &scenario.workload)
            try scenario.validate()
        } catch {
            // The file was valid on its own: the flags made it invalid.
            throw CommandError(error.asArgumentError())
        }
        do {
            // Each process of the run holds its share of the pagers' histograms (issue 24).
            // Against a target each pager has a connection of its own.
            try scenario.workload.checkMemory(
                processes: processes,
                remote: flags.target != nil || flags.targetFile != nil
            )
        } catch {
            throw .usage("scenario '\(scenario.name)': " + error.message)
        }
        return scenario
    }

    /// What this invocation asks the engine to do: the scenarios, source, outputs and SLOs.
    ///
    /// - Parameter judgingObjectives: false: the SLOs (`--slo`, a scenario's `slo`) are
    ///   neither marked on the rows nor checked.
    package func request(judgingObjectives: Bool = true) throws(CommandError) -> RunRequest {
        let scenarios = try self.scenarios()
        var request = RunRequest(scenarios: scenarios)
        // Every `--slo` on every row, each scenario's `slo` on its rows.
        if judgingObjectives {
            request.objectives = try RunObjectives(
                flags: flags.sloExpressions,
                scenarios: flags.noScenarioSLO ? [] : scenarios
            )
        }
        request.servedStore = flags.target
        request.httpClient = flags.httpClient.client
        request.targetFile = flags.targetFile
        request.caFile = flags.caFile
        request.insecure = flags.insecure
        request.output = flags.output
        request.history = flags.history
        request.timeSeries = flags.timeseries
        request.metricsListen = flags.metricsListen
        request.metricsLingerSeconds = flags.metricsLinger
        request.metricsIntervalSeconds = flags.metricsInterval
        request.remoteWrite = flags.remoteWrite
        request.shard = try flags.parsedShard()
        request.shardDirectory = flags.shardOutput
        request.startAt = flags.startAt
        request.workers = flags.workers
        request.serviceTimerMicroseconds = flags.serviceTimerMicroseconds
        request.exactAllocations = flags.exactAllocations
        request.countInstructions = flags.countInstructions
        request.instructionDumps = flags.instructionDumps
        request.quiet = flags.quiet
        return request
    }

}
