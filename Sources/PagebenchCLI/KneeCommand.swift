import ArgumentParser
import Foundation
import PagebenchBase
import PagebenchEngine
import PagebenchHarness
import PagebenchMetrics
import PagebenchReport

/// `pagebench knee`: the highest open-loop arrival rate at which every SLO holds over a
/// whole step and the step starts at least `--min-achieved` of the drains it offers (docs/contract.md H5;
/// ``KneeSearch/Verdict``), found by doubling from `--from` and then bisecting to
/// `--resolution`.
///
/// Thin wiring: ``KneeSearch`` decides the rates, each step is one `pagebench run` phase
/// (open-fixed at that rate, `--duration` of one step, one repetition) with the arguments
/// after `--` passed through, so a step runs wherever `run` can: in-process, against
/// `--target`, or over `--workers` (its shards merged before the SLO is judged).
package struct KneeCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "knee",
        abstract: "Find the highest arrival rate (drains/s) at which the SLOs hold: step up, then bisect (H5).",
        discussion: """
            Each step runs the scenario open-loop at a fixed rate for --step-duration seconds on \
            --pagers slots and judges its row against every --slo and the scenario's slo list; it \
            holds when they hold and it started at least --min-achieved of the drains it offered \
            (drains + cancellations against target_drains_per_s × target_duration_s). Judge latency on drain_latency_corrected_* (from the \
            intended start): uncorrected drain and page latency hide the queue (coordinated \
            omission) and find a knee that is too high, so they are refused. \
            Arguments after `--` go to every step's `pagebench run` (store and workload flags, \
            --target URL, --workers N, --service-timer-microseconds). Every step's row goes to \
            --output; the table and the knee are printed. \
            Exit codes: 0 a knee was found (or the SLOs held up to --max-rate), 64 invalid flags, \
            65 invalid scenario, 66 missing file, 69 target unavailable, 73 output not writable, \
            99 the SLOs held at no rate tried.
            """
    )

    @Argument(help: ArgumentHelp("A scenario file (default: the built-in default scenario).", valueName: "scenario"))
    package var scenarioPath: String?

    @Option(
        name: .customLong("slo"),
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "A service-level objective each step must meet, e.g. drain_latency_corrected_p99_ns<200ms or error_rate<0.1%. Repeatable; added to the scenario's slo list; at least one in all.",
            valueName: "expr"
        )
    )
    package var sloExpressions: [String] = []

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The first rate in drains per second, 500/s or 500 (0.001 to 10000000, what a step's run takes).",
            valueName: "rate"
        ),
        transform: RateOption.drainsPerSecond("--from")
    )
    package var from: Double = 10

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Never step above this rate, 5000/s or 5000 (default: --from × 2^20, at most 10000000).",
            valueName: "rate"
        ),
        transform: RateOption.drainsPerSecond("--max-rate")
    )
    package var maxRate: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Stop bisecting when the held and broken rates are this close: 5% or 0.05.",
            valueName: "fraction"
        )
    )
    package var resolution: String = "5%"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "A step holds only if it started at least this fraction of the drains it offered (drains + cancellations): 95% or 0.95; 0 judges on the SLOs alone.",
            valueName: "fraction"
        )
    )
    package var minAchieved: String = "95%"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("How long each step runs: 10s, 500ms (a bare number is seconds).", valueName: "duration"),
        transform: DurationOption.seconds("--step-duration")
    )
    package var stepDuration: Double = 10

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Pager slots of every step (open loop: at most this many drains at once).", valueName: "n")
    )
    package var pagers: Int = 64

    @Option(parsing: .unconditional, help: "Give up after this many steps.")
    package var maxSteps: Int = 40

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Where to write every step's row (CSV; atomically).", valueName: "file")
    )
    package var output: String = "results/knee.csv"

    @Flag(help: "Print only the knee line and errors.")
    package var quiet = false

    @Argument(
        parsing: .postTerminator,
        help: ArgumentHelp("Arguments for every step's `pagebench run`, after `--`.", valueName: "run-arguments")
    )
    package var runArguments: [String] = []

    package init() {}

    /// Flags the search sets on every step itself.
    static let reservedRunFlags = [
        "--load", "--duration", "--drains", "--concurrency", "--repetitions", "--output", "--history", "--slo",
        "--shard", "--shard-output", "--start-at", "--print-scenarios", "--quiet", "--stages", "--ramp-down",
    ]

    package func validate() throws {
        // A scenario's slo list is read when the search starts; without a scenario, --slo is all.
        if !sloExpressions.isEmpty || scenarioPath == nil {
            _ = try Self.reporting { () throws(CommandError) in
                try KneeSession.objectives(scenario: nil, file: scenarioPath, flags: sloExpressions)
            }
        }
        _ = try Self.reporting { () throws(CommandError) in try search() }
        guard stepDuration.isFinite, stepDuration >= 0.1, stepDuration <= 86_400 else {
            throw ValidationError("--step-duration must be 0.1 to 86400 seconds, got \(stepDuration)")
        }
        guard (1...1_000_000).contains(pagers) else {
            throw ValidationError("--pagers must be 1 to 1000000, got \(pagers)")
        }
        if output.isEmpty || output.hasSuffix("/") {
            throw ValidationError("'\(output)' is not a file path; give a file name such as results/knee.csv")
        }
        for argument in runArguments {
            let flag = String(argument.prefix { $0 != "=" })
            if Self.reservedRunFlags.contains(flag) {
                throw ValidationError("\(flag) after `--`: the knee search sets it on every step itself; leave it out")
            }
            if flag == RunSession.countInstructionsFlag {
                // A knee step lasts a time at an arrival rate: its pages under valgrind are not its pages.
                throw ValidationError(
                    "\(flag) does not apply to knee (its steps last a time, not a number of pages); count instructions with "
                        + "`pagebench run --count-instructions` on a drain-bounded scenario"
                )
            }
        }
    }

    private static func reporting<T>(_ body: () throws(CommandError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// The rates the flags ask for: from `--from` up to `--max-rate`, to `--resolution`.
    func search() throws(CommandError) -> KneeSearch {
        do {
            return try KneeSearch(
                startRate: from,
                maxRate: maxRate,
                resolution: try Self.fraction(resolution, flag: "--resolution", example: "5%"),
                maxSteps: maxSteps,
                minAchievedFraction: try Self.fraction(minAchieved, flag: "--min-achieved", example: "95%")
            )
        } catch {
            throw CommandError(wrapping: error)
        }
    }

    /// A flag's fraction, written as one (0.05) or as a percentage (5%).
    static func fraction(_ text: String, flag: String, example: String) throws(CommandError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let value = trimmed.hasSuffix("%") ? Double(trimmed.dropLast()).map { $0 / 100 } : Double(trimmed)
        guard let value else {
            throw .usage("\(flag) '\(text)' is not a fraction or a percentage, e.g. \(example)")
        }
        return value
    }

    package func run() async throws {
        // A step line is printed when its step ends, minutes apart: each reaches the terminal then.
        var standardOutput = StandardOutput(flushesEveryLine: true)
        do {
            // SIGINT and SIGTERM stop the search as they stop `run` (H6): the step in progress
            // is cut short and written marked partial, the steps so far are kept and the
            // summary says what was found; exit 130 / 143. A second signal exits at once.
            try ExactAllocations.reexecuteIfAsked(by: runArguments)
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

    /// Runs the search (``PagebenchEngine/KneeSession``): each step a run of the arguments
    /// after `--` with the step's rate, length, pagers and scratch output set on them.
    ///
    /// - Parameter interruption: stops the search early (H6; `run()` requests it on SIGINT or
    ///   SIGTERM): the step in progress is cut short (its row, if it began measuring, is
    ///   written marked `partial` and not judged), the steps so far are written, the summary
    ///   says what they found, and this throws exit status 128 + the signal.
    @discardableResult
    package func execute(
        into out: inout some TextOutputStream,
        interruption: Interruption? = nil
    ) async throws(CommandError)
        -> (result: KneeSearch.Result, steps: [KneeSession.Step])
    {
        do {
            let search = try search()
            // The arguments after `--` are `run`'s; a bad one is said when the first step starts.
            let parsed: Result<RunOptions, CommandError>
            do {
                parsed = .success(try RunOptions.parse((scenarioPath.map { [$0] } ?? []) + runArguments))
            } catch {
                parsed = .failure(.usage("a step's run arguments are invalid: \(RunOptions.message(for: error))"))
            }
            let (stepDuration, pagers) = (self.stepDuration, self.pagers)
            var request = KneeRequest(
                scenarioFile: scenarioPath,
                sloExpressions: sloExpressions,
                search: search,
                startRate: from,
                stepDuration: stepDuration,
                pagers: pagers,
                output: output
            ) { rate, file throws(CommandError) in
                var step = try parsed.get()
                step.workload.load = "open-fixed:\(rate)"
                step.workload.duration = stepDuration
                step.workload.repetitions = 1
                step.workload.concurrency = String(pagers)
                step.flags.output = file
                step.flags.quiet = true
                do {
                    try step.validate()
                } catch {
                    throw .usage("a step's run arguments are invalid: \(RunOptions.message(for: error))")
                }
                return try step.request(judgingObjectives: false)
            }
            request.quiet = quiet
            return try await KneeSession(request, interruption: interruption).run(into: &out)
        } catch {
            throw error
        }
    }
}
