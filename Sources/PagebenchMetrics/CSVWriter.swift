/// Writes RFC 4180 CSV text.
///
/// A field is quoted when it contains a comma, a double quote, CR or LF, or leading/trailing
/// spaces; a quote inside a quoted field is doubled. Records end with LF by default — RFC 4180
/// says CRLF, but results files live in git where CRLF shows as noise; pass `.crlf` for strict
/// RFC output. ``CSVReader`` accepts both.
public struct CSVWriter: Sendable {
    /// The record terminator.
    public enum LineEnding: String, Sendable {
        case lf = "\n"
        case crlf = "\r\n"
    }

    public var lineEnding: LineEnding

    public init(lineEnding: LineEnding = .lf) {
        self.lineEnding = lineEnding
    }

    /// One record, terminated.
    public func record(_ fields: [String]) -> String {
        fields.map(Self.escape).joined(separator: ",") + lineEnding.rawValue
    }

    /// A whole table: `header` then each record.
    public func table(header: [String], records: [[String]]) -> String {
        var text = record(header)
        for fields in records { text += record(fields) }
        return text
    }

    /// The field as it appears in CSV: quoted if needed, quotes doubled.
    public static func escape(_ field: String) -> String {
        let needsQuotes =
            field.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }
            || field.unicodeScalars.first == " " || field.unicodeScalars.last == " "
        guard needsQuotes else { return field }
        var quoted = "\""
        for scalar in field.unicodeScalars {
            if scalar == "\"" { quoted += "\"\"" } else { quoted.unicodeScalars.append(scalar) }
        }
        return quoted + "\""
    }
}
