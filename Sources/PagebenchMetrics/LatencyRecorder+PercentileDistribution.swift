import Histogram

extension LatencyRecorder {
    /// HdrHistogram's percentile distribution of this recorder (the `.hgrm` text of its
    /// `outputPercentileDistribution`, written by the HdrHistogram library itself): a header,
    /// then `Value Percentile TotalCount 1/(1-Percentile)` per line at 5 ticks per half
    /// distance, then the mean, standard deviation, maximum, total count and bucket layout.
    ///
    /// - Parameter nanosecondsPerUnit: the recorded nanoseconds per unit of the values written
    ///   (1,000: microseconds, with 3 decimals; no resolution is lost).
    public func percentileDistribution(nanosecondsPerUnit: Double) -> String {
        var text = ""
        histogram.outputPercentileDistribution(to: &text, outputValueUnitScalingRatio: nanosecondsPerUnit)
        return text
    }
}
