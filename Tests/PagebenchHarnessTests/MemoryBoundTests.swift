import PagebenchHarness
import Testing

/// Issue 24: `--concurrency 20000` passed 6 GB and 3,000 stages 1.36 GB; a run whose pagers
/// and stages would hold more than 4 GiB of latency histograms in one process is refused
/// up front, saying how much, why, and how to split it (results/memory-per-pager-and-stage.md).
@Suite struct MemoryBoundTests {
    @Test func histogramsPerPagerFollowWhatThePhaseRecords() {
        var workload = Workload()
        workload.bound = .drains(10)
        #expect(workload.histogramsPerPager == 2)
        workload.load = .open(drainsPerSecond: 10, poisson: true)
        #expect(workload.histogramsPerPager == 3)
        workload.bound = .duration(seconds: 1)
        #expect(workload.histogramsPerPager == 4)
        workload.cancelAtEnd = false
        #expect(workload.histogramsPerPager == 3)
        workload.cancelFraction = 0.1
        #expect(workload.histogramsPerPager == 4)
    }

    @Test func aPhaseBeyondTheBudgetIsRefusedAndFitsWhenSplit() throws {
        var workload = Workload()
        workload.bound = .drains(10)
        workload.concurrency = [1, 20_000]
        #expect(workload.histogramBytesPerProcess() == 20_000 * 2 * Workload.histogramBytes)
        #expect {
            try workload.checkMemory()
        } throws: { error in
            let message = (error as? HarnessError)?.message ?? ""
            return message.contains("20000 pagers need about") && message.contains("at most 4.00GiB")
                && message.contains("--workers N")
        }
        try workload.checkMemory(processes: 2)
        workload.concurrency = [8]
        try workload.checkMemory()
        // A pager's histograms are about 0.2 MiB each: the figure in the messages and README.
        #expect((150_000...260_000).contains(Workload.histogramBytes))
    }

    @Test func stagesCountLikePagers() throws {
        var workload = Workload()
        let plan = try StagePlan(parsing: Array(repeating: "1s:1", count: 999).joined(separator: ",") + ",1s:8000")
        workload.setStages(plan)
        #expect(workload.histogramBytesPerProcess() == (8_000 + 1_000) * workload.histogramsPerPager * Workload.histogramBytes)
        #expect(throws: HarnessError.self) { try workload.checkMemory() }
        try workload.checkMemory(processes: 4)
    }
}
