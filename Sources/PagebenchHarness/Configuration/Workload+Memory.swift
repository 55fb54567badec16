import Foundation
import PagebenchBase
import PagebenchProcessStats

extension Workload {
    /// Memory one pager holds for the whole phase, above the process's base: its task and
    /// its async frames (most of it), its state with its counts (``PagebenchMetrics/TaskMetrics``),
    /// its latency buffer (``LatencyBuffer``, 768 bytes), its live counters and its source's
    /// wrappers: the peak RSS a pager of the default (streaming) pager, of `loop` and of an
    /// open loop measured with 10,000 and 100,000 pagers (13.2–15.4 KB, results/crowd.md),
    /// rounded up. Its latencies go to histograms the phase shares (``SharedLatencies``), not
    /// to histograms of its own.
    public static var bytesPerPager: Int { 16 << 10 }

    /// Memory of a remote target's connection in the client, on top of its pager's: each
    /// pager of a run against a target has a connection of its own (its socket, buffers and
    /// HTTP client state). 10,000 pagers against `serve` held 25.0–25.6 KB a pager and its
    /// connection above the process's base (results/crowd.md), about 10 KB more than a
    /// pager of the in-process store; rounded up.
    public static var bytesPerConnection: Int { 16 << 10 }

    /// Memory of a process before its pagers and histograms: code, the store's tables,
    /// buffers (about 45 MiB measured with one pager, results/crowd.md), rounded up.
    public static var baseBytes: Int { 64 << 20 }

    /// Bytes of one shared latency histogram: presized to cover 1 ns … 1 s
    /// (``PresizedRecorders``), about 206 KiB at 3 significant digits.
    public static var histogramBytes: Int { PresizedRecorders.empty.estimatedFootprintBytes }

    /// The kinds of latency histogram a phase keeps, in each of its shared sets (and each
    /// stage's, H4): page and drain latency, the open-loop corrected drain latency, and the
    /// cancellation latency when drains are cancelled (the probe, or the end of a
    /// duration-bound phase).
    public var histogramsPerPager: Int {
        var count = 2
        if case .open = load { count += 1 }
        var durationBound = false
        if case .duration = bound { durationBound = true }
        if cancelFraction > 0 || (durationBound && cancelAtEnd) { count += 1 }
        return count
    }

    /// The pagers of the largest phase in one process of a run split over `processes`
    /// (a shard's share: `ceil(concurrency / processes)`).
    public func pagersPerProcess(processes: Int = 1) -> Int {
        let processes = max(1, processes)
        let peak = concurrency.max() ?? 0
        return peak / processes + (peak % processes == 0 ? 0 : 1)
    }

    /// Sets of shared latency histograms one process holds: each stage's (H4), or the
    /// phase's sinks (two per core, at most one per pager; ``SharedLatencies``).
    public func histogramSetsPerProcess(processes: Int = 1, cores: Int) -> Int {
        stages?.stages.count ?? min(pagersPerProcess(processes: processes), 2 * max(1, cores))
    }

    /// What one pager costs: ``bytesPerPager``, and ``bytesPerConnection`` against a remote
    /// target (where each pager has a connection of its own).
    public static func bytesPerPager(remote: Bool) -> Int {
        bytesPerPager + (remote ? bytesPerConnection : 0)
    }

    /// The memory the largest phase needs in one process of a run split over `processes`:
    /// the base, its pagers (with their connections against a `remote` target), and its
    /// shared latency histograms.
    public func memoryBytesPerProcess(processes: Int = 1, cores: Int, remote: Bool = false) -> Int {
        Self.baseBytes + pagersPerProcess(processes: processes) * Self.bytesPerPager(remote: remote)
            + histogramSetsPerProcess(processes: processes, cores: cores) * histogramsPerPager * Self.histogramBytes
    }

    /// The most pagers one process of this workload holds in `machine`'s memory.
    public func pagersThatFit(machine: MachineMemory, cores: Int, remote: Bool = false) -> Int {
        let sets = stages?.stages.count ?? 2 * max(1, cores)
        let fixed = Self.baseBytes + sets * histogramsPerPager * Self.histogramBytes
        return max(0, (machine.usableBytes - fixed) / Self.bytesPerPager(remote: remote))
    }

    /// Refuses a phase whose pagers and histograms would not fit in this machine's memory
    /// (or its cgroup's limit) in one process of a run split over `processes`, saying how
    /// much, why, how many pagers fit, and what to do. Does nothing when the machine's
    /// memory cannot be read.
    ///
    /// - Parameter remote: the run's pagers page a remote target, each over a connection of
    ///   its own (``bytesPerConnection``).
    /// - Throws: ``HarnessError`` (`invalidArgument`).
    public func checkMemory(processes: Int = 1, remote: Bool = false) throws(HarnessError) {
        guard let machine = try? MachineMemory.read() else { return }
        try checkMemory(
            processes: processes,
            machine: machine,
            cores: ProcessInfo.processInfo.activeProcessorCount,
            remote: remote
        )
    }

    /// ``checkMemory(processes:remote:)`` against given figures.
    public func checkMemory(
        processes: Int = 1,
        machine: MachineMemory,
        cores: Int,
        remote: Bool = false
    ) throws(HarnessError) {
        let needed = memoryBytesPerProcess(processes: processes, cores: cores, remote: remote)
        guard needed > machine.usableBytes else { return }
        let sets = histogramSetsPerProcess(processes: processes, cores: cores)
        let what =
            stages.map {
                "\($0.peak == $0.peak.rounded() ? String(Int($0.peak)) : String($0.peak)) pagers and \($0.stages.count) stages"
            }
            ?? "\(concurrency.max() ?? 0) pagers"
        throw HarnessError(
            .invalidArgument,
            "\(what)\(processes > 1 ? " over \(processes) processes" : "") need about \(NumberText.bytes(needed)) of memory "
                + "in one process: \(NumberText.bytes(Self.bytesPerPager(remote: remote))) a pager"
                + "\(remote ? " and its connection" : "") for \(pagersPerProcess(processes: processes)) "
                + "pagers, \(sets * histogramsPerPager) shared latency histograms of \(NumberText.bytes(Self.histogramBytes)), "
                + "\(NumberText.bytes(Self.baseBytes)) of base (results/crowd.md); \(machine.source) is "
                + "\(NumberText.bytes(machine.usableBytes)): at most \(pagersThatFit(machine: machine, cores: cores, remote: remote)) pagers "
                + "fit in one process; split the run over processes or hosts with --workers N or --shard I/N "
                + "(docs/scaling-out.md)"
        )
    }
}
