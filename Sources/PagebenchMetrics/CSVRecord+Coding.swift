extension CSVRecord {
    /// The CSV text of `rows`: the header, then one record per row.
    public static func csvText(_ rows: [Self], writer: CSVWriter = CSVWriter()) throws -> String {
        for row in rows { try row.validateForCSV() }
        return writer.table(header: csvHeader, records: rows.map(\.csvFields))
    }

    /// Checks that every value can be written: decimals must be finite.
    public func validateForCSV() throws {
        for column in Self.csvColumns {
            if case .decimal(let value) = column.value(self), !value.isFinite {
                throw MetricsError(
                    kind: .invalidValue,
                    message: "column '\(column.name)' is \(value), which CSV cannot carry; "
                        + "a rate over a zero-length interval? Leave an optional column empty (nil) instead"
                )
            }
        }
    }

    /// Parses CSV text with a header naming exactly this type's columns (any order).
    ///
    /// Errors carry `file`, line and column: no header, unknown, duplicate or missing columns,
    /// a record with the wrong number of fields, a value of the wrong type, an empty cell in a
    /// required column, a partly filled group of optional columns, a value no run can have
    /// written (``Implausibility``), or a `schema_version` this build does not read. A file of an ``CSVRecord/earlierSchemaVersions`` version lacks
    /// exactly the columns added since; its rows read with those empty, as this version.
    public static func parseCSV(_ text: String, file: String) throws -> [Self] {
        // Records are decoded as they are read: the text is never held a second time as fields.
        var reader = CSVRowReader<Self>(file: file)
        var rows: [Self] = []
        try CSVReader(file: file).forEachRecord(text) { record in
            if let row = try reader.take(record) { rows.append(row) }
        }
        try reader.finish()
        return rows
    }

    fileprivate static var schemaVersionHint: String {
        guard let column = csvColumns.first(where: { $0.name == "schema_version" }),
            case .integer(let version) = column.value(blank)
        else { return "(unversioned)" }
        return String(version)
    }

    /// Accepts this build's version, or an earlier one whose file lacks exactly the columns
    /// added since (`missing`), which it upgrades to this version (those cells stay empty).
    fileprivate static func checkSchemaVersion(
        _ row: inout Self,
        record: CSVReader.Record,
        position: Int?,
        columnOfField: [Int],
        missing: Set<String>,
        file: String
    ) throws {
        guard let position else { return }
        let column = csvColumns[columnOfField[position]]
        let field = record.fields[position]
        if column.value(row) == column.value(blank) {
            guard missing.isEmpty else {
                throw MetricsError.malformed(
                    file: file,
                    line: record.line,
                    column: nil,
                    "schema_version \(field.text) rows need column\(missing.count == 1 ? "" : "s") "
                        + "\(missing.sorted().map { "'\($0)'" }.joined(separator: ", ")), which the header lacks"
                )
            }
            return
        }
        if case .integer(let version) = column.value(row), earlierSchemaVersions[version] == missing {
            column.store(&row, column.value(blank))
            return
        }
        throw MetricsError.malformed(
            file: file,
            line: field.line,
            column: field.column,
            "schema_version \(field.text) is not the version this pagebench reads (\(schemaVersionHint)); "
                + "regenerate the file with this build or use the pagebench version that wrote it"
        )
    }
}

/// Turns the records of one file into rows: the first record is the header, every later
/// one a row decoded against it (``CSVRecord/parseCSV(_:file:)``, ``CSVFile/forEachRow(_:from:_:)``).
struct CSVRowReader<Row: CSVRecord> {
    let file: String
    private var decoder: CSVRowDecoder<Row>?

    init(file: String) {
        self.file = file
    }

    /// The row of `record`, or nil for the header.
    mutating func take(_ record: CSVReader.Record) throws -> Row? {
        if decoder != nil { return try decoder!.row(record) }
        decoder = try CSVRowDecoder(header: record, file: file)
        return nil
    }

