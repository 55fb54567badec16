import Foundation
import PagebenchBase
@testable import PagebenchMetrics
@testable import PagebenchProcessStats
import PagebenchTestSupport
import Synchronization
import Testing

@Suite("Process statistics, sampler and run context")
struct ProcessStatisticsTests {
    @Test("VmHWM and VmRSS are parsed from /proc status text in kB")
    func parseStatus() throws {
        let status = "Name:\tpagebench\nVmPeak:\t  999 kB\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\nThreads:\t3\n"
        #expect(try ProcessMemory.parse(status: status) == ProcessMemory(peakResidentBytes: 2_097_152, residentBytes: 1_048_576))
        #expect { try ProcessMemory.parse(status: "VmHWM:\t12 MB\nVmRSS:\t1 kB\n", file: "s") } throws: { error in
            (error as? MetricsError)?.line == 1 && (error as? MetricsError)?.kind == .malformedInput
        }
        #expect(throws: MetricsError.self) { try ProcessMemory.parse(status: "Name: x\n") }
    }

    @Test("the live process reports RSS covering a touched 32 MiB buffer, and peak ≥ current")
    func liveProcess() throws {
        let memory = try ProcessMemory.read()
        #expect(memory.residentBytes > 0)
        #expect(memory.peakResidentBytes >= memory.residentBytes)
        let size = 32 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        defer { buffer.deallocate() }
        memset(buffer, 1, size)  // touch every page so it becomes resident
        let after = try ProcessMemory.read()
        // While the touched buffer is alive it is resident (other suites running in parallel may
        // free memory meanwhile, so compare with the buffer's size, not the earlier reading).
        #expect(after.residentBytes >= size)
        #expect(after.peakResidentBytes >= after.residentBytes)
    }

    @Test("CPU time moves forward when the process computes")
    func cpuTime() {
        let before = CPUTime.now()
        var checksum: UInt64 = 0
        var index: UInt64 = 0
        // Spin until the kernel has charged some CPU time; bounded so it cannot hang.
        while CPUTime.now().since(before).userSeconds + CPUTime.now().since(before).systemSeconds <= 0, index < 1 << 34 {
            for step in 0..<10_000 as Range<UInt64> { checksum &+= (index &+ step) &* 0x9E37_79B9_7F4A_7C15 }
            index += 1
        }
        let used = CPUTime.now().since(before)
        #expect(used.userSeconds + used.systemSeconds > 0)
        #expect(used.userSeconds >= 0 && used.systemSeconds >= 0)
        #expect(checksum != 1)
    }

    @Test("the sampler keeps the peak of scripted readings and resets on demand")
    func samplerPeak() {
        let readings = Mutex<[Int?]>([100, 300, nil, 200, 50])
        let sampler = MemorySampler { readings.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
        for _ in 0..<5 { sampler.sample() }
        #expect(sampler.peakAllocatedBytes == 300)
        #expect(sampler.latestAllocatedBytes == 50)
        #expect(sampler.sampleCount == 4, "the nil reading is skipped")
        readings.withLock { $0 = [70, 60] }
        sampler.resetPeak()
        #expect(sampler.peakAllocatedBytes == 70)
        sampler.sample()
        #expect(sampler.peakAllocatedBytes == 70)
    }

    @Test("the sampler runs as a child task, samples jemalloc at once, and returns when cancelled")
    func samplerRunsUntilCancelled() async {
        let sampler = MemorySampler()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await sampler.run(every: .seconds(3_600)) }
            while sampler.sampleCount == 0 { await Task.yield() }
            group.cancelAll()
        }
        #expect(sampler.sampleCount >= 1)
        #expect(sampler.peakAllocatedBytes > 0)
    }

    @Test("run context: timestamp format, git commit of this repository, compiler and host")
    func runContext() throws {
        #expect(RunContext.timestamp(Date(timeIntervalSince1970: 1_763_778_583.9)) == "2025-11-22T02:29:43Z")
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let commit = RunContext.gitCommit(in: packageRoot)
        if commit != "unknown" {
            let hash = commit.hasSuffix("-dirty") ? String(commit.dropLast(6)) : commit
            #expect(hash.count == 40 && hash.allSatisfy(\.isHexDigit))
        }
        #expect(RunContext.gitCommit(in: "/") == "unknown")
        let context = RunContext.current(pagebenchVersion: "0.1.0", gitDirectory: packageRoot)
        #expect(context.swiftVersion == "6.3")
        #expect(context.cores >= 1)
        #expect(!context.host.isEmpty)
        #expect(context.buildConfiguration == "debug" || context.buildConfiguration == "release")
        var row = ResultRow()
        row.apply(context)
        #expect(row.gitCommit == context.gitCommit && row.cores == context.cores)
    }

    @Test("per-task metrics merge to the same figures as one task that saw everything")
    func taskMetricsMerge() {
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
                tasks[step % 4].recordError(.fault)
                single.recordError(.fault)
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
