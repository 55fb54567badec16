import PagebenchMetrics

#if canImport(Glibc)
import Glibc
#endif

extension CPUTime {
    /// The process's CPU time so far.
    public static func now() -> CPUTime {
        var usage = rusage()
        // getrusage(RUSAGE_SELF) cannot fail with a valid pointer.
        _ = getrusage(RUSAGE_SELF.rawValue, &usage)
        return CPUTime(userSeconds: seconds(usage.ru_utime), systemSeconds: seconds(usage.ru_stime))
    }

    private static func seconds(_ value: timeval) -> Double {
        Double(value.tv_sec) + Double(value.tv_usec) / 1_000_000
    }
}
