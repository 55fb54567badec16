import ArgumentParser
import PagebenchReport

/// `pagebench baseline`: manages the committed baselines under `results/baselines/`.
struct BaselineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Manage the baselines that `pagebench check` compares against.",
        subcommands: [BaselineUpdateCommand.self]
    )

    init() {}
}

/// `pagebench baseline update`: replaces `results/baselines/N.csv` atomically with a given results file.
struct BaselineUpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Write results/baselines/<name>.csv atomically from a results CSV.",
        discussion: """
            The results are validated (strict CSV, this build's schema) before the baseline is \
            replaced; a failure leaves the old baseline untouched.
            """
    )

    @Option(help: "Baseline name: letters, digits, '-', '_' and '.'.")
    var name: String = "ci"

    @Option(help: "The results CSV to promote (e.g. results/latest.csv).")
    var from: String

    @Option(help: "Directory of the baselines.")
    var directory: String = "results/baselines"

    init() {}

    func validate() throws {
        do {
            try Baselines.validateName(name)
        } catch let error as ReportError {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        let written = try CLIFailure.mapErrors {
            try Baselines.update(name: name, directory: directory, from: from)
        }
        print("pagebench: wrote \(written.rows) rows to \(written.path)")
    }
}
