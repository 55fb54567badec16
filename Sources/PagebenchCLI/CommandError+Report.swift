import ArgumentParser
import PagebenchBase
import PagebenchEngine

/// The CLI's adapter from the one command-failure type (``PagebenchEngine/CommandError``, whose
/// exit code comes from the one table ``ExitCodes``, docs/exit-codes.md) to
/// swift-argument-parser. ``report()`` is the one place that prints a failure:
/// `pagebench: error: MESSAGE` on standard error.
///
/// Subcommands do their work in an `execute` method that throws `CommandError`, so tests can
/// check the exit code and message in-process; `run()` reports it and exits with its code.
extension CommandError {
    /// Prints the message to stderr and returns the exit code to throw from `run()`.
    func report() -> ExitCode {
        // A message may quote input (a key, a name, a cell): its control characters are
        // shown as escapes, never sent to the terminal raw.
        StandardError.write("pagebench: error: \(ControlCharacters.escaped(message))\n")
        return ExitCode(exitStatus.rawValue)
    }

    /// Runs `body`; any error it throws is reported and becomes its exit code (an
    /// `ExitCode` passes through).
    static func reporting<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let code as ExitCode {
            throw code
        } catch {
            throw error.report()
        }
    }
}

extension Error {
    /// Prints this error's message to stderr and returns its documented exit code.
    func report() -> ExitCode {
        CommandError(wrapping: self).report()
    }
}

extension ExitStatus {
    /// The status as swift-argument-parser's exit code, for a `run()` to throw.
    var code: ExitCode { ExitCode(rawValue) }
}
