import PagebenchBase

#if canImport(Glibc)
import Glibc
#endif

/// Reads and writes files of ``CSVRecord`` rows: results (``ResultRow``) and time series (``TimeSeriesRow``).
public enum CSVFile {
    /// Reads every row of `path`.
    ///
    /// - Throws: ``MetricsError``: `.inputUnavailable` if the file is missing or unreadable,
    ///   `.malformedInput` with line and column for bad content.
    public static func read<Row: CSVRecord>(_ type: Row.Type = Row.self, from path: String) throws -> [Row] {
        var rows: [Row] = []
        try forEachRow(Row.self, from: path) { rows.append($0) }
        return rows
    }

    /// Whether a results file may hold two rows of one identity and repetition.
    public enum RepeatedRows: Sendable {
        /// A results file or a baseline: a row given twice would count one measurement as two
        /// samples (`check`) or two configurations (`compare`).
        case refused
        /// A history file: every run appends its rows, so repetitions recur by design.
        case allowed
    }

    /// Every row of the results file at `path`, which must hold at least one.
    ///
    /// - Throws: ``MetricsError``: `inputUnavailable` for a missing file, `malformedInput`
    ///   with file, line and column for bad content, for a header without rows, or (unless
    ///   `repeatedRows` allows it) for a row of the identity and repetition of an earlier one.
    public static func readResults(_ path: String, repeatedRows: RepeatedRows = .refused) throws -> [ResultRow] {
        var rows: [ResultRow] = []
        try forEachResult(path, repeatedRows: repeatedRows) { row, _ in rows.append(row) }
        return rows
    }

    /// Hands every row of the results file at `path` to `body` as it is read, with its typed
    /// cells (by ``ResultRow/csvColumns`` index: what a reader of a few columns of many rows
    /// takes instead of the row's key paths); the file must hold at least one (errors as
    /// ``readResults(_:repeatedRows:)``).
    public static func forEachResult(
        _ path: String,
        repeatedRows: RepeatedRows = .refused,
        _ body: (ResultRow, [CSVValue]) throws -> Void
    ) throws {
        var count = 0
        var firstLine: [RowKey: Int] = [:]
        try forEachRow(ResultRow.self, from: path, pieceBytes: pieceBytes) { row, cells, line in
            count += 1
            if repeatedRows == .refused {
                let earlier = firstLine.updateValue(
                    line,
                    forKey: RowKey(identity: row.identity, repetition: row.repetition)
                )
                if let earlier {
                    throw MetricsError.malformed(
                        file: path,
                        line: line,
                        column: nil,
                        "this row repeats line \(earlier): both are \(row.identity) repetition \(row.repetition); "
                            + "a measurement given twice would count as two, so give each row once "
                            + "(a history file, which repeats them by design, goes to --history)"
                    )
                }
            }
            try body(row, cells)
        }
        guard count > 0 else {
            throw MetricsError.malformed(
                file: path,
                line: 2,
                column: nil,
                "the file has a header but no rows; was the run interrupted?"
            )
        }
    }

    /// What makes two rows of a results file the same measurement.
    private struct RowKey: Hashable {
        let identity: ResultIdentity
        let repetition: Int
    }

    /// How much of a file is read at a time: a file of any size is held as at most this
    /// much text (plus one record), never whole.
    static let pieceBytes = 4 << 20

    /// Reads `path` a piece at a time and hands each row to `body` as soon as its record is
    /// complete, so that memory does not grow with the file (only with what `body` keeps).
    ///
    /// - Throws: ``MetricsError`` as ``read(_:from:)``: rows before a defect have been handed
    ///   to `body` by then.
    public static func forEachRow<Row: CSVRecord>(
        _ type: Row.Type = Row.self,
        from path: String,
        _ body: (Row) throws -> Void
    ) throws {
        try forEachRow(type, from: path, pieceBytes: pieceBytes) { row, _, _ in try body(row) }
    }

    /// The longest record (line) a results CSV may hold.
    static let maximumRecordBytes = 16 << 20

