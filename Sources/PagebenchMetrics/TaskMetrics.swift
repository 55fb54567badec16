import PagebenchPage

/// Everything one task of a run counts and times, without locks: merge the tasks' values at the end.
///
/// Each child task of the harness's task group owns one `TaskMetrics`, records into it on the
/// per-page path (plain integer adds and a histogram record), and returns it; the parent merges
/// them with ``add(_:)`` and writes a ``ResultRow`` with ``ResultRow/apply(_:measuredSeconds:)``.
/// No shared lock or actor is touched per page.
///
/// `Codable` as it is (synthesised: every stored property, histograms in their lossless `hdr1`
/// text), so that a shard file (`PagebenchScaleOut.ShardFile`) carries every figure a worker
/// counted, a counter added here included, without a second list of fields to forget.
public struct TaskMetrics: Sendable, Equatable, Codable {
    /// The task's page counts: of its ended, failed and probed drains (a cut-off drain's
    /// are moved to ``cutOff``). The properties below read and write them.
    public var counts = PageCounts()

    @inlinable public var pages: Int {
        get { counts.pages }
        set { counts.pages = newValue }
    }
    @inlinable public var items: Int {
        get { counts.items }
        set { counts.items = newValue }
    }
    @inlinable public var scannedItems: Int {
        get { counts.scannedItems }
        set { counts.scannedItems = newValue }
    }
    @inlinable public var scannedBytes: Int {
        get { counts.scannedBytes }
        set { counts.scannedBytes = newValue }
    }
    /// Zero items and a token (H1).
    @inlinable public var emptyPagesWasted: Int {
        get { counts.emptyPagesWasted }
        set { counts.emptyPagesWasted = newValue }
    }
    /// Zero items and no token (S6 exact end, or an empty last page/segment).
    @inlinable public var emptyPagesFinal: Int {
        get { counts.emptyPagesFinal }
        set { counts.emptyPagesFinal = newValue }
    }
    /// Items of each page, in fixed buckets: its pages are ``pages``.
    @inlinable public var itemsPerPage: ItemsPerPageHistogram {
        get { counts.itemsPerPage }
        set { counts.itemsPerPage = newValue }
    }
    /// Drains that ended.
    public var drains = 0
    /// Pages of the drains that ended (the numerator of pages per drain).
    public var pagesInEndedDrains = 0
    public var pagesPerDrainMax = 0
    public var cancellations = 0
    public var pagesAfterCancel = 0
    public var retries = 0
    public var throttles = 0
    /// Open loop: drains whose intended start found every slot busy (H8).
    public var missedStarts = 0
    /// Open loop: drains that had a free slot at their intended start but began more than
    /// 1 ms after it (H8: not missed starts).
    public var lateStarts = 0
    public var errors = ErrorCounts()
    public var pageLatency = LatencyRecorder()
    public var drainLatency = LatencyRecorder()
    /// Created on first use: only open-loop runs record it.
    public var drainLatencyCorrected: LatencyRecorder?
    /// Created on first use: only runs that cancel record it.
    public var cancellationLatency: LatencyRecorder?
    /// Under writes only: the drains' duplicates and skips (S25).
    public var consistency: ConsistencyCounts?
    /// Watching pagers only: write → publication (P16).
    public var watchLatency: LatencyRecorder?
    /// Drains cut off when the phase's time was up (cancelled by its end, not by the
    /// cancellation probe): their page counts were moved to ``cutOff``, so that every
    /// count above is of ended (or failed, or probed) drains only (issue 35).
    public var cutOffDrains = 0
    /// The page counts of the ``cutOffDrains``.
    public var cutOff = PageCounts()

    public init() {}

    /// Counts the drain that began when the counts were `before` as cut off by the end of
    /// the phase: its pages leave the counts of ended drains for ``cutOff``.
    public mutating func recordCutOff(since before: PageCounts) {
        cutOffDrains += 1
        cutOff.add(counts.subtracting(before))
        counts = before
    }

