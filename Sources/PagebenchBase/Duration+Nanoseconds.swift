extension Duration {
    /// The duration in whole nanoseconds (rounded towards zero), clamped to Int64's range:
    /// for APIs that take a nanosecond count, such as NIO's `TimeAmount`.
    public var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, sumOverflow) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow, !sumOverflow else { return seconds < 0 ? Int64.min : Int64.max }
        return total
    }
}
