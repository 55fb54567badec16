import PagebenchHarness
import PagebenchMetrics
import PagebenchStore

/// Why a command other than a run (`items`, `pages`, `serve`, `http-bench`, the store flags
/// they share, standard output) failed, with a message that says what was wrong and what to
/// do. ``exitStatus`` is its documented exit code, from the one table in ``ExitCodes``
/// (docs/exit-codes.md): a command says what went wrong, never which code that is.
public struct CommandError: Error, CustomStringConvertible, Sendable {
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
        /// A store, harness or results error, by its own kind.
        case store(StoreError.Code, fromFile: Bool)
        case harness(HarnessError.Kind)
        case metrics(MetricsError.Kind)
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

    public static func usage(_ message: String) -> CommandError { CommandError(.usage, message) }
    public static func invalidInput(_ message: String) -> CommandError { CommandError(.invalidInput, message) }
    public static func missingInput(_ message: String) -> CommandError { CommandError(.missingInput, message) }
    public static func unavailable(_ message: String) -> CommandError { CommandError(.unavailable, message) }
    public static func internalFailure(_ message: String) -> CommandError { CommandError(.internalFailure, message) }
    public static func outputFailed(_ message: String) -> CommandError { CommandError(.outputFailed, message) }

    /// A store error; `fromFile`: the configuration came from a file.
    public init(_ error: StoreError, fromFile: Bool = false) {
        self.init(.store(error.code, fromFile: fromFile), error.message)
    }

    /// A harness error, naming its file.
    public init(_ error: HarnessError) {
        self.init(.harness(error.kind), error.description)
    }

    /// A results, thresholds, report or process-statistics error, as `file:line:column: message`.
    public init(_ error: MetricsError) {
        self.init(.metrics(error.kind), error.description)
    }

    /// Any error: each library error by its kind, a `CommandError` unchanged, anything else
    /// an internal error (70).
    public init(wrapping error: any Error) {
        switch error {
        case let error as CommandError: self = error
        case let error as StoreError: self.init(error)
        case let error as HarnessError: self.init(error)
        case let error as MetricsError: self.init(error)
        default: self.init(.internalFailure, "internal error: \(error)")
        }
    }
}
