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
            tasks[step % 4].recordPage(itemCount: items, scannedCount: 10, scannedBytes: 100, hasNextToken: token, latencyNanoseconds: latency)
            single.recordPage(itemCount: items, scannedCount: 10, scannedBytes: 100, hasNextToken: token, latencyNanoseconds: latency)
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
}
