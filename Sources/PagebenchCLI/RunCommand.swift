import ArgumentParser
import PagebenchEngine
import PagebenchHarness

#if canImport(Glibc)
import Glibc
#endif

/// `pagebench run`: runs scenarios (the built-in default without arguments) through the load
/// harness and writes one CSV row per scenario × concurrency × repetition.
///
/// Thin wiring: the flags (``RunOptions``) make a ``PagebenchEngine/RunRequest``, which
/// ``PagebenchEngine/RunSession`` runs.
package struct RunCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run benchmark scenarios: many pagers against the synthetic store; results as CSV.",
        discussion: """
            Without SCENARIO arguments runs the built-in default scenario (identical to \
            Benchmarks/Scenarios/default.json). A directory argument runs every *.json file in it. \
            Store flags override the scenario's store; workload flags override its workload. \
            --limit, --filter and --read take comma-separated lists and run their cross product (a sweep: \
            --limit 10,100 --filter none,category=0 is four configurations; at most 1000). Every row carries a label: the \
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

    // The four groups of ``RunOptions``, held here side by side rather than as one
    // `@OptionGroup var options: RunOptions`: in a debug build swift-argument-parser checks a
    // command's declarations on every parse, and rebuilds each nested group once per check, so
    // its cost grows about fourfold with each level of nesting, a cost every CLI test and
    // every debug `pagebench run` pays (results/build-times.md; `OptionNestingTests`).

    /// The scenario arguments and `run`'s own flags.
    @OptionGroup package var flags: RunFlags

    @OptionGroup(title: RunOptions.storeTitle)
    package var store: StoreOptions

    @OptionGroup(title: RunOptions.writesTitle)
    package var writes: WriteOptions

    @OptionGroup(title: RunOptions.workloadTitle)
    package var workload: WorkloadOptions

    /// Every flag and argument of `run`: also what `knee` and `baseline update` take after `--`.
    package var options: RunOptions { RunOptions(flags: flags, store: store, writes: writes, workload: workload) }

    package init() {}

    package func validate() throws {
        try options.validate()
    }

    package func run() async throws {
        var standardOutput = StandardOutput()
        do {
            if flags.exactAllocations { try ExactAllocations.reexecuteIfAsked(by: [ExactAllocations.flag]) }
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

    /// Runs the scenarios (``PagebenchEngine/RunSession``), writes the files, prints the
    /// summary table to `output`; `--print-scenarios` prints the effective scenarios instead.
    ///
    /// - Parameters:
    ///   - workerExecutable: `--workers`: the executable workers run (default: this one).
    ///   - workerLaunched: `--workers`: called with each worker's index and process id.
    ///   - interruption: stops the run early (H6; `run()` requests it on SIGINT or SIGTERM):
    ///     what was measured is written, the cut-short phase marked partial, and this throws
    ///     exit status 128 + the signal.
    ///   - judgingObjectives: false: the SLOs (`--slo`, a scenario's `slo`) are neither marked
    ///     on the rows nor checked.
    @discardableResult
    package func execute(
        into out: inout some TextOutputStream,
        workerExecutable: String? = nil,
        workerLaunched: @escaping @Sendable (Int, Int32) -> Void = { _, _ in },
        interruption: Interruption? = nil,
        judgingObjectives: Bool = true
    ) async throws(CommandError) -> SweepRunner.Output {
        let request: RunRequest
        do {
            request = try options.request(judgingObjectives: judgingObjectives)
        } catch {
            throw error
        }
        if flags.printScenarios {
            Self.printEffective(request.scenarios, into: &out)
            return SweepRunner.Output(rows: [], results: [], timeSeries: [])
        }
        var session = RunSession(request, interruption: interruption)
        session.workerExecutable = workerExecutable
        session.workerLaunched = workerLaunched
        do {
            return try await session.run(into: &out)
        } catch {
            throw error
        }
    }

    /// `--print-scenarios`: the effective scenarios as JSON, instead of running them.
    static func printEffective(_ scenarios: [Scenario], into out: inout some TextOutputStream) {
        for var scenario in scenarios {
            // A label that is only the name says nothing the name does not; printed, it
            // would outlive an edit of the name in the printed file and hide it.
            if scenario.label == scenario.name { scenario.label = nil }
            out.write((try? scenario.jsonText()) ?? "")
        }
    }
}