    /// Bytes held by this task's histograms: measurement overhead that shows in memory figures.
    public var estimatedFootprintBytes: Int {
        pageLatency.estimatedFootprintBytes + drainLatency.estimatedFootprintBytes
            + (drainLatencyCorrected?.estimatedFootprintBytes ?? 0)
            + (cancellationLatency?.estimatedFootprintBytes ?? 0)
    }

    /// Counts one page (docs/contract.md S9 figures) and, if timed, its latency.
    @inlinable
    public mutating func recordPage(
        itemCount: Int,
        scannedCount: Int,
        scannedBytes: Int,
        hasNextToken: Bool,
        latencyNanoseconds: UInt64?
    ) {
        counts.recordPage(
            itemCount: itemCount,
            scannedCount: scannedCount,
            scannedBytes: scannedBytes,
            hasNextToken: hasNextToken
        )
        if let latencyNanoseconds { pageLatency.record(nanoseconds: latencyNanoseconds) }
    }

    /// Counts one ended drain of `pageCount` pages.
    ///
    /// - Parameters:
    ///   - latencyNanoseconds: from the drain's actual start.
    ///   - correctedLatencyNanoseconds: open loop only, from its intended start.
    public mutating func recordDrain(
        pageCount: Int,
        latencyNanoseconds: UInt64?,
        correctedLatencyNanoseconds: UInt64? = nil
    ) {
        drains += 1
        pagesInEndedDrains += pageCount
        pagesPerDrainMax = Swift.max(pagesPerDrainMax, pageCount)
        if let latencyNanoseconds { drainLatency.record(nanoseconds: latencyNanoseconds) }
        if let correctedLatencyNanoseconds {
            if drainLatencyCorrected == nil { drainLatencyCorrected = LatencyRecorder() }
            drainLatencyCorrected!.record(nanoseconds: correctedLatencyNanoseconds)
        }
    }

    /// Counts one cancelled drain: cancel request → task returned (H2), and pages fetched after the request.
    public mutating func recordCancellation(latencyNanoseconds: UInt64, pagesAfterCancel: Int) {
        cancellations += 1
        self.pagesAfterCancel += pagesAfterCancel
        if cancellationLatency == nil { cancellationLatency = LatencyRecorder() }
        cancellationLatency!.record(nanoseconds: latencyNanoseconds)
    }

    /// Counts one cancelled drain whose latency is recorded elsewhere (a pager's latencies go
    /// to its phase's shared histograms): the count and the pages fetched after the request.
    public mutating func recordCancellation(pagesAfterCancel: Int) {
        cancellations += 1
        self.pagesAfterCancel += pagesAfterCancel
    }

    /// Counts one failed drain.
    public mutating func recordError(_ kind: PageError.Kind?) { errors.record(kind) }

    /// Adds another task's figures: counts add, maxima take the larger, histograms merge exactly.
    public mutating func add(_ other: TaskMetrics) {
        addPageCounts(other)
        drains += other.drains
        pagesInEndedDrains += other.pagesInEndedDrains
        pagesPerDrainMax = Swift.max(pagesPerDrainMax, other.pagesPerDrainMax)
        cancellations += other.cancellations
        pagesAfterCancel += other.pagesAfterCancel
        throttles += other.throttles
        missedStarts += other.missedStarts
        lateStarts += other.lateStarts
        cutOffDrains += other.cutOffDrains
        cutOff.add(other.cutOff)
        errors.add(other.errors)
        pageLatency.add(other.pageLatency)
        drainLatency.add(other.drainLatency)
        Self.merge(&drainLatencyCorrected, other.drainLatencyCorrected)
        Self.merge(&cancellationLatency, other.cancellationLatency)
        Self.merge(&watchLatency, other.watchLatency)
        if let counts = other.consistency { consistency = (consistency ?? ConsistencyCounts()).adding(counts) }
    }

    /// Adds another task's page counts and retries, not its drains or histograms: what a
    /// probed drain's child task counted, and the first part of ``add(_:)``.
    public mutating func addPageCounts(_ other: TaskMetrics) {
        counts.add(other.counts)
        retries += other.retries
    }

