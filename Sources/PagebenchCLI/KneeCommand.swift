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
public struct KneeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
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
    public var scenarioPath: String?

    @Option(
        name: .customLong("slo"),
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "A service-level objective each step must meet, e.g. drain_latency_corrected_p99_ns<200ms or error_rate<0.1%. Repeatable; added to the scenario's slo list; at least one in all.",
            valueName: "expr"))
    public var sloExpressions: [String] = []

    @Option(
        parsing: .unconditional, help: ArgumentHelp("The first rate in drains per second, 500/s or 500 (0.001 to 10000000, what a step's run takes).", valueName: "rate"),
        transform: RateOption.drainsPerSecond("--from"))
    public var from: Double = 10

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Never step above this rate, 5000/s or 5000 (default: --from × 2^20, at most 10000000).", valueName: "rate"),
        transform: RateOption.drainsPerSecond("--max-rate"))
    public var maxRate: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop bisecting when the held and broken rates are this close: 5% or 0.05.", valueName: "fraction"))
    public var resolution: String = "5%"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "A step holds only if it started at least this fraction of the drains it offered (drains + cancellations): 95% or 0.95; 0 judges on the SLOs alone.",
            valueName: "fraction"))
    public var minAchieved: String = "95%"

    @Option(
        parsing: .unconditional, help: ArgumentHelp("How long each step runs: 10s, 500ms (a bare number is seconds).", valueName: "duration"),
        transform: DurationOption.seconds("--step-duration"))
    public var stepDuration: Double = 10

    @Option(parsing: .unconditional, help: ArgumentHelp("Pager slots of every step (open loop: at most this many drains at once).", valueName: "n"))
    public var pagers: Int = 64

    @Option(parsing: .unconditional, help: "Give up after this many steps.")
    public var maxSteps: Int = 40

    @Option(parsing: .unconditional, help: ArgumentHelp("Where to write every step's row (CSV; atomically).", valueName: "file"))
    public var output: String = "results/knee.csv"

    @Flag(help: "Print only the knee line and errors.")
    public var quiet = false

    @Argument(
        parsing: .postTerminator,
        help: ArgumentHelp("Arguments for every step's `pagebench run`, after `--`.", valueName: "run-arguments"))
    public var runArguments: [String] = []

    public init() {}

    /// Flags the search sets on every step itself.
    static let reservedRunFlags = [
        "--load", "--duration", "--drains", "--concurrency", "--repetitions", "--output", "--history", "--slo",
        "--shard", "--shard-output", "--start-at", "--print-scenarios", "--quiet", "--stages", "--ramp-down",
    ]

    public func validate() throws {
        // A scenario's slo list is read when the search starts; without a scenario, --slo is all.
        if !sloExpressions.isEmpty || scenarioPath == nil {
            _ = try Self.reporting { () throws(CommandFailure) in try objectives(scenario: nil) }
        }
        _ = try Self.reporting { () throws(CommandFailure) in try search() }
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
                        + "`pagebench run --count-instructions` on a drain-bounded scenario")
            }
        }
    }

    private static func reporting<T>(_ body: () throws(CommandFailure) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// Every SLO of a step: the scenario's `slo` list, then every `--slo`. Uncorrected latency
    /// is refused (H5): drain latency measured from when a drain started, and page latency.
    ///
    /// - Throws: ``CommandFailure``: 64 for no SLO at all, a bad `--slo` or an uncorrected
    ///   latency bound; 65 for a bad entry of the scenario's list.
    func objectives(scenario: Scenario?) throws(CommandFailure) -> [ServiceLevelObjective] {
        let fromScenario: [ServiceLevelObjective]
        do {
            fromScenario = try scenario.map { (scenario) throws(RunError) in try RunObjectives.check(scenario, file: scenarioPath) } ?? []
        } catch {
            throw CommandFailure(error)
        }
        let fromFlags: [ServiceLevelObjective]
        do {
            fromFlags = try ServiceLevelObjective.parseAll(sloExpressions)
        } catch {
            throw CommandFailure(error)
        }
        guard !fromScenario.isEmpty || !fromFlags.isEmpty else {
            throw CommandFailure(
                ExitCodes.usage,
                "give at least one --slo, e.g. --slo 'drain_latency_corrected_p99_ns<200ms', or an \"slo\" list in the scenario")
        }
        for (objective, source) in fromScenario.map({ ($0, "the scenario's slo") }) + fromFlags.map({ ($0, "--slo") }) {
            try Self.refuseUncorrectedLatency(objective, source: source)
        }
        return fromScenario + fromFlags
    }

    /// H5: the knee is judged on corrected latency. Drain latency measured from when a drain
    /// started, and page latency (from when a page was requested; pagebench has no corrected
    /// page latency), never see the drains queued behind a saturated service (coordinated
    /// omission), so a search on them finds a knee that is too high.
    static func refuseUncorrectedLatency(_ objective: ServiceLevelObjective, source: String) throws(CommandFailure) {
        let column = objective.column
        let what: String
        if column.hasPrefix("drain_latency_p") || column == "drain_latency_max_ns" {
            what = "is measured from when a drain started, not from when it was meant to start"
        } else if column.hasPrefix("page_latency_") {
            what = "is measured from when each page was requested, and pagebench has no corrected page latency"
        } else {
            return
        }
        let corrected = column.replacingOccurrences(of: column.hasPrefix("page_") ? "page_latency_" : "drain_latency_", with: "drain_latency_corrected_")
        throw CommandFailure(
            ExitCodes.usage,
            "\(source) '\(objective.text)': \(column) \(what), so a queue of late drains never breaks it and the knee "
                + "comes out too high; bound the corrected drain latency instead: \(corrected)")
    }

    func search() throws(CommandFailure) -> KneeSearch {
        do {
            return try KneeSearch(
                startRate: from, maxRate: maxRate, resolution: try Self.fraction(resolution, flag: "--resolution", example: "5%"),
                maxSteps: maxSteps, minAchievedFraction: try Self.fraction(minAchieved, flag: "--min-achieved", example: "95%"))
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(wrapping: error)
        }
    }

    /// A flag's fraction, written as one (0.05) or as a percentage (5%).
    static func fraction(_ text: String, flag: String, example: String) throws(CommandFailure) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let value = trimmed.hasSuffix("%") ? Double(trimmed.dropLast()).map { $0 / 100 } : Double(trimmed)
        guard let value else {
            throw CommandFailure(ExitCodes.usage, "\(flag) '\(text)' is not a fraction or a percentage, e.g. \(example)")
        }
        return value
    }

    public func run() async throws {
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

    /// One measured step: its rate, its row, and what broke.
    public struct Step: Sendable {
        public var rate: Double
        public var row: ResultRow
        public var held: Bool
        /// The SLOs it broke, as sentences.
        public var violations: [String]
        /// Its verdict: the SLOs and the throughput condition (nil for a step cut short).
        public var verdict: KneeSearch.Verdict?
    }

    /// Runs the search; returns the result and every step's row.
    ///
    /// - Parameter interruption: stops the search early (H6; `run()` requests it on SIGINT or
    ///   SIGTERM): the step in progress is cut short (its row, if it began measuring, is
    ///   written marked `partial` and not judged), the steps so far are written, the summary
    ///   says what they found, and this throws exit status 128 + the signal.
    @discardableResult
    public func execute(into out: inout some TextOutputStream, interruption: Interruption? = nil) async throws(CommandFailure)
        -> (result: KneeSearch.Result, steps: [Step])
    {
        let scenario: Scenario?
        do {
            scenario = try scenarioPath.map { (path) throws(HarnessError) in try Scenario.load(path: path) }
        } catch {
            throw CommandFailure(error)
        }
        let objectives = try objectives(scenario: scenario)
        if let scenario, scenario.workload.stages != nil {
            // A knee step holds one rate for its whole length (H5); a stage plan ramps it (H4).
            throw CommandFailure(
                ExitCodes.usage,
                "scenario '\(scenario.name)' has stages (H4), but a knee step holds one rate: remove workload.stages, "
                    + "or run the stages with `pagebench run --slo` to judge each stage")
        }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var steps: [Step] = []
        var search = try search()
        if !quiet {
            let throughput = search.minAchievedFraction > 0
                ? " and \(NumberText.fixed(search.minAchievedFraction * 100, 0)) % of the rate achieved" : ""
            out.write(
                "knee search: \(objectives.map(\.description).joined(separator: ", "))\(throughput); steps of \(stepDuration) s "
                    + "on \(pagers) pagers, from \(from) drains/s\n")
        }
        let result: KneeSearch.Result
        var cutShort: Step?
        loop: while true {
            if interruption?.isRequested == true {
                result = search.interrupted()
                break loop
            }
            switch search.next() {
            case .finished(let finished):
                result = finished
                break loop
            case .measure(let rate):
                let measured = try await runStep(rate: rate, number: steps.count + 1, directory: directory, interruption: interruption)
                guard case .whole(var row) = measured else {
                    if case .cutShort(let row?) = measured {
                        // Not a whole step, so no verdict (H5): it is kept, marked partial, and
                        // drawn nowhere (slo_held stays empty).
                        cutShort = Step(rate: rate, row: row, held: false, violations: [], verdict: nil)
                        steps.append(cutShort!)
                        if !quiet { out.write(Self.describeCutShort(cutShort!, number: steps.count)) }
                    }
                    result = search.interrupted()
                    break loop
                }
                let violations = ServiceLevelObjective.violations(of: objectives, in: [row])
                // Achieved: the drains the step started, over its length: those that ended and
                // those cancelled (in flight at its end, or by the probe). Completions alone would
                // miss the drains in flight at the end, rate × drain latency of them, a share
                // that grows as steps shorten; a saturated step still starts only about its
                // capacity (plus one drain per pager). Not drains_per_s, whose measured duration
                // also spans the phase's start and end: far from the step's length for a short step.
                let achieved = Double(row.drains + row.cancellations) / (row.targetDurationSeconds ?? stepDuration)
                let verdict = search.judge(rate: rate, achievedRate: achieved, sloHeld: violations.isEmpty)
                // A knee step's slo_held is its verdict: the SLOs and the throughput condition.
                row.sloHeld = verdict.held ? 1 : 0
                row.slos = ServiceLevelObjective.columnText(objectives)
                let step = Step(rate: rate, row: row, held: verdict.held, violations: violations, verdict: verdict)
                steps.append(step)
                search.record(verdict)
                if !quiet { out.write(Self.describe(step, number: steps.count, objectives: objectives)) }
            }
        }
        do {
            try ResultWriter.createParentDirectory(of: output)
            try CSVFile.write(steps.map(\.row), to: output)
        } catch {
            throw CommandFailure(wrapping: error)
        }
        out.write(Self.summary(result, steps: steps) + "\n")
        if !quiet { out.write("wrote \(steps.count) step rows to \(output)\n") }
        if let signal = interruption?.signal {
            let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)"
            let judged = steps.count - (cutShort == nil ? 0 : 1)
            throw CommandFailure(
                ExitCodes.interrupted(signal: signal),
                "interrupted by \(name): kept \(judged) judged step\(judged == 1 ? "" : "s")"
                    + (cutShort.map { ", and the step at \(Self.rate($0.rate)) drains/s cut short (partial)" } ?? "")
                    + " in \(output)")
        }
        if result.ending == .neverHeld {
            throw CommandFailure(
                ExitCodes.sloBroken,
                "the SLOs held at no rate tried, down to \(Self.rate(result.lowestBroken ?? from)) drains/s")
        }
        return (result, steps)
    }

    /// What one step's run gave.
    enum StepOutcome {
        /// The step ran its whole duration.
        case whole(ResultRow)
        /// A signal cut it short: its row marked partial, or nil if it had not begun measuring.
        case cutShort(ResultRow?)
    }

    /// One step: `pagebench run` at `rate`, its row.
    private func runStep(rate: Double, number: Int, directory: String, interruption: Interruption?) async throws(CommandFailure)
        -> StepOutcome
    {
        let stepFile = "\(directory)/step-\(number).csv"
        var arguments: [String] = []
        if let scenarioPath { arguments.append(scenarioPath) }
        arguments += runArguments
        arguments += [
            "--load", "open-fixed:\(rate)", "--duration", String(stepDuration), "--repetitions", "1",
            "--concurrency", String(pagers), "--output", stepFile, "--quiet",
        ]
        let command: RunCommand
        do {
            command = try RunCommand.parse(arguments)
        } catch {
            throw CommandFailure(ExitCodes.usage, "a step's run arguments are invalid: \(RunCommand.message(for: error))")
        }
        var discard = ""
        let output: SweepRunner.Output
        do {
            // The step is judged here (SLOs and throughput), not by the run.
            output = try await command.execute(into: &discard, interruption: interruption, judgingObjectives: false)
        } catch where interruption?.isRequested == true {
            // The run wrote what it measured (H6) before it reported the signal.
            // A signal that came after the phase ended leaves a whole step.
            let rows = (try? CSVFile.read(ResultRow.self, from: stepFile)) ?? []
            if let row = rows.first, rows.count == 1, row.partial == 0 { return .whole(row) }
            return .cutShort(rows.first)
        }
        guard output.rows.count == 1, let row = output.rows.first else {
            throw CommandFailure(
                ExitCodes.usage,
                "a knee step must be one phase, but the scenario and flags give \(output.rows.count); give one scenario")
        }
        return .whole(row)
    }

    private func temporaryDirectory() throws(CommandFailure) -> String {
        var template = Array((FileManager.default.temporaryDirectory.path + "/pagebench-knee-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CommandFailure(ExitCodes.cannotCreate, "cannot create a temporary directory for the steps' files")
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func rate(_ value: Double) -> String {
        value == value.rounded() && value < 1e15 ? String(Int(value)) : String(format: "%.2f", value)
    }

    static func describe(_ step: Step, number: Int, objectives: [ServiceLevelObjective]) -> String {
        let figures = objectives.map { objective -> String in
            switch objective.judge(step.row) {
            case .held(let value), .broke(let value, _): "\(objective.column)=\(objective.formatted(value))"
            case .missing: "\(objective.column)=-"
            }
        }
        var verdict = step.held ? "held" : "broke"
        var achieved = ""
        if let judged = step.verdict {
            if judged.sloHeld && !judged.sustained { verdict = "broke by throughput" }
            // Requests (pages) per second beside drains per second: SLOs and capacity are often per request (issue 26).
            achieved = "achieved \(rate(judged.achievedRate.rounded())) drains/s = \(NumberText.fixed(judged.achievedFraction, 3)) of the rate, "
                + "\(NumberText.compact(step.row.pagesPerSecond)) requests/s"
                + (judged.sustained ? "" : ", under --min-achieved \(NumberText.fixed(judged.minAchievedFraction, 2))") + "; "
        }
        return "step \(number): \(rate(step.rate)) drains/s: \(verdict) (\(figures.joined(separator: ", ")); "
            + "\(achieved)\(step.row.drains) drains, \(step.row.missedStarts ?? 0) missed starts, \(step.row.lateStarts ?? 0) late starts)\n"
    }

    static func describeCutShort(_ step: Step, number: Int) -> String {
        "step \(number): \(rate(step.rate)) drains/s: cut short by a signal after "
            + "\(NumberText.fixed(step.row.durationSeconds, 1)) s (partial, not judged; \(step.row.drains) drains)\n"
    }

    /// The last line of a knee search; a rate that held is said in requests (pages) per second
    /// too, as its step achieved them: SLOs and capacity are often per request (issue 26).
    static func summary(_ result: KneeSearch.Result, steps measured: [Step] = []) -> String {
        func rate(_ drains: Double) -> String {
            let achieved = measured.last { $0.rate == drains && $0.held }
            return Self.rate(drains) + (achieved.map { " drains/s (\(NumberText.compact($0.row.pagesPerSecond)) requests/s achieved)" } ?? " drains/s")
        }
        let broken = result.lowestBroken.map { "; lowest rate that broke: \(Self.rate($0)) drains/s" } ?? ""
        let steps = "\(result.steps.count) step\(result.steps.count == 1 ? "" : "s")"
        switch result.ending {
        case .resolved:
            return "knee: \(rate(result.knee ?? 0)), the highest rate at which every SLO held\(broken) (\(steps))"
        case .heldAtMaxRate:
            return "knee: at least \(rate(result.knee ?? 0)): every SLO held up to --max-rate (\(steps))"
        case .neverHeld:
            return "knee: none: the SLOs broke at every rate tried\(broken) (\(steps))"
        case .stepLimit:
            let knee = result.knee.map { rate($0) } ?? "none"
            return "knee: \(knee) so far: --max-steps reached before the resolution\(broken) (\(steps))"
        case .interrupted:
            let knee = result.knee.map { "\(rate($0)), the highest rate at which every SLO held" } ?? "none held"
            return "knee so far: \(knee)\(broken); interrupted before the resolution (\(steps) judged)"
        }
    }
}
