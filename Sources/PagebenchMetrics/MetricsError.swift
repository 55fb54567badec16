/// An error about results and the files that hold them: reading CSV files, thresholds,
/// serialised histograms or process statistics, writing results and reports. The metrics,
/// process-statistics and report layers all throw this one shape.
///
/// The ``description`` says what was wrong and, where the reader can act, how to fix it.
/// Errors about a file carry its path and, for parse errors, the 1-based line and column
/// (``file``, ``line``, ``column``) so a CLI can print `file:line:column: message`.
public struct MetricsError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure this is; a CLI maps it to an exit code.
    public enum Kind: String, Sendable, Equatable {
        /// Malformed input data: CSV, a thresholds file, a serialised histogram, /proc
        /// contents (exit 65).
        case malformedInput
        /// An input file does not exist or cannot be read (exit 66).
        case inputUnavailable
        /// An output file could not be created or replaced (exit 73).
        case outputFailed
        /// The allocator or operating system could not report a statistic (exit 73: the
        /// results that needed it cannot be written).
        case statisticsUnavailable
        /// A value cannot be represented, e.g. a non-finite number in a CSV row (exit 65).
        case invalidValue
        /// A request that cannot be served, e.g. an empty list of files (exit 64).
        case invalidRequest
    }

    public let kind: Kind
    /// The file concerned, if any.
    public let file: String?
    /// 1-based line in ``file`` where the problem starts, if known.
    public let line: Int?
    /// 1-based column (character position within the line) where the problem starts, if known.
    public let column: Int?
    /// What went wrong and what to do about it.
    public let message: String

    public init(kind: Kind, file: String? = nil, line: Int? = nil, column: Int? = nil, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`, leaving out the parts that are unknown.
    public var description: String {
        var prefix = ""
        if let file { prefix += file }
        if let line { prefix += (prefix.isEmpty ? "line " : ":") + String(line) }
        if let column { prefix += ":" + String(column) }
        return prefix.isEmpty ? message : prefix + ": " + message
    }

    public static func malformed(file: String?, line: Int?, column: Int?, _ message: String) -> MetricsError {
        MetricsError(kind: .malformedInput, file: file, line: line, column: column, message: message)
    }

    package static func statistics(_ message: String) -> MetricsError {
        MetricsError(kind: .statisticsUnavailable, message: message)
    }
}
