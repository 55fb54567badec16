import PagebenchMetrics

/// The counts of a phase's row so far, as its pagers published them as their drains ended
/// (H7; live metrics' counters, docs/live-metrics.md): each is the sum of the pagers' counts
/// of their ended, failed and probed drains, so it only grows while the phase runs and never
/// passes the row's figure, which it reaches when the phase ends (a drain cut off at the end
/// counts in `cut_off_*`, not here).
public struct LiveCounts: Sendable, Hashable {
    /// Pages, items, empty pages and the items of each page (``TaskMetrics/counts``).
    public var pageCounts = PageCounts()
    public var retries = 0
    public var throttles = 0
    public var cancellations = 0
    public var pagesAfterCancel = 0
    public var errors = ErrorCounts()

    public init() {}

    /// A pager's counts so far (`throttles`: its source's, which its metrics take at its end).
    init(_ metrics: borrowing TaskMetrics, throttles: Int) {
        pageCounts = metrics.counts
        retries = metrics.retries
        self.throttles = throttles
        cancellations = metrics.cancellations
        pagesAfterCancel = metrics.pagesAfterCancel
        errors = metrics.errors
    }

    /// The sum of two pagers' counts.
    public static func + (lhs: LiveCounts, rhs: LiveCounts) -> LiveCounts {
        var sum = lhs
        sum.pageCounts.add(rhs.pageCounts)
        sum.retries += rhs.retries
        sum.throttles += rhs.throttles
        sum.cancellations += rhs.cancellations
        sum.pagesAfterCancel += rhs.pagesAfterCancel
        sum.errors.add(rhs.errors)
        return sum
    }
}
