import ArgumentParser
import Foundation
import PagebenchBase
import PagebenchHarness
import PagebenchMetrics
import PagebenchReport

/// `pagebench knee`: the highest open-loop arrival rate at which every SLO holds over a
/// whole step (SEMANTICS H5), found by doubling from `--from` and then bisecting to
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
            --pagers slots and judges its row against every --slo. Judge latency on \
            drain_latency_corrected_* (from the intended start): uncorrected drain latency hides the \
            queue (coordinated omission) and finds a knee that is too high, so it is refused. \
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
        help: ArgumentHelp(
            "A service-level objective each step must meet, e.g. drain_latency_corrected_p99_ns<200ms or error_rate<0.1%. Repeatable; at least one.",
            valueName: "expr"))
    public var sloExpressions: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("The first rate, drains per second.", valueName: "rate"))
    public var from: Double = 10

    @Option(parsing: .unconditional, help: ArgumentHelp("Never step above this rate (default: --from × 2^20).", valueName: "rate"))
    public var maxRate: Double?

    @Option(help: ArgumentHelp("Stop bisecting when the held and broken rates are this close: 5% or 0.05.", valueName: "fraction"))
    public var resolution: String = "5%"

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds each step runs.", valueName: "seconds"))
    public var stepDuration: Double = 10

    @Option(parsing: .unconditional, help: ArgumentHelp("Pager slots of every step (open loop: at most this many drains at once).", valueName: "n"))
    public var pagers: Int = 64

    @Option(parsing: .unconditional, help: "Give up after this many steps.")
    public var maxSteps: Int = 40

    @Option(help: ArgumentHelp("Where to write every step's row (CSV; atomically).", valueName: "file"))
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
        guard !sloExpressions.isEmpty else {
            throw ValidationError("give at least one --slo, e.g. --slo 'drain_latency_corrected_p99_ns<200ms'")
        }
        _ = try Self.reporting { () throws(CommandFailure) in try objectives() }
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
        }
    }

    private static func reporting<T>(_ body: () throws(CommandFailure) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// The parsed SLOs; uncorrected drain latency is refused (H5).
    func objectives() throws(CommandFailure) -> [ServiceLevelObjective] {
        let objectives: [ServiceLevelObjective]
        do {
            objectives = try ServiceLevelObjective.parseAll(sloExpressions)
        } catch {
            throw CommandFailure(error)
        }
        for objective in objectives {
            if objective.column.hasPrefix("drain_latency_p") || objective.column == "drain_latency_max_ns" {
                throw CommandFailure(
                    ExitCodes.usage,
                    "--slo '\(objective.text)': \(objective.column) is measured from when a drain started, not from when it "
                        + "was meant to start, so a queue of late drains never breaks it and the knee comes out too high; "
                        + "use \(objective.column.replacingOccurrences(of: "drain_latency_", with: "drain_latency_corrected_"))")
            }
        }
        return objectives
    }

    func search() throws(CommandFailure) -> KneeSearch {
        let trimmed = resolution.trimmingCharacters(in: .whitespaces)
        let fraction: Double?
        if trimmed.hasSuffix("%") {
            fraction = Double(trimmed.dropLast()).map { $0 / 100 }
        } else {
            fraction = Double(trimmed)
        }
        guard let fraction else {
            throw CommandFailure(ExitCodes.usage, "--resolution '\(resolution)' is not a fraction (0.05) or percentage (5%)")
        }
        do {
            return try KneeSearch(startRate: from, maxRate: maxRate, resolution: fraction, maxSteps: maxSteps)
        } catch {
            throw CommandFailure(error)
        }
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
        public var violations: [String]
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
        let objectives = try objectives()
        if let scenarioPath, let scenario = try? Scenario.load(path: scenarioPath), scenario.workload.stages != nil {
            // A knee step holds one rate for its whole length (H5); a stage plan ramps it (H4).
            throw CommandFailure(
                ExitCodes.usage,
                "scenario '\(scenario.name)' has stages (H4), but a knee step holds one rate: remove workload.stages, "
                    + "or run the stages with `pagebench run --slo` to judge each stage")
        }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        if !quiet {
            out.write("knee search: \(objectives.map(\.description).joined(separator: ", ")); steps of \(stepDuration) s on \(pagers) pagers, from \(from) drains/s\n")
        }
        var steps: [Step] = []
        var search = try search()
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
                        cutShort = Step(rate: rate, row: row, held: false, violations: [])
                        steps.append(cutShort!)
                        if !quiet { out.write(Self.describeCutShort(cutShort!, number: steps.count)) }
                    }
                    result = search.interrupted()
                    break loop
                }
                let violations = ServiceLevelObjective.violations(of: objectives, in: [row])
                row.sloHeld = violations.isEmpty ? 1 : 0
                let step = Step(rate: rate, row: row, held: violations.isEmpty, violations: violations)
                steps.append(step)
                search.record(rate: rate, held: step.held)
                if !quiet { out.write(Self.describe(step, number: steps.count, objectives: objectives)) }
            }
        }
        do {
            try ResultWriter.createParentDirectory(of: output)
            try CSVFile.write(steps.map(\.row), to: output)
        } catch {
            throw CommandFailure(wrapping: error)
        }
        out.write(Self.summary(result) + "\n")
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
            output = try await command.execute(into: &discard, interruption: interruption)
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
        let verdict = step.held ? "held" : "broke"
        return "step \(number): \(rate(step.rate)) drains/s: \(verdict) (\(figures.joined(separator: ", ")); "
            + "\(step.row.drains) drains, \(step.row.missedStarts ?? 0) missed starts)\n"
    }

    static func describeCutShort(_ step: Step, number: Int) -> String {
        "step \(number): \(rate(step.rate)) drains/s: cut short by a signal after "
            + "\(NumberText.fixed(step.row.durationSeconds, 1)) s (partial, not judged; \(step.row.drains) drains)\n"
    }

    static func summary(_ result: KneeSearch.Result) -> String {
        let broken = result.lowestBroken.map { "; lowest rate that broke: \(rate($0)) drains/s" } ?? ""
        let steps = "\(result.steps.count) step\(result.steps.count == 1 ? "" : "s")"
        switch result.ending {
        case .resolved:
            return "knee: \(rate(result.knee ?? 0)) drains/s, the highest rate at which every SLO held\(broken) (\(steps))"
        case .heldAtMaxRate:
            return "knee: at least \(rate(result.knee ?? 0)) drains/s: every SLO held up to --max-rate (\(steps))"
        case .neverHeld:
            return "knee: none: the SLOs broke at every rate tried\(broken) (\(steps))"
        case .stepLimit:
            let knee = result.knee.map { "\(rate($0)) drains/s" } ?? "none"
            return "knee: \(knee) so far: --max-steps reached before the resolution\(broken) (\(steps))"
        case .interrupted:
            let knee = result.knee.map { "\(rate($0)) drains/s, the highest rate at which every SLO held" } ?? "none held"
            return "knee so far: \(knee)\(broken); interrupted before the resolution (\(steps) judged)"
        }
    }
}
