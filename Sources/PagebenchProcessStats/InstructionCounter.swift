import CCallgrind
import PagebenchBase
import PagebenchMetrics
import Synchronization

/// Counts the instructions a measured phase executes, when the process runs under valgrind's
/// callgrind (`pagebench run --count-instructions` starts such a process; docs/gate.md).
///
/// An instruction count is the process's own: another process on the machine can delay the
/// phase but cannot change what it executes, so it repeats between separate runs where
/// wall-clock rates move by tens of percent (docs/contract.md H10; results/aa-gate.md). Counting
/// is callgrind's: ``start()`` turns its instrumentation on for every thread and zeroes the
/// counters; ``stop()`` turns it off, has callgrind write the counts to a numbered dump file
/// and reads the total back. Everything outside the two calls (start-up, warm-up, the
/// bare-loop calibration) is not instrumented, so not counted.
///
/// Valgrind runs one thread at a time, so the phase's pagers still interleave but never run
/// in parallel; the count covers every thread of the process during the phase: pagers, the
/// store, the runtime's scheduling. Work that repeats with wall-clock time instead of with
/// pages (the memory sampler's ticks) is the caller's to switch off.
public final class InstructionCounter: Sendable {
    /// Whether this build can make callgrind's client requests (it was compiled with
    /// `<valgrind/callgrind.h>`; Debian's valgrind package ships it).
    public static var isSupported: Bool { pagebench_callgrind_supported() }

    /// Whether this process runs under valgrind.
    public static var isRunningOnValgrind: Bool { pagebench_running_on_valgrind() }

    /// Callgrind's output file; dump *n* of this process is this path + `.n`, left for whoever
    /// owns the directory (`run --count-instructions` removes its temporary directory; a dump
    /// is kept for `callgrind_annotate` when valgrind is run by hand).
    public let outputFile: String
    /// Dumps requested so far.
    private let dumps = Mutex(0)

    /// A counter whose dumps callgrind writes to `outputFile` + `.1`, `.2`, …
    public init(outputFile: String) {
        self.outputFile = outputFile
    }

    /// Starts counting: instrumentation on, counters zeroed.
    public func start() {
        pagebench_callgrind_start()
    }

    /// Stops counting and returns the instructions executed since ``start()``.
    ///
    /// - Throws: ``MetricsError`` (`statisticsUnavailable`) when callgrind wrote no dump
    ///   (the process is not under callgrind) or a dump without a total.
    public func stop() throws(MetricsError) -> UInt64 {
        let number = dumps.withLock { count in
            count += 1
            return count
        }
        let label = "pagebench phase \(number)"
        pagebench_callgrind_stop_and_dump(label)
        let path = "\(outputFile).\(number)"
        let text: String
        do {
            text = try FileSystem.readText(path)
        } catch {
            throw .statistics(
                "callgrind wrote no counts for \(label) (\(error.reason)): is this process running under valgrind --tool=callgrind?"
            )
        }
        return try Self.total(ofDump: text, label: label, file: path)
    }

    /// The instruction total of one callgrind dump: its `totals:` line, after checking that
    /// the dump is the one requested as `label` and that its first event is `Ir`.
    ///
    /// - Throws: ``MetricsError`` naming `file` and what is missing.
    public static func total(ofDump text: String, label: String, file: String) throws(MetricsError) -> UInt64 {
        var described = false
        var instructionsFirst = false
        var total: UInt64?
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line == "desc: Trigger: Client Request: \(label)" {
                described = true
            } else if line.hasPrefix("events:") {
                instructionsFirst = line.dropFirst("events:".count).split(separator: " ").first == "Ir"
            } else if line.hasPrefix("totals:") {
                total = line.dropFirst("totals:".count).split(separator: " ").first.flatMap { UInt64($0) }
            }
        }
        guard described else {
            throw MetricsError(
                kind: .statisticsUnavailable,
                file: file,
                message: "not the callgrind dump of \(label): another dump came between"
            )
        }
        guard instructionsFirst, let total else {
            throw MetricsError(
                kind: .statisticsUnavailable,
                file: file,
                message: "a callgrind dump without an instruction total (events: Ir … totals:)"
            )
        }
        return total
    }
}
