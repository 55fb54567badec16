import PagebenchMetrics

/// An error from the report layer: bad thresholds, bad arguments to a report, an unusable input.
///
/// ``description`` reads `file:line:column: message` when the position is known, so a CLI can
/// print it as is; ``kind`` decides the exit code.
public struct ReportError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure this is.
    public enum Kind: String, Sendable, Equatable {
        /// Malformed input data: a thresholds file, a CSV with unusable content (exit 65).
        case malformedInput
        /// An input file does not exist or cannot be read (exit 66).
        case inputUnavailable
        /// A request that cannot be served, e.g. an empty list of files (exit 64).
        case invalidRequest
        /// An output could not be written (exit 73).
        case outputFailed
    }

    public let kind: Kind
    public let file: String?
    public let line: Int?
    public let column: Int?
    public let message: String

    public init(kind: Kind, file: String? = nil, line: Int? = nil, column: Int? = nil, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        var prefix = file ?? ""
        if let line { prefix += (prefix.isEmpty ? "line " : ":") + String(line) }
        if let column { prefix += ":" + String(column) }
        return prefix.isEmpty ? message : prefix + ": " + message
    }

    static func malformed(_ file: String, _ line: Int?, _ column: Int?, _ message: String) -> ReportError {
        ReportError(kind: .malformedInput, file: file, line: line, column: column, message: message)
    }

    /// The report layer's view of a metrics error (reading CSV files, writing outputs).
    public init(_ error: MetricsError) {
        let kind: Kind
        switch error.kind {
        case .malformedInput, .invalidValue: kind = .malformedInput
        case .inputUnavailable: kind = .inputUnavailable
        case .outputFailed, .statisticsUnavailable: kind = .outputFailed
        }
        self.init(kind: kind, file: error.file, line: error.line, column: error.column, message: error.message)
    }
}
