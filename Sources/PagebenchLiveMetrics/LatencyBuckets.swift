import PagebenchMetrics

/// The fixed upper bounds of every latency histogram of live metrics (docs/live-metrics.md):
/// 10 µs to 60 s in 1–2.5–5 steps, then `+Inf`. Fixed, so that the series of several worker
/// processes (or runs) add up bucket by bucket (`sum by (le)`), which percentile gauges cannot.
package enum LatencyBuckets {
    /// Upper bounds in nanoseconds, ascending.
    package static let upperBoundsNanoseconds: [UInt64] = [
        10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
        1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000,
        100_000_000, 250_000_000, 500_000_000, 1_000_000_000, 2_500_000_000, 5_000_000_000,
        10_000_000_000, 30_000_000_000, 60_000_000_000,
    ]

    /// The `le` label of each bound: seconds in plain decimal (`0.00001`, `2.5`), written
    /// the same by every process.
    package static let upperBoundLabels: [String] = upperBoundsNanoseconds.map(secondsText)

    /// `nanoseconds` as decimal seconds without exponent or trailing zeros.
    static func secondsText(_ nanoseconds: UInt64) -> String {
        let whole = nanoseconds / 1_000_000_000
        var fraction = String(nanoseconds % 1_000_000_000)
        guard fraction != "0" else { return String(whole) }
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }
}

/// A histogram with ``LatencyBuckets``' bounds: counts per bucket (the last is `+Inf`), the sum
/// of the values and their count.
package struct BucketedLatencies: Sendable, Equatable {
    /// Samples per bucket (not cumulative); one more than the bounds, for `+Inf`.
    package var counts = [UInt64](repeating: 0, count: LatencyBuckets.upperBoundsNanoseconds.count + 1)
    /// Sum of the values in seconds (each HdrHistogram value at its bucket's value, 0.1 %).
    package var sumSeconds: Double = 0
    package var count: UInt64 = 0

    package init() {}

    /// The samples of `recorder` put in the fixed buckets. A value is counted at the highest
    /// value HdrHistogram keeps equal to it (within 0.1 %, exact below 2,048 ns).
    package init(_ recorder: LatencyRecorder) {
        add(recorder)
    }

    /// Adds the samples of `recorder`.
    package mutating func add(_ recorder: LatencyRecorder) {
        guard !recorder.isEmpty else { return }
        let bounds = LatencyBuckets.upperBoundsNanoseconds
        for recorded in recorder.histogram.recordedValues() {
            let value = recorded.value
            let index = bounds.firstIndex { value <= $0 } ?? bounds.count
            counts[index] += UInt64(recorded.count)
            count += UInt64(recorded.count)
            sumSeconds += Double(value) / 1e9 * Double(recorded.count)
        }
    }

    /// Cumulative counts at each bound, then at `+Inf` (= ``count``).
    package var cumulative: [UInt64] {
        var running: UInt64 = 0
        return counts.map { count in
            running += count
            return running
        }
    }
}
