import Foundation
import PagebenchBase
import PagebenchMetrics

/// Writes a sweep's results: the CSV to `output` atomically (temporary file + rename), rows
/// appended to a history file, and the time series.
public enum ResultWriter {
    /// The default `--output`.
    public static let defaultOutput = "results/latest.csv"

    /// Checks, before a run measures anything, that every output path can be written: no
    /// directory, FIFO or device where a file goes, writable directories, and a `history`
    /// file that holds rows this build can append to.
    ///
    /// - Parameter shardFile: `--shard I/N`: the shard file the run will write in
    ///   `--shard-output`.
    /// - Throws: ``HarnessError`` (`outputFailed`) naming the path and what is wrong.
    public static func checkWritable(
        output: String?,
        history: String?,
        timeSeries: String?,
        shardFile: String? = nil
    ) throws(HarnessError) {
        let paths = [
            ("--output", output), ("--history", history), ("--timeseries", timeSeries), ("--shard-output", shardFile),
        ]
        for (flag, path) in paths {
            guard let path else { continue }
            do {
                try AtomicFile.checkWritable(path)
            } catch let error as MetricsError {
                throw HarnessError(.outputFailed, "\(flag) \(error.description)")
            } catch {
                throw HarnessError(.outputFailed, file: path, "\(flag): \(error)")
            }
        }
        if let history {
            // The same check the append makes under its lock, made before measuring.
            do {
                try CSVFile.checkAppendable(toHistory: history, as: ResultRow.self)
            } catch {
                throw HarnessError(.outputFailed, "--history \(error)")
            }
        }
    }

    /// Writes every file asked for. If one cannot be written after all, the rows are saved to
    /// a rescue file in the temporary directory, which the error names: a run's measurements
    /// are never lost to a full disk or a vanished directory.
    ///
    /// - Throws: ``HarnessError`` (`outputFailed`) naming the file, the reason and the rescue file.
    public static func write(
        _ output: SweepRunner.Output,
        to path: String,
        history: String?,
        timeSeries: String?
    ) throws(HarnessError) {
        do {
            try writeFiles(output, to: path, history: history, timeSeries: timeSeries)
        } catch {
            let rescue = rescuePath(named: ".csv")
            guard !output.rows.isEmpty, (try? CSVFile.write(output.rows, to: rescue)) != nil else { throw error }
            throw HarnessError(
                .outputFailed,
                "\(error.description); the \(output.rows.count) rows were saved to \(rescue)"
            )
        }
    }

    /// Where measurements go when the file asked for cannot be written after all:
    /// `$TMPDIR/pagebench-rescued-PID` + `suffix` (`.csv`, `-shard-0-of-2.json`).
    public static func rescuePath(named suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "pagebench-rescued-\(ProcessInfo.processInfo.processIdentifier)\(suffix)"
        ).path
    }

    private static func writeFiles(
        _ output: SweepRunner.Output,
        to path: String,
        history: String?,
        timeSeries: String?
    ) throws(HarnessError) {
        do {
            try createParentDirectory(of: path)
            try CSVFile.write(output.rows, to: path)
            // A history keeps results only: not rows cut short or of a target that failed them.
            if let history, case let rows = output.rows.filter({ $0.notAResult == nil }), !rows.isEmpty {
                try createParentDirectory(of: history)
                try CSVFile.append(rows, toHistory: history)
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

    /// Creates the directory of `path` (and its missing parents) if it is missing.
    public static func createParentDirectory(of path: String) throws(HarnessError) {
        do {
            try FileSystem.createParentDirectory(of: path)
        } catch {
            throw HarnessError(.outputFailed, file: path, error.reason)
        }
    }
}
