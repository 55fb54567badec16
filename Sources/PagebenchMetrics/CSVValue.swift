import PagebenchBase

/// One typed CSV cell value.
public enum CSVValue: Sendable, Hashable, CustomStringConvertible {
    case text(String)
    case integer(Int)
    case unsignedInteger(UInt64)
    /// A finite number.
    case decimal(Double)
    /// An empty cell: the metric does not apply to this run.
    case missing

    /// The cell's text: integers in decimal, decimals in Swift's shortest round-trip form, missing as empty.
    public var field: String {
        switch self {
        case .text(let text): text
        case .integer(let value): String(value)
        case .unsignedInteger(let value): String(value)
        case .decimal(let value): value.description
        case .missing: ""
        }
    }

    public var description: String { field }

    /// The value as a number for statistics and plots; nil for text and missing cells.
    public var numericValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .unsignedInteger(let value): Double(value)
        case .decimal(let value): value
        case .text, .missing: nil
        }
    }

    /// Parses one cell of the given type. Returns nil with no value for an empty cell.
    ///
    /// - Returns: the value, or a message saying what was expected, for the caller to wrap with a position.
    static func parse(_ field: Substring, as type: ColumnType) -> Result<CSVValue, ParseFailure> {
        if field.isEmpty { return .success(.missing) }
        switch type {
        case .text:
            if let control = field.unicodeScalars.first(where: ControlCharacters.isControl) {
                return .failure(
                    ParseFailure(
                        "holds the control character \(ControlCharacters.escaped(String(control))); text cells may not "
                            + "(it would reach a terminal or a report)"
                    )
                )
            }
            return .success(.text(String(field)))
        case .integer:
            guard let value = Int(field) else {
                return .failure(ParseFailure("expected an integer, found '\(field)'"))
            }
            return .success(.integer(value))
        case .unsignedInteger:
            guard let value = UInt64(field) else {
                return .failure(ParseFailure("expected a non-negative integer, found '\(field)'"))
            }
            return .success(.unsignedInteger(value))
        case .decimal:
            // Decimal notation only: no "nan", "inf", hexadecimal floats or spaces.
            let allowed = field.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "e")
                    || byte == UInt8(ascii: "E")
            }
            guard allowed, let value = Double(field), value.isFinite else {
                return .failure(
                    ParseFailure("expected a finite decimal number such as 12.5 or 1e-05, found '\(field)'")
                )
            }
            return .success(.decimal(value))
        }
    }

    struct ParseFailure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}
