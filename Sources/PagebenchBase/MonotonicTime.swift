#if canImport(Glibc)
import Glibc
#endif

/// The monotonic clock as whole nanoseconds: two `clock_gettime` calls time a page with no
/// `Duration` arithmetic on the per-page path.
public enum MonotonicTime {
    /// Nanoseconds since an arbitrary fixed point (boot); only differences mean anything.
    @inline(__always)
    public static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// `later − earlier`, 0 if the readings are out of order.
    @inline(__always)
    public static func elapsed(from earlier: UInt64, to later: UInt64) -> UInt64 {
        later >= earlier ? later - earlier : 0
    }

    /// Sleeps until the monotonic reading `deadline` (returns at once if it has passed).
    /// Throws `CancellationError` when the task is cancelled.
    public static func sleep(until deadline: UInt64) async throws {
        let now = nanoseconds()
        guard deadline > now else { return }
        try await Task.sleep(nanoseconds: deadline - now)
    }
}