    /// The merge of several tasks' metrics.
    public static func merged(_ all: some Sequence<TaskMetrics>) -> TaskMetrics {
        var result = TaskMetrics()
        for metrics in all { result.add(metrics) }
        return result
    }

    private static func merge(_ target: inout LatencyRecorder?, _ source: LatencyRecorder?) {
        guard let source else { return }
        if target == nil { target = source } else { target!.add(source) }
    }
}

/// Page counts of a set of pages (a task's so far, or those of its cut-off drains).
public struct PageCounts: Sendable, Hashable, Codable {
    public var pages = 0
    public var items = 0
    public var scannedItems = 0
    public var scannedBytes = 0
    public var emptyPagesWasted = 0
    public var emptyPagesFinal = 0
    /// Items of each of these pages (``TaskMetrics/itemsPerPage``).
    public var itemsPerPage = ItemsPerPageHistogram()

    public init(
        pages: Int = 0,
        items: Int = 0,
        scannedItems: Int = 0,
        scannedBytes: Int = 0,
        emptyPagesWasted: Int = 0,
        emptyPagesFinal: Int = 0,
        itemsPerPage: ItemsPerPageHistogram = ItemsPerPageHistogram()
    ) {
        self.pages = pages
        self.items = items
        self.scannedItems = scannedItems
        self.scannedBytes = scannedBytes
        self.emptyPagesWasted = emptyPagesWasted
        self.emptyPagesFinal = emptyPagesFinal
        self.itemsPerPage = itemsPerPage
    }

    /// Counts one page (docs/contract.md S9 figures).
    @inlinable
    public mutating func recordPage(itemCount: Int, scannedCount: Int, scannedBytes: Int, hasNextToken: Bool) {
        pages += 1
        items += itemCount
        scannedItems += scannedCount
        self.scannedBytes += scannedBytes
        if itemCount == 0 {
            if hasNextToken { emptyPagesWasted += 1 } else { emptyPagesFinal += 1 }
        }
        itemsPerPage.record(itemCount)
    }

    public mutating func add(_ other: PageCounts) {
        pages += other.pages
        items += other.items
        scannedItems += other.scannedItems
        scannedBytes += other.scannedBytes
        emptyPagesWasted += other.emptyPagesWasted
        emptyPagesFinal += other.emptyPagesFinal
        itemsPerPage.add(other.itemsPerPage)
    }

    /// These counts less `earlier` ones of the same pages (what was counted since).
    public func subtracting(_ earlier: PageCounts) -> PageCounts {
        PageCounts(
            pages: pages - earlier.pages,
            items: items - earlier.items,
            scannedItems: scannedItems - earlier.scannedItems,
            scannedBytes: scannedBytes - earlier.scannedBytes,
            emptyPagesWasted: emptyPagesWasted - earlier.emptyPagesWasted,
            emptyPagesFinal: emptyPagesFinal - earlier.emptyPagesFinal,
            itemsPerPage: itemsPerPage.since(earlier.itemsPerPage)
        )
    }
}

/// What writes did to drains (S25): summed over the drains that reached their last page.
public struct ConsistencyCounts: Sendable, Equatable, Codable {
    /// Items a drain returned again.
    public var duplicateItems = 0
    /// Items that existed and matched from a drain's first request to its last and were not returned.
    public var skippedItems = 0
    /// Drains with a duplicate or a skip.
    public var inconsistentDrains = 0
    /// Drains counted (those that reached their last page).
    public var checkedDrains = 0

    public init() {}

    /// Counts one drain.
    public mutating func record(duplicates: Int, skipped: Int) {
        duplicateItems += duplicates
        skippedItems += skipped
        checkedDrains += 1
        if duplicates > 0 || skipped > 0 { inconsistentDrains += 1 }
    }

    public func adding(_ other: ConsistencyCounts) -> ConsistencyCounts {
        var sum = self
        sum.duplicateItems += other.duplicateItems
        sum.skippedItems += other.skippedItems
        sum.inconsistentDrains += other.inconsistentDrains
        sum.checkedDrains += other.checkedDrains
        return sum
    }
}
