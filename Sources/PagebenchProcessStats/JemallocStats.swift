import CJemalloc
import PagebenchMetrics

#if canImport(Glibc)
import Glibc
#endif

/// A snapshot of jemalloc's process-wide statistics, read with `mallctl`.
///
/// The `pagebench` executable (and the test runner) link jemalloc without a prefix, so
/// `malloc`/`free` of the whole process — Swift runtime allocations included — go through
/// it and these figures describe the whole process. ``read()`` refreshes jemalloc's
/// statistics (`epoch`) first; without that the figures would be stale.
///
/// Allocation request counts are cumulative since process start: subtract two snapshots
/// (``allocationRequests(since:)``) to count the allocations of an interval. Requests served
/// from a thread's cache are merged into these counters when that cache is flushed or
/// refilled, in bursts on whichever thread ran them: over a measured phase this is not
/// negligible (a steady 2.07 allocations per page read as 2.1–6.0 across repetitions;
/// results/allocation-count-noise.md). ``read(flushingThreadCache:)`` flushes only the
/// calling thread's cache.
public struct JemallocStats: Sendable, Equatable {
    /// Bytes in live allocations requested by the application (`stats.allocated`). Lower is better.
    public var allocatedBytes: Int
    /// Bytes in active pages: a multiple of the page size, ≥ ``allocatedBytes`` (`stats.active`).
    public var activeBytes: Int
    /// Bytes in physically resident data pages jemalloc maps, including metadata (`stats.resident`).
    public var residentBytes: Int
    /// Bytes in chunks jemalloc has mapped (`stats.mapped`).
    public var mappedBytes: Int
    /// Cumulative small-size-class allocation requests of all arenas
    /// (`stats.arenas.<MALLCTL_ARENAS_ALL>.small.nrequests`).
    public var smallAllocationRequests: UInt64
    /// Cumulative large-size-class allocation requests of all arenas
    /// (`stats.arenas.<MALLCTL_ARENAS_ALL>.large.nrequests`).
    public var largeAllocationRequests: UInt64

    public init(
        allocatedBytes: Int,
        activeBytes: Int,
        residentBytes: Int,
        mappedBytes: Int,
        smallAllocationRequests: UInt64,
        largeAllocationRequests: UInt64
    ) {
        self.allocatedBytes = allocatedBytes
        self.activeBytes = activeBytes
        self.residentBytes = residentBytes
        self.mappedBytes = mappedBytes
        self.smallAllocationRequests = smallAllocationRequests
        self.largeAllocationRequests = largeAllocationRequests
    }

    /// All allocation requests (small + large) since process start.
    public var allocationRequests: UInt64 { smallAllocationRequests &+ largeAllocationRequests }

    /// Allocation requests made between `earlier` and this snapshot.
    public func allocationRequests(since earlier: JemallocStats) -> UInt64 {
        allocationRequests &- earlier.allocationRequests
    }

    /// The `MALLCTL_ARENAS_ALL` pseudo-arena index of jemalloc 5 (sum over all arenas).
    static let allArenas = 4096

    /// Reads fresh statistics: writes `epoch` to refresh them, then reads each figure.
    ///
    /// - Parameter flushingThreadCache: flush the calling thread's cache first
    ///   (`thread.tcache.flush`) so its pending request counts are merged; costs a little
    ///   allocator work, so the periodic sampler does not do it.
    /// - Throws: ``MetricsError`` (`.statisticsUnavailable`) if jemalloc was built without
    ///   statistics or a name is unknown to this jemalloc version.
    public static func read(flushingThreadCache: Bool = false) throws -> JemallocStats {
        if flushingThreadCache {
            let status = mallctl("thread.tcache.flush", nil, nil, nil, 0)
            // EFAULT/EAGAIN only when there is no tcache; the counters are then exact already.
            _ = status
        }
        try refreshEpoch()
        let arenas = "stats.arenas.\(allArenas)."
        return JemallocStats(
            allocatedBytes: try readInt("stats.allocated"),
            activeBytes: try readInt("stats.active"),
            residentBytes: try readInt("stats.resident"),
            mappedBytes: try readInt("stats.mapped"),
            smallAllocationRequests: try readUInt64(arenas + "small.nrequests"),
            largeAllocationRequests: try readUInt64(arenas + "large.nrequests")
        )
    }