    /// The typed cells of the last row ``take(_:)`` returned, by ``CSVRecord/csvColumns``
    /// index: what the row holds (for a column the file lacks, the row's default).
    var cells: [CSVValue] { decoder?.cells ?? [] }

    /// Refuses a file that had no header.
    func finish() throws {
        guard decoder != nil else {
            throw MetricsError.malformed(
                file: file,
                line: 1,
                column: 1,
                "the file is empty; expected a header line starting '\(Row.csvHeader.prefix(3).joined(separator: ","))…'"
            )
        }
    }
}

/// Decodes records into rows against one header (the header checks of ``CSVRecord/parseCSV(_:file:)``).
struct CSVRowDecoder<Row: CSVRecord> {
    let header: CSVReader.Record
    let file: String
    /// The column index of each header field.
    let columnOfField: [Int]
    /// Columns the header lacks: empty, or exactly those added since an earlier schema version.
    let missing: Set<String>
    /// `Row.csvColumns`, read once.
    let columns: [CSVColumn<Row>]
    /// Each column's type and whether it is optional, read once: a row reads them per field,
    /// and copying a `CSVColumn` out of the array (its closures and names) costs more than
    /// parsing the field.
    let types: [ColumnType]
    let optional: [Bool]
    /// The fields of optional columns: only those can read back otherwise than written (a
    /// group of them filled in part), so only those are checked after a row is stored.
    let optionalFields: [Int]
    /// Which field is `schema_version`, if the header has it.
    let schemaVersionField: Int?
    /// The columns the header lacks (an earlier schema version), whose cells are the row's
    /// defaults.
    let missingColumns: [Int]
    /// The field (position in the record) of each column, nil for a column the header lacks.
    let fieldOfColumn: [Int?]
    /// The checks every row passes (negative numbers, 0/1 flags, percentile order).
    let plausibility: CSVPlausibility
    /// The typed cells of the last row decoded, by column index.
    private(set) var cells: [CSVValue] = []
    /// The previous row's text per column: a row that repeats it (host, commit, scenario…)
    /// shares its storage instead of holding another copy, which keeps a large file's rows
    /// small.
    private var previousText: [String?] = []

    init(header: CSVReader.Record, file: String) throws {
        let columns = Row.csvColumns
        var byName: [String: Int] = [:]
        for (index, column) in columns.enumerated() { byName[column.name] = index }

        // Map each header field to a column.
        var columnOfField: [Int] = []
        var seen: [Int: CSVReader.Field] = [:]
        let known = header.fields.filter { byName[$0.text] != nil }.count
        for field in header.fields {
            guard let index = byName[field.text] else {
                if known == 0 {
                    throw MetricsError.malformed(
                        file: file,
                        line: field.line,
                        column: field.column,
                        "missing header: line \(field.line) does not name any known column (found '\(field.text)'); "
                            + "the first line must be the header, starting '\(Row.csvHeader.prefix(3).joined(separator: ","))…'"
                    )
                }
                throw MetricsError.malformed(
                    file: file,
                    line: field.line,
                    column: field.column,
                    "unknown column '\(field.text)'; this pagebench reads schema version \(Row.schemaVersionHint) "
                        + "(columns are listed in docs/csv-columns.md)"
                )
            }
            if let earlier = seen[index] {
                throw MetricsError.malformed(
                    file: file,
                    line: field.line,
                    column: field.column,
                    "column '\(field.text)' appears twice (first at column \(earlier.column))"
                )
            }
            seen[index] = field
            columnOfField.append(index)
        }
        let missing = columns.indices.filter { seen[$0] == nil }.map { columns[$0].name }
        let missingSet = Set(missing)
        guard missing.isEmpty || Row.earlierSchemaVersions.values.contains(missingSet) else {
            throw MetricsError.malformed(
                file: file,
                line: header.line,
                column: nil,
                "header lacks column\(missing.count == 1 ? "" : "s") \(missing.map { "'\($0)'" }.joined(separator: ", ")); "
                    + "was the file written by another pagebench version? Regenerate it with this one"
            )
        }
        self.header = header
        self.file = file
        self.columnOfField = columnOfField
        self.missing = missingSet
        self.columns = columns
        types = columns.map(\.descriptor.type)
        optional = columns.map(\.descriptor.isOptional)
        optionalFields = columnOfField.indices.filter { columns[columnOfField[$0]].descriptor.isOptional }
        schemaVersionField = columnOfField.firstIndex { columns[$0].name == "schema_version" }
        missingColumns = columns.indices.filter { missingSet.contains(columns[$0].name) }
        var fieldOfColumn = [Int?](repeating: nil, count: columns.count)
        for (field, column) in columnOfField.enumerated() { fieldOfColumn[column] = field }
        self.fieldOfColumn = fieldOfColumn
        plausibility = CSVPlausibility(columns.map(\.descriptor))
        previousText = Array(repeating: nil, count: columns.count)
        cells = Array(repeating: .missing, count: columns.count)
    }

