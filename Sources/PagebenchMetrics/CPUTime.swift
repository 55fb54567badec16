/// CPU time a process used, all threads, in seconds (read with `CPUTime.now()` from
/// PagebenchProcessStats, `getrusage(RUSAGE_SELF)`).
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

    /// CPU time used between `earlier` and this reading.
    public func since(_ earlier: CPUTime) -> CPUTime {
        CPUTime(userSeconds: userSeconds - earlier.userSeconds, systemSeconds: systemSeconds - earlier.systemSeconds)
    }
}
