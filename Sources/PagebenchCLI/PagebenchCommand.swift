import ArgumentParser

/// The `pagebench` command line: argument parsing, validation and wiring only.
///
/// Exit codes are documented in README.md and defined in ``ExitCodes``.
public struct PagebenchCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
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
            BaselineCommand.self,
            CompareCommand.self,
            ReportCommand.self,
            ServeCommand.self,
            HTTPBenchCommand.self,
            MergeCommand.self,
        ]
    )

    public init() {}
}

/// The pagebench version reported by `--version` and written into every CSV row's context.
public enum PagebenchVersion {
    public static let string = "0.1.0"
}
