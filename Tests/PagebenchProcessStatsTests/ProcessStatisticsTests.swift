import Foundation
import PagebenchBase
import PagebenchTestSupport
import Synchronization
import Testing

@testable import PagebenchMetrics
@testable import PagebenchProcessStats

@Suite("Process statistics and the memory sampler")
struct ProcessStatisticsTests {
    @Test("VmHWM and VmRSS are parsed from /proc status text in kB")
    func parseStatus() throws {
        let status = "Name:\tpagebench\nVmPeak:\t  999 kB\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\nThreads:\t3\n"
        #expect(
            try ProcessMemory.parse(status: status)
                == ProcessMemory(peakResidentBytes: 2_097_152, residentBytes: 1_048_576)
        )
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
        while CPUTime.now().since(before).userSeconds + CPUTime.now().since(before).systemSeconds <= 0, index < 1 << 34
        {
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
}
