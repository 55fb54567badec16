import PagebenchProcessStats

#if canImport(Glibc)
import Glibc
#endif

/// `--exact-allocations`: `allocations` counted exactly, by running with jemalloc's
/// per-thread caches off.
///
/// With the caches on (the default, and what a throughput figure wants), jemalloc counts the
/// requests a thread's cache serves only when that cache is flushed or refilled, in bursts,
/// and no thread can flush another's: a steady 2.07 allocations per page read 2.1 to 6.0
/// across repetitions (results/allocation-count-noise.md). With them off every request is
/// counted when it is made. jemalloc reads that setting once, when the process starts, so
/// pagebench re-executes itself with `MALLOC_CONF=tcache:false` added (its workers inherit
/// it). Rows say which way they were counted (`allocation_counting`).
package enum ExactAllocations {
    package static let flag = "--exact-allocations"
    /// Set in the re-executed process, so that a jemalloc that ignored the setting is
    /// reported instead of re-executing forever.
    package static let guardVariable = "PAGEBENCH_EXACT_ALLOCATIONS"

    /// What rows of this process put in `allocation_counting`: `exact` when jemalloc's
    /// thread caches are off, `cached` when on, empty when jemalloc cannot say.
    package static var counting: String {
        switch JemallocStats.threadCachesEnabled {
        case false?: "exact"
        case true?: "cached"
        case nil: ""
        }
    }

    /// Whether this process counts every allocation as it is made.
    package static var isExact: Bool { JemallocStats.threadCachesEnabled == false }

    /// If `arguments` (a command's own, or those it passes to `run`) ask for exact counts and
    /// this process does not count exactly, replaces this process with itself under
    /// `MALLOC_CONF=…tcache:false`; returns only when nothing needs doing.
    ///
    /// - Throws: ``CommandError`` (70) when jemalloc is not the process's allocator, ignored
    ///   the setting, or the re-execution failed.
    package static func reexecuteIfAsked(by arguments: [String]) throws(CommandError) {
        guard arguments.contains(flag), !isExact else { return }
        guard JemallocStats.isProcessAllocator, JemallocStats.threadCachesEnabled != nil else {
            throw CommandError.internalFailure(
                "\(flag): jemalloc is not this process's allocator (\(JemallocStats.mallocProvider ?? "unknown")), "
                    + "so its counts cannot be made exact"
            )
        }
        let existing = getenv("MALLOC_CONF").map { String(cString: $0) } ?? ""
        guard getenv(guardVariable) == nil else {
            throw CommandError.internalFailure(
                "\(flag): jemalloc kept its thread caches on although MALLOC_CONF asked for tcache:false "
                    + "(MALLOC_CONF=\(existing))"
            )
        }
        setenv("MALLOC_CONF", existing.isEmpty ? "tcache:false" : existing + ",tcache:false", 1)
        setenv(guardVariable, "1", 1)
        let argv = CommandLine.unsafeArgv
        execv("/proc/self/exe", argv)
        let code = errno
        throw CommandError.internalFailure(
            "\(flag): cannot re-execute pagebench with jemalloc's thread caches off (\(String(cString: strerror(code))))"
        )
    }

    /// For a run made in this process (tests, `baseline update`): exact counts need the
    /// caches off from the start, which only a new process can have.
    package static func check(asked: Bool) throws(CommandError) {
        guard asked, !isExact else { return }
        throw CommandError.usage(
            "\(flag) needs jemalloc's thread caches off from the start: run it as `pagebench run \(flag)` "
                + "(which re-executes itself with MALLOC_CONF=tcache:false) or set MALLOC_CONF=tcache:false"
        )
    }
}
