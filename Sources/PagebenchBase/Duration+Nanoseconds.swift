extension Duration {
    /// The duration in whole nanoseconds (rounded towards zero), clamped to Int64's range:
    /// for APIs that take a signed nanosecond count, such as NIO's `TimeAmount`.
    public var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, sumOverflow) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow, !sumOverflow else { return seconds < 0 ? Int64.min : Int64.max }
        return total
    }

    /// Whole nanoseconds (rounded towards zero), 0 for a negative duration, saturating at
    /// `UInt64.max`: for latencies and deadlines on the monotonic clock.
    public var nonNegativeNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 || (seconds == 0 && attoseconds < 0) { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, sumOverflow) = whole.addingReportingOverflow(UInt64(max(0, attoseconds) / 1_000_000_000))
        return sumOverflow ? .max : sum
    }
}

extension Duration {
    /// The duration in seconds, as a `Double` (attosecond parts included): for rates and
    /// reports, not for arithmetic on the clock.
    public var totalSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
