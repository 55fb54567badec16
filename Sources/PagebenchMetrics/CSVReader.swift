/// A strict RFC 4180 CSV parser that says where input is wrong.
///
/// Accepted: fields separated by commas; records ended by LF or CRLF (mixed is fine); the last
/// record may lack a terminator; quoted fields with embedded commas, doubled quotes, CR and LF;
/// a UTF-8 byte-order mark at the very start, which is skipped (spreadsheets write one; it is
/// never part of the first column's name).
///
/// Rejected, with file, line and column: a quote inside an unquoted field, anything but a comma
/// or line end after a closing quote, an unterminated quoted field, and a bare CR outside quotes.
/// Column numbers count Unicode scalars from 1 on each physical line.
public struct CSVReader: Sendable {
    /// One parsed field and where it started.
    public struct Field: Sendable, Equatable {
        public var text: String
        /// 1-based physical line where the field starts.
        public var line: Int
        /// 1-based column where the field starts.
        public var column: Int
    }

    /// One parsed record: its fields and the line it starts on.
    public struct Record: Sendable, Equatable {
        public var fields: [Field]
        public var line: Int
    }

    /// Name of the input in error messages (a path, or `<stdin>`).
    public var file: String

    public init(file: String) {
        self.file = file
    }

    /// Parses `text` into records. An empty input (or only a BOM) gives no records.
    public func records(_ text: String) throws -> [Record] {
        var records: [Record] = []
        try forEachRecord(text) { records.append($0) }
        return records
    }

    /// Parses `text` and hands each record to `body` as soon as it is complete, so that a
    /// large file is never held as records all at once (only as text).
    public func forEachRecord(_ text: String, _ body: (Record) throws -> Void) throws {
        var fields: [Field] = []
        var current = String.UnicodeScalarView()
        var line = 1
        var column = 1
        var fieldLine = 1
        var fieldColumn = 1
        var recordLine = 1
        var scalars = text.unicodeScalars[...]
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        if scalars.isEmpty { return }

        enum State { case fieldStart, unquoted, quoted, afterClosingQuote }
        var state = State.fieldStart
        var openQuoteLine = 1
        var openQuoteColumn = 1

        func error(_ line: Int, _ column: Int, _ message: String) -> MetricsError {
            MetricsError.malformed(file: file, line: line, column: column, message)
        }

        func endField() {
            fields.append(Field(text: String(current), line: fieldLine, column: fieldColumn))
            current = String.UnicodeScalarView()
        }

        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let next = scalars.index(after: index)
            let isLineEnd = scalar == "\n" || (scalar == "\r" && next < scalars.endIndex && scalars[next] == "\n")
            switch state {
            case .fieldStart, .unquoted, .afterClosingQuote:
                if state == .fieldStart {
                    fieldLine = line
                    fieldColumn = column
                }
                if scalar == "," {
                    endField()
                    state = .fieldStart
                    fieldLine = line
                    fieldColumn = column + 1
                } else if isLineEnd {
                    endField()
                    try body(Record(fields: fields, line: recordLine))
                    fields = []
                    state = .fieldStart
                    if scalar == "\r" { index = next }
                    line += 1
                    column = 0
                    recordLine = line
                } else if scalar == "\r" {
                    throw error(line, column, "bare carriage return outside quotes; use LF or CRLF line endings")
                } else if state == .afterClosingQuote {
                    throw error(
                        line, column,
                        "unexpected '\(scalar.escaped(asASCII: true))' after a closing quote; "
                            + "a quoted field must be followed by a comma or the end of the line "
                            + "(write a quote inside a quoted field as \"\")")
                } else if scalar == "\"" {
                    if state == .fieldStart {
                        state = .quoted
                        openQuoteLine = line
                        openQuoteColumn = column
                    } else {
                        throw error(
                            line, column,
                            "quote inside an unquoted field; quote the whole field and double the quote (\"a \"\"b\"\"\")")
                    }
                } else {
                    current.append(scalar)
                    state = .unquoted
                }
            case .quoted:
                if scalar == "\"" {
                    if next < scalars.endIndex, scalars[next] == "\"" {
                        current.append("\"")
                        index = next
                        column += 1
                    } else {
                        state = .afterClosingQuote
                    }
                } else {
                    current.append(scalar)
                    if scalar == "\n" {
                        line += 1
                        column = 0
                    }
                }
            }
            index = scalars.index(after: index)
            column += 1
        }
        if state == .quoted {
            throw error(
                openQuoteLine, openQuoteColumn, "quoted field is never closed; add the closing quote (\")")
        }
        // A last record without a line terminator.
        if state != .fieldStart || !fields.isEmpty {
            endField()
            try body(Record(fields: fields, line: recordLine))
        }
    }
}
