import PagebenchBase

extension Workload {
    /// The most latency-histogram memory the pagers and stages of one process may hold:
    /// 4 GiB. A run that needs more is refused before it starts (it would otherwise run the
    /// machine out of memory part way), and says how to split it over processes.
    public static let maximumHistogramBytesPerProcess = 4 << 30

    /// Bytes of one pager's latency histogram: every pager's recorders are presized to
    /// cover 1 ns … 1 s (``PresizedRecorders``), about 206 KiB each at 3 significant digits
    /// (results/memory-per-pager-and-stage.md measures 412 KiB per closed-loop pager).
    public static var histogramBytes: Int { PresizedRecorders.empty.estimatedFootprintBytes }

    /// The latency histograms each pager of a phase holds for the whole phase, as does each
    /// stage's totals (H4): page and drain latency, the open-loop corrected drain latency,
    /// and the cancellation latency when drains are cancelled (the probe, or the end of a
    /// duration-bound phase).
    public var histogramsPerPager: Int {
        var count = 2
        if case .open = load { count += 1 }
        var durationBound = false
        if case .duration = bound { durationBound = true }
        if cancelFraction > 0 || (durationBound && cancelAtEnd) { count += 1 }
        return count
    }

    /// Bytes of latency histograms the largest phase holds in one process of a run split
    /// over `processes` (the pagers of a shard: `ceil(concurrency / processes)`; each stage's
    /// totals for a staged phase).
    public func histogramBytesPerProcess(processes: Int = 1) -> Int {
        let processes = max(1, processes)
        let pagers = (concurrency.max() ?? 0) / processes + ((concurrency.max() ?? 0) % processes == 0 ? 0 : 1)
        let holders = pagers + (stages?.stages.count ?? 0)
        return holders * histogramsPerPager * Self.histogramBytes
    }

    /// Refuses a phase whose pagers (and stages) would hold more than
    /// ``maximumHistogramBytesPerProcess`` of latency histograms in one process of a run
    /// split over `processes`, saying how much, why, and what to do.
    ///
    /// - Throws: ``HarnessError`` (`invalidArgument`).
    public func checkMemory(processes: Int = 1) throws(HarnessError) {
        let needed = histogramBytesPerProcess(processes: processes)
        guard needed > Self.maximumHistogramBytesPerProcess else { return }
        let each = histogramsPerPager * Self.histogramBytes
        let pagers = Self.maximumHistogramBytesPerProcess / each
        let what = stages.map { "\($0.peak == $0.peak.rounded() ? String(Int($0.peak)) : String($0.peak)) pagers and \($0.stages.count) stages" }
            ?? "\(concurrency.max() ?? 0) pagers"
        throw HarnessError(
            .invalidArgument,
            "\(what)\(processes > 1 ? " over \(processes) processes" : "") need about \(NumberText.bytes(needed)) of latency "
                + "histograms in one process: each pager, and each stage's totals, holds \(histogramsPerPager) for the whole phase "
                + "(\(NumberText.bytes(each)) in all; results/memory-per-pager-and-stage.md); one process holds at most "
                + "\(NumberText.bytes(Self.maximumHistogramBytesPerProcess)) of them (at most \(pagers) such pagers); "
                + "split the run over processes with --workers N or --shard I/N")
    }
}
