extension CSVRecord {
    /// The CSV text of `rows`: the header, then one record per row.
    public static func csvText(_ rows: [Self], writer: CSVWriter = CSVWriter()) throws -> String {
        try rows.forEach { try $0.validateForCSV() }
        return writer.table(header: csvHeader, records: rows.map(\.csvFields))
    }

    /// Checks that every value can be written: decimals must be finite.
    public func validateForCSV() throws {
        for column in Self.csvColumns {
            if case .decimal(let value) = column.value(self), !value.isFinite {
                throw MetricsError(
                    kind: .invalidValue,
                    message: "column '\(column.name)' is \(value), which CSV cannot carry; "
                        + "a rate over a zero-length interval? Leave an optional column empty (nil) instead")
            }
        }
    }

    /// Parses CSV text with a header naming exactly this type's columns (any order).
    ///
    /// Errors carry `file`, line and column: no header, unknown, duplicate or missing columns,
    /// a record with the wrong number of fields, a value of the wrong type, an empty cell in a
    /// required column, a partly filled group of optional columns, or a `schema_version` this
    /// build does not read.
    public static func parseCSV(_ text: String, file: String) throws -> [Self] {
        let records = try CSVReader(file: file).records(text)
        guard let header = records.first else {
            throw MetricsError.malformed(
                file: file, line: 1, column: 1,
                "the file is empty; expected a header line starting '\(csvHeader.prefix(3).joined(separator: ","))…'")
        }
        let columns = csvColumns
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
                        file: file, line: field.line, column: field.column,
                        "missing header: line \(field.line) does not name any known column (found '\(field.text)'); "
                            + "the first line must be the header, starting '\(csvHeader.prefix(3).joined(separator: ","))…'")
                }
                throw MetricsError.malformed(
                    file: file, line: field.line, column: field.column,
                    "unknown column '\(field.text)'; this pagebench reads schema version \(schemaVersionHint) "
                        + "(columns are listed in README.md, \"CSV columns\")")
            }
            if let earlier = seen[index] {
                throw MetricsError.malformed(
                    file: file, line: field.line, column: field.column,
                    "column '\(field.text)' appears twice (first at column \(earlier.column))")
            }
            seen[index] = field
            columnOfField.append(index)
        }
        let missing = columns.indices.filter { seen[$0] == nil }.map { columns[$0].name }
        // A file of the previous schema version lacks exactly the columns the current one added.
        let previousVersion = !missing.isEmpty && Set(missing) == Set(columnsAddedInCurrentVersion)
        guard missing.isEmpty || previousVersion else {
            throw MetricsError.malformed(
                file: file, line: header.line, column: nil,
                "header lacks column\(missing.count == 1 ? "" : "s") \(missing.map { "'\($0)'" }.joined(separator: ", ")); "
                    + "was the file written by another pagebench version? Regenerate it with this one")
        }

        var rows: [Self] = []
        rows.reserveCapacity(records.count - 1)
        for record in records.dropFirst() {
            guard record.fields.count == header.fields.count else {
                let hint =
                    record.fields.count == 1 && record.fields[0].text.isEmpty
                    ? " (a blank line; remove it)" : " (an unquoted comma in a text field? quote the field)"
                throw MetricsError.malformed(
                    file: file, line: record.line, column: record.fields.count > header.fields.count
                        ? record.fields[header.fields.count].column : nil,
                    "expected \(header.fields.count) fields as in the header, found \(record.fields.count)\(hint)")
            }
            var row = blank
            var cells: [CSVValue] = Array(repeating: .missing, count: columns.count)
            for (field, index) in zip(record.fields, columnOfField) {
                let column = columns[index]
                switch CSVValue.parse(field.text[...], as: column.descriptor.type) {
                case .failure(let failure):
                    throw MetricsError.malformed(
                        file: file, line: field.line, column: field.column, "column '\(column.name)': \(failure.message)")
                case .success(.missing) where !column.descriptor.isOptional && column.descriptor.type != .text:
                    throw MetricsError.malformed(
                        file: file, line: field.line, column: field.column,
                        "column '\(column.name)' is empty but requires a \(column.descriptor.type.rawValue) value")
                case .success(let value):
                    let stored: CSVValue = (value == .missing && column.descriptor.type == .text) ? .text("") : value
                    cells[index] = stored
                    column.store(&row, stored)
                }
            }
            // A cell that was empty but reads back filled (or the reverse) belongs to a group of
            // optional columns that must be filled all together.
            for (field, index) in zip(record.fields, columnOfField) {
                let column = columns[index]
                let written = column.value(row)
                if (written == .missing) != (cells[index] == .missing) {
                    throw MetricsError.malformed(
                        file: file, line: field.line, column: field.column,
                        "column '\(column.name)' is \(cells[index] == .missing ? "empty" : "filled") but the other "
                            + "columns of its group are not; fill all of them or leave all empty")
                }
            }
            try checkSchemaVersion(row, record: record, columnOfField: columnOfField, file: file, previous: previousVersion)
            rows.append(row)
        }
        return rows
    }

    private static var schemaVersionHint: String {
        guard let column = csvColumns.first(where: { $0.name == "schema_version" }),
            case .integer(let version) = column.value(blank)
        else { return "(unversioned)" }
        return String(version)
    }

    private static func checkSchemaVersion(
        _ row: Self, record: CSVReader.Record, columnOfField: [Int], file: String, previous: Bool
    ) throws {
        guard let position = columnOfField.firstIndex(where: { csvColumns[$0].name == "schema_version" }) else { return }
        let column = csvColumns[columnOfField[position]]
        var expected = column.value(blank)
        if previous, case .integer(let current) = expected { expected = .integer(current - 1) }
        guard column.value(row) != expected else { return }
        let field = record.fields[position]
        throw MetricsError.malformed(
            file: file, line: field.line, column: field.column,
            "schema_version \(field.text) is not the version this pagebench reads (\(schemaVersionHint)"
                + (previous ? ", or \(schemaVersionHint) minus one without its new columns" : "") + "); "
                + "regenerate the file with this build or use the pagebench version that wrote it")
    }
}