    /// Reads only `stats.allocated` after refreshing `epoch`: the cheap read the sampler uses.
    public static func readAllocatedBytes() throws -> Int {
        try refreshEpoch()
        return try readInt("stats.allocated")
    }

    /// Turns on jemalloc's background purging threads (`background_thread`), so that memory
    /// freed after a burst (a connection storm on `serve`) goes back to the system within
    /// seconds instead of waiting for later allocations to trigger its decay. Returns
    /// whether jemalloc accepted it.
    @discardableResult
    public static func enableBackgroundPurging() -> Bool {
        var enabled = true
        return mallctl("background_thread", nil, nil, &enabled, MemoryLayout<Bool>.size) == 0
    }

    /// Whether jemalloc's per-thread caches are on (`opt.tcache`), nil if it cannot say.
    ///
    /// With them off (`MALLOC_CONF=tcache:false`, what `run --exact-allocations` sets), every
    /// allocation request is counted in the arena counters as it is made, so
    /// ``allocationRequests(since:)`` over an interval is exact; with them on, requests a
    /// cache serves are merged in bursts (see the type's documentation).
    public static var threadCachesEnabled: Bool? {
        var enabled = false
        var size = MemoryLayout<Bool>.size
        guard mallctl("opt.tcache", &enabled, &size, nil, 0) == 0 else { return nil }
        return enabled
    }

    /// Whether this process's jemalloc collects statistics (`config.stats`).
    public static var statisticsEnabled: Bool {
        var enabled = false
        var size = MemoryLayout<Bool>.size
        return mallctl("config.stats", &enabled, &size, nil, 0) == 0 && enabled
    }

    /// The path of the shared object that provides the `malloc` every library of this process
    /// calls, as the dynamic linker resolved it (for example
    /// `/lib/x86_64-linux-gnu/libjemalloc.so.2`), or nil if it cannot be told.
    ///
    /// If this is not jemalloc, the memory figures describe only what jemalloc itself
    /// allocated: the executable must list jemalloc before libc among its needed libraries
    /// (SwiftPM does so when a target depends on `CJemalloc`).
    public static var mallocProvider: String? {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc"),
            let maps = try? ProcFile.read("/proc/self/maps")
        else { return nil }
        // Each line: "start-end perms offset dev inode path"; find the mapping holding malloc.
        let address = UInt(bitPattern: symbol)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6 else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                start <= address, address < end
            else { continue }
            return fields[5...].joined(separator: " ")
        }
        return nil
        #else
        return nil
        #endif
    }

    /// Whether ``mallocProvider`` is jemalloc, so the statistics cover every allocation.
    public static var isProcessAllocator: Bool {
        mallocProvider?.contains("jemalloc") ?? false
    }

    private static func refreshEpoch() throws {
        var epoch: UInt64 = 1
        let status = mallctl("epoch", nil, nil, &epoch, MemoryLayout<UInt64>.size)
        guard status == 0 else {
            throw MetricsError.statistics(
                "jemalloc refused 'epoch' (error \(status)); its statistics cannot be refreshed. "
                    + "Is libjemalloc linked (Debian: apt-get install -y libjemalloc-dev)?"
            )
        }
    }

    private static func readInt(_ name: String) throws -> Int {
        var value = 0
        var size = MemoryLayout<Int>.size
        let status = mallctl(name, &value, &size, nil, 0)
        guard status == 0, size == MemoryLayout<Int>.size else {
            throw unavailable(name, status)
        }
        return value
    }

    private static func readUInt64(_ name: String) throws -> UInt64 {
        var value: UInt64 = 0
        var size = MemoryLayout<UInt64>.size
        let status = mallctl(name, &value, &size, nil, 0)
        guard status == 0, size == MemoryLayout<UInt64>.size else {
            throw unavailable(name, status)
        }
        return value
    }

    private static func unavailable(_ name: String, _ status: Int32) -> MetricsError {
        MetricsError.statistics(
            "jemalloc could not report '\(name)' (mallctl error \(status)). pagebench needs jemalloc 5 "
                + "built with statistics (Debian's libjemalloc-dev 5.3 is)."
        )
    }
}
