import PagebenchBase
import PagebenchMetrics

/// Writes a sweep's results: the CSV to `output` atomically (temporary file + rename), rows
/// appended to a history file, and the time series.
public enum ResultWriter {
    /// The default `--output`.
    public static let defaultOutput = "results/latest.csv"

    /// Writes every file asked for.
    ///
    /// - Throws: ``HarnessError`` (`outputFailed`) naming the file and the reason.
    public static func write(
        _ output: SweepRunner.Output, to path: String, history: String?, timeSeries: String?
    ) throws(HarnessError) {
        do {
            try createParentDirectory(of: path)
            try CSVFile.write(output.rows, to: path)
            if let history {
                try createParentDirectory(of: history)
                try CSVFile.append(output.rows, toHistory: history)
            }
            if let timeSeries {
                try createParentDirectory(of: timeSeries)
                try CSVFile.write(output.timeSeries, to: timeSeries)
            }
        } catch let error as HarnessError {
            throw error
        } catch let error as MetricsError {
            throw HarnessError(.outputFailed, error.description)
        } catch {
            throw HarnessError(.outputFailed, "\(error)")
        }
    }

    /// Writes time-series rows to `path` atomically (a shard's `--timeseries`).
    ///
    /// - Throws: ``HarnessError`` (`outputFailed`).
    public static func writeTimeSeries(_ rows: [TimeSeriesRow], to path: String) throws(HarnessError) {
        try createParentDirectory(of: path)
        do {
            try CSVFile.write(rows, to: path)
        } catch {
            throw HarnessError(.outputFailed, file: path, "\(error)")
        }
    }

    /// Creates the directory of `path` (and its missing parents) if it is missing.
    public static func createParentDirectory(of path: String) throws(HarnessError) {
        do {
            try FileSystem.createParentDirectory(of: path)
        } catch {
            throw HarnessError(.outputFailed, file: path, error.reason)
        }
    }
}
