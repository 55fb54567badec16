import PagebenchBase
import PagebenchTestSupport
import Testing

@testable import PagebenchMetrics

/// The figures one pager task keeps and the merge of all tasks' figures at the end of a phase.
@Suite struct TaskMetricsTests {
    @Test("per-task metrics merge to the same figures as one task that saw everything")
    func mergedTasksEqualOneTaskThatSawEverything() {
        var random = SplitMix64(seed: 3)
        var tasks = [TaskMetrics](repeating: TaskMetrics(), count: 4)
        var single = TaskMetrics()
        for step in 0..<2_000 {
            let items = Int(random.next() % 4)
            let token = random.next() % 5 != 0
            let latency = random.latency()
            tasks[step % 4].recordPage(
                itemCount: items,
                scannedCount: 10,
                scannedBytes: 100,
                hasNextToken: token,
                latencyNanoseconds: latency
            )
            single.recordPage(
                itemCount: items,
                scannedCount: 10,
                scannedBytes: 100,
                hasNextToken: token,
                latencyNanoseconds: latency
            )
            if step % 7 == 0 {
                tasks[step % 4].recordDrain(pageCount: step % 11, latencyNanoseconds: latency * 3)
                single.recordDrain(pageCount: step % 11, latencyNanoseconds: latency * 3)
            }
            if step % 301 == 0 {
                tasks[step % 4].recordCancellation(latencyNanoseconds: latency, pagesAfterCancel: 1)
                single.recordCancellation(latencyNanoseconds: latency, pagesAfterCancel: 1)
                tasks[step % 4].recordError(.transient)
                single.recordError(.transient)
            }
        }
        let merged = TaskMetrics.merged(tasks)
        #expect(merged == single)
        var mergedRow = ResultRow()
        mergedRow.loadModel = "closed"
        mergedRow.apply(merged, measuredSeconds: 2)
        var singleRow = ResultRow()
        singleRow.loadModel = "closed"
        singleRow.apply(single, measuredSeconds: 2)
        #expect(mergedRow == singleRow)
        #expect(mergedRow.missedStarts == nil && mergedRow.drainLatencyCorrected == nil)
        #expect(mergedRow.cancellations == 7)
    }

    /// H11: the items-per-page histogram's fixed buckets (a 1–2–5 ladder): a page goes to the
    /// first bucket whose bound is at least its items, for every size up to past the last bound.
    @Test func h11ItemsPerPageBucketsAreTheFirstBoundAtLeastTheItems() {
        let bounds = ItemsPerPageHistogram.upperBounds
        #expect(bounds == [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000])
        for items in Array(0...25_000) + [Int.max / 2, Int.max] {
            let expected = bounds.firstIndex { items <= $0 } ?? bounds.count
            #expect(ItemsPerPageHistogram.bucket(items) == expected, "\(items) items")
        }
    }

    /// H11: the histogram counts every page the metrics count, and a cut-off drain's pages
    /// leave it as they leave `pages` (H14): its pages stay `pages`, cut-off ones `cutOff`.
    @Test func h11ItemsPerPageCountsThePagesOfEndedDrainsOnly() {
        var metrics = TaskMetrics()
        for items in [10, 10, 3, 0] {
            metrics.recordPage(
                itemCount: items,
                scannedCount: items,
                scannedBytes: 0,
                hasNextToken: items != 0,
                latencyNanoseconds: nil
            )
        }
        let before = metrics.counts
        for items in [10, 7] {
            metrics.recordPage(
                itemCount: items,
                scannedCount: items,
                scannedBytes: 0,
                hasNextToken: true,
                latencyNanoseconds: nil
            )
        }
        metrics.recordCutOff(since: before)
        #expect(metrics.itemsPerPage.pages == metrics.pages && metrics.pages == 4)
        #expect(metrics.itemsPerPage.counts[0] == 1 && metrics.itemsPerPage.counts[4] == 2)
        #expect(metrics.itemsPerPage.counts[3] == 1)
        #expect(metrics.cutOff.itemsPerPage.pages == 2 && metrics.cutOff.itemsPerPage.counts[4] == 2)
        var merged = TaskMetrics()
        merged.add(metrics)
        merged.add(metrics)
        #expect(merged.itemsPerPage.pages == 8 && merged.itemsPerPage.cumulative.last == 8)
    }
}
