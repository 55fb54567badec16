import PagebenchHarness
import PagebenchMetrics
import PagebenchStore

/// Why a command failed or stopped (a run, `knee`, `baseline update`, `items`, `pages`,
/// `serve`, `http-bench`, `check`, …), with a message that says what was wrong and what to do:
/// the one command-failure type (issue 39). ``exitStatus`` is its documented exit code, from
/// the one table in ``ExitCodes`` (docs/exit-codes.md): a command says what went wrong, never
/// which code that is.
///
/// A run that wrote its rows and then failed (a broken SLO, a target that answered no page,
/// a signal) says so in ``message``: the rows are in the output.
package struct CommandError: Error, CustomStringConvertible, Sendable {
    /// What went wrong; ``ExitCodes/code(for:)-(CommandError)`` maps each to its exit code.
    enum Code: Hashable, Sendable {
        /// A flag, or what the flags make of a file, is invalid: 64.
        case usage
        /// A file's content is invalid: 65.
        case invalidInput
        /// An input file is missing or cannot be read: 66.
        case missingInput
        /// A server could not be started, or did not answer as a server must: 69.
        case unavailable
        /// pagebench did not expect this: 70.
        case internalFailure
        /// Standard output could not be written: 74.
        case outputFailed
        /// A worker process (or the callgrind run) failed: 71.
        case workerFailed
        /// An output file or directory could not be created: 73.
        case cannotCreate
        /// The target did not answer, or answered no page or ended no drain in a phase (T6): 69.
        case targetUnavailable
        /// Instructions cannot be counted on this machine (no valgrind): 69.
        case countingUnavailable
        /// The rows were written and one broke an SLO: 99.
        case sloBroken
        /// A signal stopped the run (H6): 128 + the signal.
        case interrupted(signal: Int32)
        /// A store, harness or results error, by its own kind.
        case store(StoreError.Code, fromFile: Bool)
        case harness(HarnessError.Kind)
        case metrics(MetricsError.Kind)
    }

    let code: Code
    /// What was wrong and what to do.
    package let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    /// The documented exit code of this failure (docs/exit-codes.md).
    package var exitStatus: ExitStatus { ExitCodes.code(for: self) }

    /// The signal that stopped the run, when one did (H6).
    package var signal: Int32? {
        if case .interrupted(let signal) = code { return signal }
        return nil
    }

    /// Whether the rows were written and one broke an SLO.
    package var isSLOBroken: Bool { code == .sloBroken }

    package static func usage(_ message: String) -> CommandError { CommandError(.usage, message) }
    package static func invalidInput(_ message: String) -> CommandError { CommandError(.invalidInput, message) }
    package static func missingInput(_ message: String) -> CommandError { CommandError(.missingInput, message) }
    package static func unavailable(_ message: String) -> CommandError { CommandError(.unavailable, message) }
    package static func internalFailure(_ message: String) -> CommandError { CommandError(.internalFailure, message) }
    package static func outputFailed(_ message: String) -> CommandError { CommandError(.outputFailed, message) }
    package static func workerFailed(_ message: String) -> CommandError { CommandError(.workerFailed, message) }
    package static func cannotCreate(_ message: String) -> CommandError { CommandError(.cannotCreate, message) }
    package static func targetUnavailable(_ message: String) -> CommandError {
        CommandError(.targetUnavailable, message)
    }
    package static func countingUnavailable(_ message: String) -> CommandError {
        CommandError(.countingUnavailable, message)
    }
    package static func sloBroken(_ message: String) -> CommandError { CommandError(.sloBroken, message) }
    package static func interrupted(signal: Int32, _ message: String) -> CommandError {
        CommandError(.interrupted(signal: signal), message)
    }

    /// A store error; `fromFile`: the configuration came from a file.
    package init(_ error: StoreError, fromFile: Bool = false) {
        self.init(.store(error.code, fromFile: fromFile), error.message)
    }

    /// A harness error, naming its file.
    package init(_ error: HarnessError) {
        self.init(.harness(error.kind), error.description)
    }

    /// A results, thresholds, report or process-statistics error, as `file:line:column: message`.
    package init(_ error: MetricsError) {
        self.init(.metrics(error.kind), error.description)
    }

    /// Any error: each library error by its kind, a `CommandError` unchanged, anything else
    /// an internal error (70).
    package init(wrapping error: any Error) {
        switch error {
        case let error as CommandError: self = error
        case let error as StoreError: self.init(error)
        case let error as HarnessError: self.init(error)
        case let error as MetricsError: self.init(error)
        default: self.init(.internalFailure, "internal error: \(error)")
        }
    }
}
