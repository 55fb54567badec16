import PagebenchMetrics
import PagebenchProcessStats
import Synchronization

/// Latency recorders whose histogram already covers 1 ns … 1 s (under valgrind, their whole range).
///
/// An HdrHistogram grows its counts array as larger values arrive, and the growth path of
/// hdrhistogram-swift appends zeros one element at a time through unspecialised generic
/// code; with hundreds of pagers each growing three recorders, that growth dominated a
/// run's CPU and its page latency (figures: `results/design-measurements.md`). Instead, one recorder is grown once per process and every
/// task starts from a copy of it: the first write copies the counts array with one
/// `memcpy` (copy-on-write). Values above 1 s still grow a recorder the slow way (1,024 counts per doubling).
///
/// The memory is the same as grown recorders would reach at a 1 s maximum, and it shows in `peak_allocated_bytes` like any other memory of the run.
enum PresizedRecorders {
    /// The largest value the presized recorders cover without growing: 1 s, or under valgrind
    /// (the instruction count of `run --count-instructions`, H10) the recorders' whole range.
    /// There a page or a drain takes many times longer, by a factor that moves with the
    /// machine's load, so a drain past 1 s would grow a recorder in some runs and not in others,
    /// and the growth's instructions (appended one count at a time) would be counted with the
    /// pages: the count would follow the machine's load.
    static let coveredNanoseconds: UInt64 =
        InstructionCounter.isRunningOnValgrind ? LatencyRecorder.defaultHighestTrackableNanoseconds : 1_000_000_000

    static let empty: LatencyRecorder = {
        var recorder = LatencyRecorder()
        recorder.record(nanoseconds: coveredNanoseconds)
        recorder.reset()
        return recorder
    }()

    /// Fresh task metrics whose page and drain recorders (and, when asked, the cancellation
    /// and open-loop corrected recorders) are copies of ``empty`` made unique at once, so the
    /// copy and its page faults happen now, before the phase starts, and not at the first
    /// page of the measured phase.
    static func taskMetrics(openLoop: Bool, cancels: Bool) -> TaskMetrics {
        func unique() -> LatencyRecorder {
            var recorder = empty
            // Merging an empty recorder makes the counts array unique (one memcpy) and
            // changes nothing else.
            recorder.add(tiny)
            return recorder
        }
        var metrics = TaskMetrics()
        metrics.pageLatency = unique()
        metrics.drainLatency = unique()
        if cancels { metrics.cancellationLatency = unique() }
        if openLoop { metrics.drainLatencyCorrected = unique() }
        return metrics
    }

    /// An empty recorder of the smallest size.
    private static let tiny = LatencyRecorder()

    /// Task metrics for counts only (a probed drain's child task): the recorders are shared
    /// empty ones and must not be written.
    static let countsOnly = TaskMetrics()
}

/// Hands a value to exactly one child task without leaving a second reference behind, so
/// the task owns it uniquely (its first write does not copy it again).
final class Handoff<Value: Sendable>: Sendable {
    private let value: Mutex<Value?>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    /// The value, moved out; nil if it was already taken.
    func take() -> Value? {
        value.withLock { $0.take() }
    }
}
