import PagebenchCLI

/// The exit code ArgumentParser gives a parse or validation error of `arguments` (0 when they
/// parse): the one helper the CLI suites share.
func parseExitCode(_ arguments: [String]) -> Int32 {
    do {
        _ = try PagebenchCommand.parseAsRoot(arguments)
        return 0
    } catch {
        return PagebenchCommand.exitCode(for: error).rawValue
    }
}
