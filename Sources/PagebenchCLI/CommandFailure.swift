import ArgumentParser
import Foundation
import PagebenchStore

/// A failure of a subcommand with its documented exit code (README.md, "Exit codes").
///
/// Subcommands do their work in an `execute` method that throws this, so tests can check
/// the exit code and message in-process; `run()` prints the message to stderr and exits.
public struct CommandFailure: Error, CustomStringConvertible, Sendable {
    public let exitCode: ExitCode
    public let message: String

    public init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    public var description: String { message }

    /// Maps a store error to its exit code: request errors 64, token errors 65, injected
    /// failures 69, a bad configuration 64 (flags) or 65 (file, `fromFile`).
    public init(_ error: StoreError, fromFile: Bool = false) {
        let code: ExitCode
        switch error.code {
        case .invalidLimit, .invalidSegment, .unknownPartition: code = ExitCodes.usage
        case .invalidConfiguration: code = fromFile ? ExitCodes.dataError : ExitCodes.usage
        case .invalidToken, .tokenMismatch: code = ExitCodes.dataError
        case .throttled, .injectedFault: code = ExitCodes.unavailable
        }
        self.init(code, error.message)
    }

    /// Wraps any error: store errors by their code, `CommandFailure` unchanged, the rest as 70.
    public init(wrapping error: any Error) {
        if let failure = error as? CommandFailure {
            self = failure
        } else if let storeError = error as? StoreError {
            self.init(storeError)
        } else {
            self.init(ExitCodes.software, "internal error: \(error)")
        }
    }

    /// Prints the message to stderr and returns the exit code to throw from `run()`.
    func report() -> ExitCode {
        StandardError.write("pagebench: error: \(message)\n")
        return exitCode
    }
}
