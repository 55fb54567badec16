import ArgumentParser
import PagebenchBase
import PagebenchHarness
import PagebenchMetrics
import PagebenchEngine
import PagebenchStore

/// The one failure of the CLI: a message and its documented exit code (``ExitCodes``,
/// docs/exit-codes.md). Every library error becomes one through ``init(wrapping:)``, and
/// ``report()`` is the one place that prints it: `pagebench: error: MESSAGE` on standard
/// error.
///
/// Subcommands do their work in an `execute` method that throws this, so tests can check
/// the exit code and message in-process; `run()` reports it and exits with its code.
public struct CommandFailure: Error, CustomStringConvertible, Sendable {
    public let exitCode: ExitStatus
    public let message: String

    public init(_ exitCode: ExitStatus, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    public var description: String { message }

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
        case let error as RunError: self.init(error)
        case let error as StoreError: self.init(error)
        case let error as HarnessError: self.init(error)
        case let error as MetricsError: self.init(error)
        default: self.init(ExitCodes.software, "internal error: \(error)")
        }
    }

    /// Checks that the file a flag names can be opened for reading, so that the reason a
    /// library would report in its own words (a TLS library's "failed to load") is said
    /// plainly first: `--tls-cert /x: permission denied: …`, `… is a directory, not a file`.
    static func checkReadable(_ path: String, flag: String, exitCode: ExitStatus = ExitCodes.noInput) throws(CommandFailure) {
        do {
            _ = try FileSystem.InputFile(path)
        } catch {
            throw CommandFailure(exitCode, "\(flag) \(path): \(error.kind == .missing ? "no such file; check the path" : error.reason)")
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
