import PagebenchMetrics
import PagebenchProcessStats
import Synchronization

/// Latency recorders whose histogram already covers 1 ns … 1 s (under valgrind, their whole range).
///
/// An HdrHistogram grows its counts array as larger values arrive, and the growth path of
/// hdrhistogram-swift appends zeros one element at a time through unspecialised generic
/// code; with hundreds of pagers each growing three recorders, that growth dominated a
/// run's CPU and its page latency (figures: `results/design-measurements.md`). Instead, one recorder is grown once per process and every
/// shared histogram of a phase (``LatencySink``) starts from a copy of it: the first write copies the counts array with one
/// `memcpy` (copy-on-write). Values above 1 s still grow a recorder the slow way (1,024 counts per doubling).
///
/// The memory is the same as grown recorders would reach at a 1 s maximum (about 200 KiB a
/// histogram), and it shows in `peak_allocated_bytes` like any other memory of the run; it
/// is held per shared histogram, not per pager.
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
}

/// Hands a value to exactly one child task without leaving a second reference behind, so
/// the task owns it uniquely (its first write does not copy it again); and back.
final class Handoff<Value: Sendable>: Sendable {
    private let value: Mutex<Value?>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    /// The value, moved out; nil if it was already taken.
    func take() -> Value? {
        value.withLock { $0.take() }
    }

    /// A handoff of new, empty counts, made outside the caller's async frame (a `TaskMetrics`
    /// built there is a 912-byte temporary that frame keeps).
    @inline(never)
    static func empty() -> Handoff<TaskMetrics> where Value == TaskMetrics {
        Handoff<TaskMetrics>(TaskMetrics())
    }

    /// Puts `newValue` in, for the next ``take()``.
    func put(_ newValue: Value) {
        value.withLock { $0 = newValue }
    }
}

/// The counts of a group of pagers, added as each pager returns (once a pager, under a lock).
final class CountsSum: Sendable {
    private let sum = Mutex(TaskMetrics())

    func add(_ metrics: borrowing TaskMetrics) {
        sum.withLock { $0.add(metrics) }
    }

    /// The sum, taken out.
    func take() -> TaskMetrics {
        sum.withLock { sum in
            defer { sum = TaskMetrics() }
            return sum
        }
    }
}
