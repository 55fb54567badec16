#if canImport(Glibc)
import Glibc
#endif

/// CPU time this process has used, from `getrusage(RUSAGE_SELF)`: all threads, in seconds.
///
/// Subtract two readings to get the CPU time of an interval. Lower is better for a given
/// amount of work.
public struct CPUTime: Sendable, Equatable {
    /// Seconds spent executing user code.
    public var userSeconds: Double
    /// Seconds the kernel spent on behalf of this process (system calls, page faults).
    public var systemSeconds: Double

    public init(userSeconds: Double, systemSeconds: Double) {
        self.userSeconds = userSeconds
        self.systemSeconds = systemSeconds
    }

    /// The process's CPU time so far.
    public static func now() -> CPUTime {
        var usage = rusage()
        // getrusage(RUSAGE_SELF) cannot fail with a valid pointer.
        _ = getrusage(RUSAGE_SELF.rawValue, &usage)
        return CPUTime(userSeconds: seconds(usage.ru_utime), systemSeconds: seconds(usage.ru_stime))
    }

    /// CPU time used between `earlier` and this reading.
    public func since(_ earlier: CPUTime) -> CPUTime {
        CPUTime(userSeconds: userSeconds - earlier.userSeconds, systemSeconds: systemSeconds - earlier.systemSeconds)
    }

    private static func seconds(_ value: timeval) -> Double {
        Double(value.tv_sec) + Double(value.tv_usec) / 1_000_000
    }
}
