import PagebenchBase
import PagebenchMetrics
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `--timeseries FILE` written as the run goes: the header when the sweep starts, each row
/// with one `write(2)` as its interval ends (``PhaseObserver/intervalEnded(_:pageLatencies:)``),
/// so that `tail -f FILE` shows every second as it passes and an interrupted or crashed run
/// keeps every interval that ended. The rows and their order are those the sweep's
/// ``SweepRunner/Output/timeSeries`` holds at the end (each phase's intervals in time order).
///
/// A write that fails is kept as the stream's error, later rows are not written, and
/// ``finish()`` throws it: the run's rows are still written, its exit says what was lost.
public final class TimeSeriesStream: PhaseObserver {
    private struct State {
        var descriptor: Int32
        var failure: String?
    }

    public let path: String
    private let state: Mutex<State>
    private let writer = CSVWriter()

    /// Creates (or truncates) `path` and writes the header.
    ///
    /// - Throws: ``HarnessError`` (`outputFailed`) naming the file.
    public init(path: String) throws(HarnessError) {
        self.path = path
        try ResultWriter.createParentDirectory(of: path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw HarnessError(
                .outputFailed,
                file: path,
                "--timeseries: cannot open it (\(FileSystem.errnoDescription()))"
            )
        }
        state = Mutex(State(descriptor: descriptor))
        let header = writer.record(TimeSeriesRow.csvHeader)
        if let failure = write(header) {
            throw HarnessError(.outputFailed, file: path, "--timeseries: \(failure)")
        }
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
        }
    }

    public func phaseStarted(_ phase: PhaseDescription) {}
    public func progress(_ snapshot: ProgressSnapshot) {}
    public func phaseEnded(_ phase: PhaseDescription, result: PhaseResult) {}

    public func intervalEnded(_ row: TimeSeriesRow, pageLatencies: LatencyRecorder) {
        do {
            try row.validateForCSV()
        } catch {
            state.withLock { $0.failure = $0.failure ?? "a row could not be written: \(error)" }
            return
        }
        _ = write(writer.record(row.csvFields))
    }

    /// Closes the file; throws the first write that failed.
    ///
    /// - Throws: ``HarnessError`` (`outputFailed`) naming the file and what was lost.
    public func finish() throws(HarnessError) {
        let failure = state.withLock { state -> String? in
            if state.descriptor >= 0, close(state.descriptor) != 0, state.failure == nil {
                state.failure = "closing it failed (\(FileSystem.errnoDescription()))"
            }
            state.descriptor = -1
            return state.failure
        }
        if let failure {
            throw HarnessError(.outputFailed, file: path, "--timeseries: \(failure); later rows were not written")
        }
    }

    /// Writes `text` whole at the file's end; nil when written, else what failed (also kept).
    private func write(_ text: String) -> String? {
        state.withLock { state -> String? in
            guard state.failure == nil, state.descriptor >= 0 else { return state.failure }
            var bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { buffer in
                    Glibc.write(state.descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    state.failure = "writing failed (\(FileSystem.errnoDescription()))"
                    return state.failure
                }
                offset += written
            }
            return nil
        }
    }
}
