import PagebenchMetrics

/// A results file made ready for `pagebench export` (docs/ci.md): its rows grouped by
/// identity (scenario, configuration hash, pager, concurrency, stage), and each exported
/// column's values over a group's repetitions, with its unit and polarity from the column
/// registry (``ResultRow/csvColumns``).
///
/// A service that tracks one value per benchmark and commit gets the median of the
/// repetitions, as `check` compares them; the spread (smallest and largest repetition) goes
/// where the format has room for it. Nothing is computed that the rows did not measure: a
/// column empty in every repetition of a group is left out of that group.
package struct ResultExport: Sendable {
    /// One group of rows: the repetitions of one identity, in file order.
    package struct Group: Sendable {
        package var identity: ResultIdentity
        package var rows: [ResultRow]
        /// What a person calls it (the first row's `label`, else the identity).
        package var label: String { rows.first.map { $0.label.isEmpty ? identity.description : $0.label } ?? "" }
    }

    /// One exported column's figures in one group.
    package struct Series: Sendable, Equatable {
        package var column: ColumnDescriptor
        /// The non-empty values, in repetition order.
        package var values: [Double]
        package var median: Double
        package var minimum: Double
        package var maximum: Double
    }

    package var groups: [Group]
    /// The columns exported, in registry order.
    package var columns: [ColumnDescriptor]

    /// The numeric columns that describe what a run measured: measured and deterministic,
    /// not context (which names the run rather than measuring it).
    package static let exportableColumns: [ColumnDescriptor] = ResultRow.columnDescriptors.filter {
        $0.kind != .context && $0.type != .text
    }

    /// Groups `rows` (in order of first appearance) and picks `columns` (all exportable ones when nil).
    ///
    /// - Throws: ``MetricsError`` (`.malformedInput`) for a name that is not an exportable column.
    package init(rows: [ResultRow], columns names: [String]? = nil) throws {
        var order: [ResultIdentity] = []
        var byIdentity: [ResultIdentity: [ResultRow]] = [:]
        for row in rows {
            if byIdentity[row.identity] == nil { order.append(row.identity) }
            byIdentity[row.identity, default: []].append(row)
        }
        groups = order.map { identity in
            Group(identity: identity, rows: byIdentity[identity, default: []].sorted { $0.repetition < $1.repetition })
        }
        guard let names else {
            columns = Self.exportableColumns
            return
        }
        columns = try names.map { name in
            guard let column = Self.exportableColumns.first(where: { $0.name == name }) else {
                throw MetricsError(
                    kind: .malformedInput,
                    file: nil,
                    message: "'\(name)' is not a numeric column of measured or deterministic figures; "
                        + "docs/csv-columns.md lists them (e.g. pages_per_s, page_latency_p99_ns)"
                )
            }
            return column
        }
    }

    private static let columnIndex: [String: Int] = Dictionary(
        uniqueKeysWithValues: ResultRow.csvColumns.enumerated().map { ($0.element.name, $0.offset) }
    )

    /// The figures of every exported column that has a value in `group`, in column order.
    package func series(_ group: Group) -> [Series] {
        columns.compactMap { column in
            guard let index = Self.columnIndex[column.name] else { return nil }
            let values = group.rows.compactMap { ResultRow.csvColumns[index].value($0).numericValue }
            guard let median = Statistics.median(values), let minimum = values.min(), let maximum = values.max() else {
                return nil
            }
            return Series(column: column, values: values, median: median, minimum: minimum, maximum: maximum)
        }
    }
}