    /// ``forEachRow(_:from:_:)`` reading `pieceBytes` at a time (tests cut files into tiny
    /// pieces), handing each row's typed cells and line along.
    static func forEachRow<Row: CSVRecord>(
        _ type: Row.Type,
        from path: String,
        pieceBytes: Int,
        _ body: (Row, [CSVValue], Int) throws -> Void
    ) throws {
        let file: FileSystem.InputFile
        do {
            file = try FileSystem.InputFile(path)
        } catch {
            throw TextFile.inputError(error)
        }
        let reader = CSVReader(file: path)
        var rows = CSVRowReader<Row>(file: path)
        var buffer: [UInt8] = []
        var line = 1
        var atStart = true
        var isEnd = false
        var piece = pieceBytes
        while !isEnd {
            do {
                isEnd = try !file.read(appendingTo: &buffer, atMost: piece)
            } catch {
                throw TextFile.inputError(error)
            }
            // A line past the bound is refused, not held whole (a file of one endless line).
            guard buffer.count <= Self.maximumRecordBytes || buffer.contains(UInt8(ascii: "\n")) else {
                throw MetricsError.malformed(
                    file: path,
                    line: line,
                    column: nil,
                    "a line longer than \(Self.maximumRecordBytes >> 20) MiB; is it a CSV file?"
                )
            }
            // Whole lines are UTF-8 on their own: a line feed is never part of a multi-byte scalar.
            let complete = isEnd ? buffer.count : (buffer.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0)
            guard var text = String(validating: buffer[..<complete], as: UTF8.self) else {
                throw TextFile.inputError(
                    FileSystem.Failure(kind: .notUTF8, path: path, reason: "not UTF-8 text; save it as UTF-8")
                )
            }
            let parsed = try text.withUTF8 { bytes in
                try reader.parseRecords(bytes, line: line, atStart: atStart, isEnd: isEnd) { record in
                    if let row = try rows.take(record) { try body(row, rows.cells, record.line) }
                }
            }
            buffer.removeFirst(parsed.consumed)
            line = parsed.line
            if parsed.consumed > 0 { atStart = false }
            // A record longer than a piece: read more before trying again.
            piece = parsed.consumed == 0 ? piece * 2 : pieceBytes
        }
        try rows.finish()
    }

    /// Writes `rows` (with the header) to `path` atomically: the old file stays intact on failure.
    public static func write<Row: CSVRecord>(_ rows: [Row], to path: String, writer: CSVWriter = CSVWriter()) throws {
        try AtomicFile.write(Row.csvText(rows, writer: writer), to: path)
    }

    /// Appends `rows` to a history file, creating it with a header if it does not exist or is empty.
    ///
    /// The existing header must equal this build's header exactly; otherwise nothing is written
    /// and the error says to start a new history file. The rows go in with one write under an
    /// exclusive lock (``AtomicFile/appendLocked(to:_:)``), so concurrent runs appending to
    /// one history file keep every row.
    public static func append<Row: CSVRecord>(
        _ rows: [Row],
        toHistory path: String,
        writer: CSVWriter = CSVWriter()
    )
        throws
    {
        let newText = try Row.csvText(rows, writer: writer)
        try AtomicFile.appendLocked(to: path) { existing in
            guard try checkAppendable(existing, path: path, as: Row.self) else { return newText }
            // Drop the new text's header line.
            return String(newText.drop { $0 != "\n" && $0 != "\r\n" }.dropFirst())
        }
    }

    /// Checks, without writing, that ``append(_:toHistory:writer:)`` would take rows of `Row`
    /// at `path` (missing or empty, or this build's exact header and a whole last line): what
    /// `run` asks before it measures anything.
    public static func checkAppendable<Row: CSVRecord>(toHistory path: String, as type: Row.Type) throws {
        var isDirectory = false
        guard FileSystem.exists(path, isDirectory: &isDirectory), !isDirectory else { return }
        _ = try checkAppendable(TextFile.read(path), path: path, as: type)
    }

    /// Whether `existing` (a history file's text) already has rows to append after: false for
    /// an empty file (or a byte-order mark alone, which stays: the header follows it).
    ///
    /// - Throws: ``MetricsError`` (`.outputFailed`) for another header or a cut last line.
    private static func checkAppendable<Row: CSVRecord>(
        _ existing: String,
        path: String,
        as type: Row.Type
    ) throws -> Bool {
        if existing.isEmpty || existing == "\u{FEFF}" { return false }
        var header: [String] = []
        try CSVReader(file: path).forEachRecord(String(existing.prefix { $0 != "\n" && $0 != "\r\n" })) {
            header = $0.fields.map(\.text)
        }
        guard header == Row.csvHeader else {
            let firstDifference = zip(header, Row.csvHeader).enumerated().first { $0.element.0 != $0.element.1 }
            let detail: String
            if let (index, (found, expected)) = firstDifference {
                detail = "column \(index + 1) is '\(found)' there but '\(expected)' in this build"
            } else {
                detail = "it has \(header.count) columns, this build writes \(Row.csvHeader.count)"
            }
            throw MetricsError(
                kind: .outputFailed,
                file: path,
                line: 1,
                message: "cannot append: the history file's header differs from this build's (\(detail)); "
                    + "start a new history file or move this one aside"
            )
        }
        guard existing.hasSuffix("\n") else {
            throw MetricsError(
                kind: .outputFailed,
                file: path,
                message: "cannot append: the history file does not end with a line break, so its last row "
                    + "may be truncated; check and repair its last line"
            )
        }
        return true
    }
}
