extension ResultRow {
    /// Sets the throughput, deterministic-count, latency, cancellation, retry and error columns
    /// from merged task metrics of a measured phase lasting `measuredSeconds`.
    ///
    /// Leaves context, load-model and resource columns alone. Rates are 0 when `measuredSeconds`
    /// is not positive. `missed_starts` and `late_starts` are set only for open-loop rows (``loadModel`` not `closed`).
    public mutating func apply(_ metrics: TaskMetrics, measuredSeconds: Double) {
        func rate(_ count: Int) -> Double { measuredSeconds > 0 ? Double(count) / measuredSeconds : 0 }
        durationSeconds = measuredSeconds
        // Rates count every page the source answered, cut-off drains' included.
        pagesPerSecond = rate(metrics.pages + metrics.cutOff.pages)
        itemsPerSecond = rate(metrics.items + metrics.cutOff.items)
        scannedBytesPerSecond = rate(metrics.scannedBytes + metrics.cutOff.scannedBytes)
        drainsPerSecond = rate(metrics.drains)
        drains = metrics.drains
        pages = metrics.pages
        items = metrics.items
        scannedItems = metrics.scannedItems
        scannedBytes = metrics.scannedBytes
        emptyPagesWasted = metrics.emptyPagesWasted
        emptyPagesFinal = metrics.emptyPagesFinal
        emptyPageRate = metrics.pages > 0 ? Double(metrics.emptyPagesWasted) / Double(metrics.pages) : 0
        pagesPerDrainMean = metrics.drains > 0 ? Double(metrics.pagesInEndedDrains) / Double(metrics.drains) : 0
        pagesPerDrainMax = metrics.pagesPerDrainMax
        cutOffDrains = metrics.cutOffDrains
        cutOffPages = metrics.cutOff.pages
        pageLatency = metrics.pageLatency.percentilesIfRecorded
        pageLatencyHistogram = metrics.pageLatency.isEmpty ? "" : metrics.pageLatency.serialized()
        pageLatencyMinNanoseconds = metrics.pageLatency.isEmpty ? nil : metrics.pageLatency.minNanoseconds
        pageLatencyP10Nanoseconds = metrics.pageLatency.isEmpty ? nil : metrics.pageLatency.valueAtPercentile(10)
        drainLatency = metrics.drainLatency.percentilesIfRecorded
        drainLatencyHistogram = metrics.drainLatency.isEmpty ? "" : metrics.drainLatency.serialized()
        drainLatencyCorrected = metrics.drainLatencyCorrected?.percentilesIfRecorded
        if loadModel == "closed" {
            startedDrainsPerSecond = nil
        } else {
            let seconds = targetDurationSeconds ?? measuredSeconds
            let started = metrics.drains + metrics.errors.total + metrics.cancellations
            startedDrainsPerSecond = seconds > 0 ? Double(started) / seconds : 0
        }
        missedStarts = loadModel == "closed" ? nil : metrics.missedStarts
        lateStarts = loadModel == "closed" ? nil : metrics.lateStarts
        cancellations = metrics.cancellations
        cancellationLatency = metrics.cancellationLatency?.percentilesIfRecorded
        pagesAfterCancel = metrics.pagesAfterCancel
        retries = metrics.retries
        throttles = metrics.throttles
        errors = metrics.errors
        duplicateItems = metrics.consistency?.duplicateItems
        skippedItems = metrics.consistency?.skippedItems
        inconsistentDrains = metrics.consistency?.inconsistentDrains
        watchLatency = metrics.watchLatency?.percentilesIfRecorded
        watchRefreshes = metrics.watchLatency.map { Int($0.count) }
    }

    /// Sets the resource columns from readings taken at the start and end of the measured phase.
    public mutating func applyResources(
        cpu: CPUTime,
        allocationRequests: UInt64,
        peakAllocatedBytes: Int,
        peakRSSBytes: Int
    ) {
        cpuUserSeconds = cpu.userSeconds
        cpuSystemSeconds = cpu.systemSeconds
        allocations = allocationRequests
        // Every page the phase fetched, cut-off drains' included, made its allocations.
        let allPages = pages + cutOffPages
        allocationsPerPage = allPages > 0 ? Double(allocationRequests) / Double(allPages) : 0
        self.peakAllocatedBytes = peakAllocatedBytes
        self.peakRSSBytes = peakRSSBytes
    }
}
