import PagebenchBase
import PagebenchMetrics
import Synchronization

/// Shows a sweep's progress: on a terminal one self-updating line per phase (a bar, elapsed
/// time, ETA, live drains/s and requests/s), otherwise plain lines (CI logs): one when a phase
/// starts, one every ``plainInterval`` seconds, one when it ends.
///
/// Every rate is given as drains/s beside requests/s (issue 35: `--load open-fixed:300/s` is
/// drains/s, an SRE thinks in requests/s; a page is one request). The live rates count what
/// completed in the interval the line stands for (H7): on a terminal the last snapshot's
/// interval (``preferredInterval``), on a plain line the time since the previous plain line
/// (or since the phase began, if it began after that line).
public final class ProgressPrinter: PhaseObserver {
    private let write: @Sendable (String) -> Void
    private let isTerminal: Bool
    private let plainIntervalSeconds: Double
    private let state = Mutex(State())

    private struct State {
        var run: PhaseDescription?
        var started: UInt64 = 0
        /// Seconds after ``started`` of the last plain line.
        var lastPlain = 0.0
        /// The snapshot the last plain line showed (nil before the first): where the next
        /// line's rate starts.
        var lastPlainSnapshot: ProgressSnapshot?
    }

    /// - Parameters:
    ///   - isTerminal: whether the output is a terminal (`isatty(STDERR_FILENO)`).
    ///   - plainIntervalSeconds: without a terminal, seconds between progress lines.
    ///   - write: where text goes (standard error in the CLI).
    public init(isTerminal: Bool, plainIntervalSeconds: Double = 5, write: @escaping @Sendable (String) -> Void) {
        self.isTerminal = isTerminal
        self.plainIntervalSeconds = plainIntervalSeconds
        self.write = write
    }

    /// The interval the harness should send snapshots at for this printer.
    public var preferredInterval: Duration { isTerminal ? .milliseconds(250) : .seconds(1) }

    public func phaseStarted(_ run: PhaseDescription) {
        state.withLock { $0 = State(run: run, started: MonotonicTime.nanoseconds()) }
        if !isTerminal { write("\(label(run)): started\n") }
    }

    public func progress(_ snapshot: ProgressSnapshot) {
        guard
            let (run, started, lastPlain, lastSnapshot) = state.withLock({ state in
                state.run.map { ($0, state.started, state.lastPlain, state.lastPlainSnapshot) }
            })
        else { return }
        let elapsed = Double(MonotonicTime.nanoseconds() - started) / 1e9
        let phase = snapshot.isWarmup ? "warm-up" : "measuring"
        let eta: String
        if snapshot.phaseFraction > 0.01 {
            let remaining = snapshot.phaseElapsedSeconds / snapshot.phaseFraction - snapshot.phaseElapsedSeconds
            eta = NumberText.seconds(remaining)
        } else {
            eta = "?"
        }
        func figures(drainsPerSecond: Double, pagesPerSecond: Double) -> String {
            "\(phase) \(NumberText.fixed(snapshot.phaseFraction * 100, 0))%  elapsed \(NumberText.seconds(elapsed))  ETA \(eta)  "
                + Self.rates(drainsPerSecond: drainsPerSecond, pagesPerSecond: pagesPerSecond)
        }
        if isTerminal {
            let width = 20
            let filled = Int((snapshot.phaseFraction * Double(width)).rounded(.down))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            write(
                "\r\u{1B}[2K\(label(run)) \(bar) "
                    + figures(drainsPerSecond: snapshot.drainsPerSecond, pagesPerSecond: snapshot.pagesPerSecond)
            )
        } else if elapsed - lastPlain >= plainIntervalSeconds {
            state.withLock {
                $0.lastPlain = elapsed
                $0.lastPlainSnapshot = snapshot
            }
            let rate = Self.perSecond(since: lastSnapshot, to: snapshot)
            write("\(label(run)): \(figures(drainsPerSecond: rate.drains, pagesPerSecond: rate.pages))\n")
        }
    }

    /// Drains and pages completed per second from the `earlier` snapshot to `later` (H7); from
    /// the phase's start when `earlier` is nil or of another phase.
    static func perSecond(
        since earlier: ProgressSnapshot?,
        to later: ProgressSnapshot
    ) -> (drains: Double, pages: Double) {
        if let earlier, earlier.isWarmup == later.isWarmup, later.phaseElapsedSeconds > earlier.phaseElapsedSeconds {
            let seconds = later.phaseElapsedSeconds - earlier.phaseElapsedSeconds
            return (Double(later.drains - earlier.drains) / seconds, Double(later.pages - earlier.pages) / seconds)
        }
        guard later.phaseElapsedSeconds > 0 else { return (0, 0) }
        return (Double(later.drains) / later.phaseElapsedSeconds, Double(later.pages) / later.phaseElapsedSeconds)
    }

    /// `12 drains/s, 1.23M requests/s`: how every rate of a run's console output reads (issue 35).
    public static func rates(drainsPerSecond: Double, pagesPerSecond: Double) -> String {
        "\(NumberText.count(drainsPerSecond)) drains/s, \(NumberText.count(pagesPerSecond)) requests/s"
    }

    public func phaseEnded(_ run: PhaseDescription, result: PhaseResult) {
        state.withLock { $0 = State() }
        let metrics = result.metrics
        let stage = result.stage.map { " stage \($0.index + 1)" } ?? ""
        var line =
            "\(label(run))\(stage): \(Self.rates(drainsPerSecond: result.drainsPerSecond, pagesPerSecond: result.pagesPerSecond)), "
            + "\(metrics.pages) pages, \(metrics.drains) drains"
        if !metrics.pageLatency.isEmpty {
            line += ", page p99 \(NumberText.nanoseconds(metrics.pageLatency.valueAtPercentile(99)))"
        }
        if metrics.cancellations > 0 {
            line +=
                ", \(metrics.cancellations) cancelled (p99 \(NumberText.nanoseconds(metrics.cancellationLatency?.valueAtPercentile(99) ?? 0)))"
        }
        if metrics.errors.total > 0 { line += ", \(metrics.errors.total) failed" }
        line += " in \(NumberText.seconds(result.measuredSeconds))"
        if result.pagers > 0, result.measuredSeconds > 0 {
            // What one pager of the crowd did and cost (issue 38).
            let pagers = Double(result.pagers)
            line +=
                "; a pager: "
                + Self.rates(
                    drainsPerSecond: result.drainsPerSecond / pagers,
                    pagesPerSecond: result.pagesPerSecond / pagers
                )
            if let bytes = result.memoryPerPagerBytes {
                line += ", \(NumberText.bytes(bytes)) (peak RSS \(NumberText.bytes(result.peakRSSBytes)))"
            } else if let above = result.memoryAbovePhaseStartBytes {
                // Too few pagers to tell one's cost from the phase's own: not divided.
                line +=
                    "; peak RSS \(NumberText.bytes(result.peakRSSBytes)), \(NumberText.bytes(above)) above the phase's start"
            }
        }
        write((isTerminal ? "\r\u{1B}[2K" : "") + line + "\n")
    }

    private func label(_ run: PhaseDescription) -> String {
        "[\(run.ordinal)/\(run.total)] \(run.scenario) ×\(run.concurrency) rep \(run.repetition)"
            + (run.isOverheadPhase ? " (timing off)" : "")
    }
}
