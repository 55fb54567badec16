import ArgumentParser
import PagebenchBase
// The engine's exit codes, errors and version are part of what the CLI offers its callers
// (tests check a command's `ExitCodes` through it).
@_exported import PagebenchEngine

/// The `pagebench` command line: argument parsing, validation and wiring only.
///
/// Exit codes are documented in docs/exit-codes.md and defined in ``ExitCodes``.
package struct PagebenchCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "pagebench",
        abstract: "Load-test and benchmark token-paginated list APIs.",
        version: PagebenchVersion.string,
        subcommands: [
            // Each subcommand lives in its own file: <Name>Command.swift.
            ItemsCommand.self,
            PagesCommand.self,
            RunCommand.self,
            KneeCommand.self,
            CheckCommand.self,
            ExportCommand.self,
            BaselineCommand.self,
            CompareCommand.self,
            ReportCommand.self,
            ServeCommand.self,
            HTTPBenchCommand.self,
            MergeCommand.self,
            VerifyCommand.self,
        ]
    )

    package init() {}

    /// What `main()` of swift-argument-parser does, except that a usage error's message (which
    /// quotes the arguments given) is printed with its control characters escaped: `--slo
    /// $'\e[2J'` must not clear the terminal it is refused on.
    package static func runAsMain() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = OptionIntent.rewrite(
                fullMessage(for: error),
                subcommand: CommandLine.arguments.dropFirst().first
            )
            if !message.isEmpty {
                if code == .success {
                    print(message)
                } else {
                    StandardError.write(ControlCharacters.escaped(message) + "\n")
                }
            }
            exit(withError: code)
        }
    }
}
