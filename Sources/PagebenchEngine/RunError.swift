import PagebenchHarness
import PagebenchMetrics
import PagebenchStore

/// Why a run (`run`, `knee`, `baseline update`) failed or stopped, with a message that says
/// what was wrong and what to do. ``exitStatus`` is its documented exit code, from the one
/// table in ``ExitCodes`` (docs/exit-codes.md).
///
/// A run that wrote its rows and then failed (a broken SLO, a target that answered no page,
/// a signal) says so in ``message``: the rows are in the output.
public struct RunError: Error, CustomStringConvertible, Sendable {
    /// What went wrong; ``ExitCodes/code(for:)-(RunError)`` maps each to its exit code.
    enum Code: Hashable, Sendable {
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
        /// The failures a run shares with every command (usage, input, internal, output) and
        /// the store, harness and results errors, by their own kind (through ``CommandError``,
        /// which carries those kinds for every command).
        case command(CommandError.Code)
    }

    let code: Code
    /// What was wrong and what to do.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The documented exit code of this failure (docs/exit-codes.md).
    public var exitStatus: ExitStatus { ExitCodes.code(for: self) }

    /// The signal that stopped the run, when one did (H6).
    public var signal: Int32? {
        if case .interrupted(let signal) = code { return signal }
        return nil
    }

    /// Whether the rows were written and one broke an SLO.
    public var isSLOBroken: Bool { code == .sloBroken }

    public static func invalidRequest(_ message: String) -> RunError { RunError(.command(.usage), message) }
    public static func invalidInput(_ message: String) -> RunError { RunError(.command(.invalidInput), message) }
    public static func missingInput(_ message: String) -> RunError { RunError(.command(.missingInput), message) }
    public static func internalFailure(_ message: String) -> RunError { RunError(.command(.internalFailure), message) }
    public static func workerFailed(_ message: String) -> RunError { RunError(.workerFailed, message) }
    public static func cannotCreate(_ message: String) -> RunError { RunError(.cannotCreate, message) }
    public static func outputFailed(_ message: String) -> RunError { RunError(.command(.outputFailed), message) }
    public static func targetUnavailable(_ message: String) -> RunError { RunError(.targetUnavailable, message) }
    public static func countingUnavailable(_ message: String) -> RunError { RunError(.countingUnavailable, message) }
    public static func sloBroken(_ message: String) -> RunError { RunError(.sloBroken, message) }
    public static func interrupted(signal: Int32, _ message: String) -> RunError {
        RunError(.interrupted(signal: signal), message)
    }

    /// A command error (the store flags `run` shares with `items`, `pages` and `serve`).
    public init(_ error: CommandError) {
        self.init(.command(error.code), error.message)
    }

    /// A store error; `fromFile`: the configuration came from a file.
    public init(_ error: StoreError, fromFile: Bool = false) {
        self.init(CommandError(error, fromFile: fromFile))
    }

    /// A harness error, naming its file.
    public init(_ error: HarnessError) {
        self.init(CommandError(error))
    }

    /// A results, thresholds, report or process-statistics error, as `file:line:column: message`.
    public init(_ error: MetricsError) {
        self.init(CommandError(error))
    }

    /// Any error: a `RunError` unchanged, anything else as ``CommandError/init(wrapping:)``
    /// classifies it (each library error by its kind, the rest an internal error, 70).
    public init(wrapping error: any Error) {
        if let error = error as? RunError {
            self = error
        } else {
            self.init(CommandError(wrapping: error))
        }
    }
}
