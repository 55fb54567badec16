/// Whether a larger value of a metric is better, worse, or neither.
///
/// The regression checker uses it to call a measured change a regression or an improvement.
public enum Polarity: String, Sendable, CaseIterable {
    /// Larger is better (throughput).
    case higherIsBetter = "higher"
    /// Smaller is better (latency, memory, CPU, errors, empty pages).
    case lowerIsBetter = "lower"
    /// Neither: context, or a figure with no better direction.
    case neutral
}

/// How a column's value behaves between runs, which decides how the checker compares it.
public enum ColumnKind: String, Sendable, CaseIterable {
    /// Identifies or describes the run (scenario, seed, host, commit). Used to match rows, never compared.
    case context
    /// Identical on every machine for a given seed and configuration (docs/contract.md H3): compared exactly,
    /// any change is a behaviour change.
    case deterministic
    /// A measurement that varies run to run (time, memory, CPU): compared with its polarity and a
    /// tolerance that accounts for the spread of repetitions.
    case measured
}

/// The type of a column's cells.
public enum ColumnType: String, Sendable, CaseIterable {
    /// Free text (RFC 4180 quoting makes any text safe).
    case text
    /// A signed 64-bit integer, decimal.
    case integer
    /// An unsigned 64-bit integer, decimal (seeds, nanoseconds).
    case unsignedInteger = "unsigned"
    /// A finite decimal number, written in Swift's shortest round-trip form (e.g. `1234.5`, `1e-05`).
    case decimal
}

/// One column of a pagebench CSV file: its name, unit, polarity, kind and meaning.
///
/// ``ResultRow/columnDescriptors`` is the single source of truth for the results CSV header, the
/// docs/csv-columns.md table (``markdownTable(_:)``) and the checker's comparison rules.
public struct ColumnDescriptor: Sendable, Hashable {
    /// The header name, `snake_case`, with the unit as a suffix where there is one (`_ns`, `_s`, `_bytes`).
    public let name: String
    /// The unit of the values (`ns`, `pages/s`, `bytes`, …), or empty for unitless text and counts of things named by the column.
    public let unit: String
    public let polarity: Polarity
    public let kind: ColumnKind
    public let type: ColumnType
    /// Whether a cell may be empty, meaning "does not apply to this run" (e.g. open-loop columns in a closed-loop run).
    public let isOptional: Bool
    /// One line saying what the value is.
    public let summary: String

    public init(
        name: String,
        unit: String,
        polarity: Polarity,
        kind: ColumnKind,
        type: ColumnType,
        isOptional: Bool,
        summary: String
    ) {
        self.name = name
        self.unit = unit
        self.polarity = polarity
        self.kind = kind
        self.type = type
        self.isOptional = isOptional
        self.summary = summary
    }

    /// A markdown table of `columns`: name, type, unit, polarity, kind, description, one row each.
    ///
    /// Empty cells may occur only in columns whose type is marked "(optional)".
    public static func markdownTable(_ columns: [ColumnDescriptor]) -> String {
        func escape(_ text: String) -> String {
            var escaped = ""
            for character in text {
                if character == "|" { escaped += "\\|" } else { escaped.append(character) }
            }
            return escaped
        }
        var lines = [
            "| column | type | unit | polarity | kind | description |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for column in columns {
            let type = column.type.rawValue + (column.isOptional ? " (optional)" : "")
            let polarity: String
            switch column.polarity {
            case .higherIsBetter: polarity = "higher is better"
            case .lowerIsBetter: polarity = "lower is better"
            case .neutral: polarity = "—"
            }
            lines.append(
                "| `\(column.name)` | \(type) | \(column.unit.isEmpty ? "—" : escape(column.unit)) | \(polarity) | "
                    + "\(column.kind.rawValue) | \(escape(column.summary)) |"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
