import PagebenchMetrics

/// Reading results CSV files for the checker, comparisons and reports, with errors as ``ReportError``.
public enum ResultsFile {
    /// Every row of the results file at `path`.
    ///
    /// - Throws: ``ReportError``: `.inputUnavailable` for a missing file, `.malformedInput` with
    ///   file, line and column for bad content, or for a file with a header and no rows.
    public static func read(_ path: String) throws -> [ResultRow] {
        let rows: [ResultRow]
        do {
            rows = try CSVFile.read(ResultRow.self, from: path)
        } catch let error as MetricsError {
            throw ReportError(error)
        }
        guard !rows.isEmpty else {
            throw ReportError.malformed(path, 2, nil, "the file has a header but no rows; was the run interrupted?")
        }
        return rows
    }

    /// Every row of the time-series file at `path`.
    public static func readTimeSeries(_ path: String) throws -> [TimeSeriesRow] {
        do {
            return try CSVFile.read(TimeSeriesRow.self, from: path)
        } catch let error as MetricsError {
            throw ReportError(error)
        }
    }
}
