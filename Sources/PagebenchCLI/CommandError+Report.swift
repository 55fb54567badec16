import ArgumentParser
import PagebenchBase
import PagebenchHarness
import PagebenchMetrics
import PagebenchEngine
import PagebenchStore

/// The CLI's adapter from a typed error to swift-argument-parser: a message and the exit
/// code the one table (``ExitCodes``, docs/exit-codes.md) gives its error. It is made only
/// from typed errors (``PagebenchEngine/CommandError``, ``PagebenchEngine/RunError`` and the
/// store, harness and results errors), never from a code chosen by hand, and ``report()`` is
/// the one place that prints it: `pagebench: error: MESSAGE` on standard error.
///
/// Subcommands do their work in an `execute` method that throws this, so tests can check
/// the exit code and message in-process; `run()` reports it and exits with its code.
public struct CommandFailure: Error, CustomStringConvertible, Sendable {
    public let exitCode: ExitStatus
    public let message: String

    private init(_ exitCode: ExitStatus, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    public var description: String { message }

    /// A command's error (``PagebenchEngine/CommandError``) with its exit code from the one table.
    public init(_ error: CommandError) {
        self.init(error.exitStatus, error.message)
    }

    /// A run's error (``PagebenchEngine/RunError``) with its exit code from the one table.
    public init(_ error: RunError) {
        self.init(error.exitStatus, error.message)
    }

    /// A store error with its exit code; `fromFile`: the configuration came from a file.
    public init(_ error: StoreError, fromFile: Bool = false) {
        self.init(ExitCodes.code(for: error.code, fromFile: fromFile), error.message)
    }

    /// A harness error with its exit code, naming its file.
    public init(_ error: HarnessError) {
        self.init(ExitCodes.code(for: error.kind), error.description)
    }

    /// A results, thresholds, report or process-statistics error with its exit code, as
    /// `file:line:column: message`.
    public init(_ error: MetricsError) {
        self.init(ExitCodes.code(for: error.kind), error.description)
    }

    /// Any error: each library error by its kind, `CommandFailure` unchanged, anything else
    /// an internal error (70).
    public init(wrapping error: any Error) {
        switch error {
        case let failure as CommandFailure: self = failure
        case let error as CommandError: self.init(error)
        case let error as RunError: self.init(error)
        case let error as StoreError: self.init(error)
        case let error as HarnessError: self.init(error)
        case let error as MetricsError: self.init(error)
        default: self.init(ExitCodes.software, "internal error: \(error)")
        }
    }

    /// Prints the message to stderr and returns the exit code to throw from `run()`.
    func report() -> ExitCode {
        // A message may quote input (a key, a name, a cell): its control characters are
        // shown as escapes, never sent to the terminal raw.
        StandardError.write("pagebench: error: \(ControlCharacters.escaped(message))\n")
        return ExitCode(exitCode.rawValue)
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
        CommandFailure(wrapping: self).report()
    }
}

extension ExitStatus {
    /// The status as swift-argument-parser's exit code, for a `run()` to throw.
    var code: ExitCode { ExitCode(rawValue) }
}
