import Testing

@testable import PagebenchMetrics
@testable import PagebenchProcessStats

@Suite("JemallocStats")
struct JemallocStatsTests {
    @Test("jemalloc is the process allocator: N allocations raise the request count by at least N")
    func allocationsGoThroughJemalloc() throws {
        #expect(JemallocStats.statisticsEnabled)
        let count = 10_000
        let before = try JemallocStats.read(flushingThreadCache: true)
        var boxes: [UnsafeMutableRawPointer] = []
        boxes.reserveCapacity(count)
        for index in 0..<count {
            // malloc, as the Swift runtime uses for every class instance and array buffer.
            let pointer = UnsafeMutableRawPointer.allocate(byteCount: 48 + index % 64, alignment: 8)
            boxes.append(pointer)
        }
        let during = try JemallocStats.read(flushingThreadCache: true)
        for pointer in boxes { pointer.deallocate() }
        let requests = during.allocationRequests(since: before)
        #expect(requests >= UInt64(count), "only \(requests) jemalloc requests for \(count) allocations")
        // Not asserted on allocatedBytes: tests run in parallel, so other suites free memory meanwhile.
    }

    @Test("the dynamic linker resolves malloc to jemalloc, not glibc")
    func mallocIsJemalloc() {
        let provider = JemallocStats.mallocProvider
        #expect(provider?.contains("libjemalloc") == true, "malloc comes from \(provider ?? "unknown")")
        #expect(JemallocStats.isProcessAllocator)
    }

    @Test("Swift class instances are counted too")
    func swiftObjectsGoThroughJemalloc() throws {
        final class Box {
            var value: Int
            init(_ value: Int) { self.value = value }
        }
        let count = 5_000
        let before = try JemallocStats.read(flushingThreadCache: true)
        let boxes = (0..<count).map { Box($0) }
        let after = try JemallocStats.read(flushingThreadCache: true)
        #expect(boxes.count == count)
        #expect(after.allocationRequests(since: before) >= UInt64(count))
    }

    @Test("figures are consistent: 0 < allocated ≤ active ≤ resident")
    func figuresAreConsistent() throws {
        let stats = try JemallocStats.read()
        #expect(stats.allocatedBytes > 0)
        #expect(stats.allocatedBytes <= stats.activeBytes)
        #expect(stats.activeBytes <= stats.residentBytes)
    }
}
