import ArgumentParser
import PagebenchCLI
import PagebenchHarness

/// What `pagebench run ARGUMENTS…` did when called in-process: the sweep's output, what it
/// printed, and the failure it ended with (nil when it succeeded).
package struct RunInvocation: Sendable {
    /// The rows and results of the run (nil when it failed).
    package var output: SweepRunner.Output?
    /// What the command wrote to its output stream.
    package var text: String
    /// The documented failure (exit code and message); an error that is not a
    /// `CommandError` (an argument the parser refuses) is reported as exit 64 with its text.
    package var failure: CommandError?
}

/// Parses `["run"] + arguments` as the `pagebench` command line does and executes it in this
/// process: the one CLI `run` helper of the test suites (its own target, so that only the
/// suites that drive the CLI depend on it).
package func runPagebench(
    _ arguments: [String],
    workerExecutable: String? = nil,
    workerLaunched: @escaping @Sendable (Int, Int32) -> Void = { _, _ in }
) async -> RunInvocation {
    struct Capture: TextOutputStream {
        var text = ""
        mutating func write(_ string: String) { text += string }
    }
    var capture = Capture()
    do {
        guard let command = try PagebenchCommand.parseAsRoot(["run"] + arguments) as? RunCommand else {
            return RunInvocation(output: nil, text: "", failure: CommandError.internalFailure("not a run command"))
        }
        let output = try await command.execute(
            into: &capture,
            workerExecutable: workerExecutable,
            workerLaunched: workerLaunched
        )
        return RunInvocation(output: output, text: capture.text, failure: nil)
    } catch let failure as CommandError {
        return RunInvocation(output: nil, text: capture.text, failure: failure)
    } catch {
        return RunInvocation(output: nil, text: capture.text, failure: CommandError.usage("\(error)"))
    }
}