    mutating func row(_ record: CSVReader.Record) throws -> Row {
        guard record.fields.count == header.fields.count else {
            let hint =
                record.fields.count == 1 && record.fields[0].text.isEmpty
                ? " (a blank line; remove it)" : " (an unquoted comma in a text field? quote the field)"
            throw MetricsError.malformed(
                file: file,
                line: record.line,
                column: record.fields.count > header.fields.count
                    ? record.fields[header.fields.count].column : nil,
                "expected \(header.fields.count) fields as in the header, found \(record.fields.count)\(hint)"
            )
        }
        var row = Row.blank
        for index in cells.indices { cells[index] = .missing }
        for (field, index) in zip(record.fields, columnOfField) {
            let type = types[index]
            switch CSVValue.parse(field.text[...], as: type) {
            case .failure(let failure):
                throw MetricsError.malformed(
                    file: file,
                    line: field.line,
                    column: field.column,
                    "column '\(columns[index].name)': \(failure.message)"
                )
            case .success(.missing) where !optional[index]:
                throw MetricsError.malformed(
                    file: file,
                    line: field.line,
                    column: field.column,
                    "column '\(columns[index].name)' is empty but requires a \(type.rawValue) value"
                )
            case .success(let value):
                var stored: CSVValue = (value == .missing && type == .text) ? .text("") : value
                if case .text(let text) = stored {
                    if let previous = previousText[index], previous == text {
                        stored = .text(previous)
                    } else {
                        previousText[index] = text
                    }
                }
                cells[index] = stored
                columns[index].store(&row, stored)
            }
        }
        // A cell that was empty but reads back filled (or the reverse) belongs to a group of
        // optional columns that must be filled all together.
        for position in optionalFields {
            let field = record.fields[position]
            let index = columnOfField[position]
            let written = columns[index].value(row)
            if (written == .missing) != (cells[index] == .missing) {
                throw MetricsError.malformed(
                    file: file,
                    line: field.line,
                    column: field.column,
                    "column '\(columns[index].name)' is \(cells[index] == .missing ? "empty" : "filled") but the other "
                        + "columns of its group are not; fill all of them or leave all empty"
                )
            }
        }
        try Row.checkSchemaVersion(
            &row,
            record: record,
            position: schemaVersionField,
            columnOfField: columnOfField,
            missing: missing,
            file: file
        )
        // The cells say what the row holds: the upgraded version, the defaults of columns added since.
        if let schemaVersionField {
            cells[columnOfField[schemaVersionField]] = columns[columnOfField[schemaVersionField]].value(row)
        }
        for index in missingColumns { cells[index] = columns[index].value(row) }
        if let implausibility = plausibility.check(cells) ?? row.implausibility() {
            let field = columns.firstIndex { $0.name == implausibility.column }.flatMap { fieldOfColumn[$0] }.map {
                record.fields[$0]
            }
            throw MetricsError.malformed(
                file: file,
                line: record.line,
                column: field?.column,
                "column '\(implausibility.column)' \(implausibility.problem); no run writes such a row: was the file edited?"
            )
        }
        return row
    }
}
