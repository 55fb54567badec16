/// Whether a measured metric's verdict can fail `pagebench check`, and why (docs/contract.md H10).
///
/// On a shared machine another process moves every time-based figure: separate runs of one
/// build differ by tens of percent in pages/s and CPU seconds, and each run's repetitions
/// share the machine's state of their moment, so the bootstrap and the rank test see a real
/// shift that the code did not cause (results/aa-gate.md). By default the check therefore
/// gates on what another process cannot move, and reports the rest with the noise floor
/// measured on this machine:
///
/// - **gated: deterministic** — the deterministic columns, compared exactly (H3; they are
///   behaviour changes, not verdicts);
/// - **gated: process-own** — `instructions_per_page` (counted under callgrind) and, when
///   both sides counted them exactly, the allocation counts;
/// - **gated: counted events** — failed drains, retries, throttles, consumed capacity;
/// - **gated: target latency** — a remote target's fastest and median page latency, at tolerances far
///   beyond its noise floor: the target's own slowness is what a target run is for, and none
///   of pagebench's own counts can see it;
/// - **reported** — everything else (wall-clock rates and latencies, counts that follow
///   timing such as `missed_starts`, CPU time, memory, allocations counted through the
///   thread caches), with its noise floor. `--gate-wall-clock`
///   (or `"gateWallClock": true`, or a metric's `"gate": true`) gates them too.
package struct MetricGate: Sendable, Equatable, Codable {
    /// What kind of figure the metric is, which decides its default.
    package enum Kind: String, Sendable, Codable, CaseIterable {
        /// The process's own instruction or (exactly counted) allocation counts.
        case processOwn = "process-own"
        /// Counts of events: failed drains, retries, throttles, consumed capacity.
        case countedEvents = "counted events"
        /// A remote target's fastest and median page latency (``Thresholds/targetLatencyRules``).
        case targetLatency = "target latency"
        /// Wall-clock rates, latencies and ratios.
        case wallClock = "wall-clock"
        /// Counts that follow the timing of the moment: open-loop starts that found every slot
        /// busy or began late, pages fetched after a cancel.
        case timingCounts = "counts that follow timing"
        /// CPU seconds of the process: its own, but another process moves them (caches, frequency, contention).
        case cpuTime = "CPU time"
        /// Sampled peaks of allocated and resident memory.
        case memory
        /// Allocations counted through jemalloc's thread caches, in bursts.
        case cachedAllocations = "allocations counted through thread caches"
    }

    package var kind: Kind
    /// Whether a regression of this metric fails the check.
    package var gated: Bool
    /// The measured noise floor of this kind of figure on the reference machine: the largest
    /// change of medians between separate same-build runs (0.25 = ±25 %); nil when not measured.
    package var noiseFloor: Double?
    /// Why gated or not, as the report prints it: `gated: process-own (instructions)`,
    /// `reported: wall-clock, noise floor ±25 %`.
    package var reason: String

    /// - Parameters:
    ///   - what: what the figure is, for process-own and counted figures (`instructions`).
    ///   - gated: for a figure reported by default, the user opted in (`--gate-wall-clock`,
    ///     a metric's `"gate": true`); for one gated by default, the thresholds did not say `"gate": false`.
    package init(kind: Kind, gated: Bool, noiseFloor: Double?, what: String? = nil) {
        self.kind = kind
        self.gated = gated
        self.noiseFloor = noiseFloor
        let floor = noiseFloor.map { "noise floor ±\(Self.percent($0))" } ?? "noise floor not measured"
        switch kind {
        case .processOwn, .countedEvents:
            let repeats = noiseFloor.map { ", repeats within ±\(Self.percent($0))" } ?? ""
            reason =
                "\(gated ? "gated" : "reported (not gated by the thresholds)"): \(kind.rawValue)"
                + (what.map { " (\($0)\(repeats))" } ?? "")
        case .targetLatency:
            reason = "\(gated ? "gated" : "reported (not gated by the thresholds)"): \(kind.rawValue), \(floor)"
        default:
            reason = "\(gated ? "gated (opted in)" : "reported"): \(kind.rawValue), \(floor)"
        }
    }

    /// `25 %`, `0.5 %`: a fraction as a short percentage.
    static func percent(_ fraction: Double) -> String {
        let value = fraction * 100
        let rounded = value >= 10 ? value.rounded() : (value * 10).rounded() / 10
        let text = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(text) %"
    }
}
