import ArgumentParser
import Foundation
import PagebenchEngine
import PagebenchHarness
import PagebenchMetrics
import PagebenchReport

/// `pagebench baseline`: manages the committed baselines under `results/baselines/`.
struct BaselineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Manage the baselines that `pagebench check` compares against.",
        subcommands: [BaselineUpdateCommand.self]
    )

    init() {}
}

/// `pagebench baseline update`: replaces `results/baselines/N.csv` atomically, from a given
/// results CSV or from a fresh `pagebench run`.
struct BaselineUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Write results/baselines/<name>.csv atomically from a results CSV or a fresh run.",
        discussion: """
            With --from FILE the file is validated (strict CSV, this build's schema) and copied. \
            Without it, the arguments after `--` are those of `pagebench run` (scenarios and flags) \
            and the baseline is the rows of that fresh run, e.g. \
            pagebench baseline update --name ci -- Benchmarks/Scenarios/ci --repetitions 5. \
            A failure leaves the old baseline untouched.
            """
    )

    @Option(parsing: .unconditional, help: "Baseline name: letters, digits, '-', '_' and '.'.")
    var name: String = "ci"

    @Option(
        parsing: .unconditional,
        help: "The results CSV to promote (e.g. results/latest.csv); without it, a fresh run."
    )
    var from: String?

    @Option(parsing: .unconditional, help: "Directory of the baselines.")
    var directory: String = "results/baselines"

    @Argument(parsing: .postTerminator, help: "After `--`: arguments of `pagebench run` for a fresh run.")
    var runArguments: [String] = []

    init() {}

    func validate() throws {
        do {
            try Baselines.validateName(name)
        } catch let error as MetricsError {
            throw ValidationError(error.message)
        }
        if from != nil && !runArguments.isEmpty {
            throw ValidationError("give either --from FILE or run arguments after `--`, not both")
        }
        if from == nil {
            // Parse now so a bad run flag is a usage error before anything runs.
            do {
                _ = try freshRun()
            } catch {
                throw ValidationError("bad `pagebench run` arguments after `--`: \(RunOptions.message(for: error))")
            }
        }
    }

    /// The run this update performs when no --from is given: the arguments after `--` (those
    /// of `pagebench run`), quiet, its CSV in a scratch file.
    func freshRun() throws -> RunOptions {
        var options = try RunOptions.parse(runArguments)
        options.flags.quiet = true
        options.flags.output =
            FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-baseline-\(getpid()).csv").path
        try options.validate()
        return options
    }

    func run() async throws {
        if let from {
            let written = try CommandError.reporting {
                try Baselines.update(name: name, directory: directory, from: from)
            }
            try CommandError.reporting {
                try StandardOutput.write("pagebench: wrote \(written.rows) rows to \(written.path)\n")
            }
            return
        }
        try CommandError.reporting { try ExactAllocations.reexecuteIfAsked(by: runArguments) }
        let options = try freshRun()
        var output = StandardOutput()
        let result: SweepRunner.Output
        do {
            let request = try options.request()
            if options.flags.printScenarios {
                RunCommand.printEffective(request.scenarios, into: &output)
                result = SweepRunner.Output(rows: [], results: [], timeSeries: [])
            } else {
                result = try await RunSession(request).run(into: &output)
            }
            try output.finish()
        } catch {
            throw error.report()
        }
        defer { if let scratch = options.flags.output { try? FileManager.default.removeItem(atPath: scratch) } }
        let path = try CommandError.reporting { try Baselines.write(result.rows, name: name, directory: directory) }
        try CommandError.reporting {
            try StandardOutput.write("pagebench: wrote \(result.rows.count) rows of a fresh run to \(path)\n")
        }
    }
}
