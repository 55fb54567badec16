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
///
/// It reads UTF-8 bytes (every character with a meaning in CSV is ASCII, and no byte of a
/// multi-byte UTF-8 sequence is ASCII), so a large file is parsed in pieces as it is read
/// (``parseRecords(_:line:atStart:isEnd:_:)``) instead of being held whole.
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
    /// large text is never held as records all at once.
    public func forEachRecord(_ text: String, _ body: (Record) throws -> Void) throws {
        var text = text
        try text.withUTF8 { bytes in
            _ = try parseRecords(bytes, line: 1, atStart: true, isEnd: true, body)
        }
    }

    /// Parses the records of `bytes`, UTF-8 text that begins at a record boundary, handing
    /// each complete record to `body`.
    ///
    /// - Parameters:
    ///   - line: the physical line `bytes` begins on, for positions in records and errors.
    ///   - atStart: whether `bytes` begin the input, so that a byte-order mark is skipped.
    ///   - isEnd: whether the input ends with `bytes`. If not, a record that is not yet ended
    ///     by a line break is left unparsed, for the next call with more bytes appended.
    /// - Returns: how many bytes were consumed (through the line break of the last record
    ///   handed to `body`; all of them when `isEnd`) and the line that follows them.
    /// - Throws: ``MetricsError`` (`malformedInput`) at the first defect, with line and column.
    public func parseRecords(
        _ bytes: UnsafeBufferPointer<UInt8>,
        line startLine: Int,
        atStart: Bool,
        isEnd: Bool,
        _ body: (Record) throws -> Void
    ) throws -> (consumed: Int, line: Int) {
        let comma = UInt8(ascii: ",")
        let quote = UInt8(ascii: "\"")
        let lineFeed = UInt8(ascii: "\n")
        let carriageReturn = UInt8(ascii: "\r")
        let end = bytes.count
        var index = 0
        if atStart, end >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        var consumed = index
        var fields: [Field] = []
        var line = startLine
        var column = 1
        var fieldLine = line
        var fieldColumn = 1
        var fieldStart = index
        var recordLine = line
        var quoted: [UInt8] = []
        var segmentStart = index

        enum State { case fieldStart, unquoted, quoted, afterClosingQuote }
        var state = State.fieldStart
        var openQuoteLine = line
        var openQuoteColumn = 1

        func error(_ line: Int, _ column: Int, _ message: String) -> MetricsError {
            MetricsError.malformed(file: file, line: line, column: column, message)
        }

        func endField(at position: Int) {
            let text: String
            if state == .afterClosingQuote {
                text = String(decoding: quoted, as: UTF8.self)
                quoted.removeAll(keepingCapacity: true)
            } else {
                text = String(decoding: UnsafeBufferPointer(rebasing: bytes[fieldStart..<position]), as: UTF8.self)
            }
            fields.append(Field(text: text, line: fieldLine, column: fieldColumn))
        }

        /// The scalar whose UTF-8 sequence starts at `position`, as Swift escapes it.
        func scalar(at position: Int) -> String {
            var length = 1
            while position + length < end, bytes[position + length] & 0xC0 == 0x80 { length += 1 }
            let text = String(
                decoding: UnsafeBufferPointer(rebasing: bytes[position..<(position + length)]),
                as: UTF8.self
            )
            return text.unicodeScalars.first.map { $0.escaped(asASCII: true) } ?? "?"
        }

        while index < end {
            let byte = bytes[index]
            // A continuation byte of a multi-byte scalar: part of the field, not a column.
            if byte & 0xC0 == 0x80 {
                index += 1
                continue
            }
            let next = index + 1
            switch state {
            case .fieldStart, .unquoted, .afterClosingQuote:
                if state == .fieldStart {
                    fieldLine = line
                    fieldColumn = column
                    fieldStart = index
                }
                if byte == comma {
                    endField(at: index)
                    state = .fieldStart
                    fieldLine = line
                    fieldColumn = column + 1
                    fieldStart = next
                } else if byte == lineFeed || (byte == carriageReturn && next < end && bytes[next] == lineFeed) {
                    endField(at: index)
                    try body(Record(fields: fields, line: recordLine))
                    fields.removeAll(keepingCapacity: true)
                    state = .fieldStart
                    if byte == carriageReturn { index = next }
                    line += 1
                    column = 0
                    recordLine = line
                    consumed = index + 1
                    fieldStart = consumed
                } else if byte == carriageReturn {
                    // A CR at the end of a piece may be the first half of a CRLF.
                    if next == end && !isEnd { return (consumed, recordLine) }
                    throw error(line, column, "bare carriage return outside quotes; use LF or CRLF line endings")
                } else if state == .afterClosingQuote {
                    // Name the whole scalar, which may not have arrived yet.
                    let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                    if index + length > end && !isEnd { return (consumed, recordLine) }
                    throw error(
                        line,
                        column,
                        "unexpected '\(scalar(at: index))' after a closing quote; "
                            + "a quoted field must be followed by a comma or the end of the line "
                            + "(write a quote inside a quoted field as \"\")"
                    )
                } else if byte == quote {
                    if state == .fieldStart {
                        state = .quoted
                        openQuoteLine = line
                        openQuoteColumn = column
                        segmentStart = next
                    } else {
                        throw error(
                            line,
                            column,
                            "quote inside an unquoted field; quote the whole field and double the quote (\"a \"\"b\"\"\")"
                        )
                    }
                } else {
                    state = .unquoted
                }
            case .quoted:
                if byte == quote {
                    if next < end, bytes[next] == quote {
                        // A doubled quote: keep one.
                        quoted.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<next]))
                        index = next
                        column += 1
                        segmentStart = next + 1
                    } else if next == end && !isEnd {
                        // It may be the first half of a doubled quote.
                        return (consumed, recordLine)
                    } else {
                        quoted.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<index]))
                        state = .afterClosingQuote
                    }
                } else if byte == lineFeed {
                    line += 1
                    column = 0
                }
            }
            index += 1
            column += 1
        }
        guard isEnd else { return (consumed, recordLine) }
        if state == .quoted {
            throw error(openQuoteLine, openQuoteColumn, "quoted field is never closed; add the closing quote (\")")
        }
        // A last record without a line terminator.
        if state != .fieldStart || !fields.isEmpty {
            endField(at: end)
            try body(Record(fields: fields, line: recordLine))
        }
        return (end, line)
    }
}
