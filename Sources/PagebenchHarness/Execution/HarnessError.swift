import Foundation
import PagebenchBase

/// An error of the load harness: a bad scenario or flag, a missing file, an output that
/// could not be written. ``kind`` decides the CLI's exit code; ``message`` names the field
/// or file that is wrong and says how to fix it.
///
/// `CancellationError` is never wrapped.
public struct HarnessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is (the CLI maps it to an exit code, docs/exit-codes.md).
    public enum Kind: String, Sendable, Hashable {
        /// The content of a scenario file is invalid: bad JSON, an unknown key, a value out
        /// of range (exit 65).
        case invalidScenario
        /// A command-line flag or override is invalid (exit 64).
        case invalidArgument
        /// A scenario file or directory does not exist or cannot be read (exit 66).
        case inputUnavailable
        /// A results file could not be written (exit 73).
        case outputFailed
        /// Result shards that cannot be merged: malformed, from different runs, duplicated or
        /// missing (exit 65).
        case invalidShard
        /// A worker process of `run --workers` could not be started, died from a signal or
        /// exited with a failure (exit 71).
        case workerFailed
    }

    public let kind: Kind
    /// The file concerned, if any.
    public let file: String?
    /// What was wrong and what to do.
    public let message: String

    public init(_ kind: Kind, file: String? = nil, _ message: String) {
        self.kind = kind
        self.file = file
        self.message = message
    }

    public var description: String { file.map { "\($0): \(message)" } ?? message }

    /// A scenario field with an invalid value: `field` is its JSON path (`workload.limit`).
    public static func invalidField(_ field: String, _ problem: String) -> HarnessError {
        HarnessError(.invalidScenario, "\(field): \(problem)")
    }

    /// The same error attributed to `file`.
    public func inFile(_ file: String) -> HarnessError {
        HarnessError(kind, file: file, message)
    }

    /// The same error as a command-line problem (exit 64): the value came from a flag.
    public func asArgumentError() -> HarnessError {
        HarnessError(.invalidArgument, file: file, message)
    }
}

extension HarnessError {
    /// The bytes of the input file `path` (a scenario, a shard).
    ///
    /// - Throws: `inputUnavailable` with `ifMissing` when there is no such file, with the
    ///   OS's reason when it cannot be read.
    public static func readInput(_ path: String, ifMissing: String) throws(HarnessError) -> Data {
        do {
            return Data(try FileSystem.readBytes(path))
        } catch {
            throw HarnessError(.inputUnavailable, file: path, error.kind == .missing ? ifMissing : error.reason)
        }
    }
}
