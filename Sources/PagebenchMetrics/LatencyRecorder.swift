import Histogram
import PagebenchBase

/// Records latencies in nanoseconds into an HdrHistogram; recorders merge exactly.
///
/// A value type with no lock. The harness's pagers do not own one each: they keep their
/// latencies in a small buffer and fold it into a few histograms shared by the phase (see
/// `LatencyBuffer` in PagebenchHarness), which is what one recorder per pager merged at the
/// end would hold: merging is exact, the merged recorder equals one that recorded every
/// sample itself.
///
/// Resolution is 3 significant decimal digits (a value is stored to within 0.1 %, exactly
/// below 2,048 ns). The histogram starts small and grows to the largest value recorded, up to
/// ``highestTrackableNanoseconds`` (default one hour); larger values are recorded as that
/// limit and counted in ``clampedCount``. Footprint (``estimatedFootprintBytes``): nothing of
/// its own before the first record (new recorders share one empty counts array), then about
/// 20 KiB, 8 KiB more per doubling of the largest value beyond 2 µs: ~50 KiB at 10 µs,
/// ~100 KiB at 1 ms, ~130 KiB at 10 ms, ~200 KiB at 1 s. That memory shows in jemalloc's
/// figures, so report it.
///
/// Serialise losslessly with ``serialized()`` / ``init(serialized:)``.
public struct LatencyRecorder: Sendable, Equatable {
    /// One hour in nanoseconds: the default clamp limit.
    public static let defaultHighestTrackableNanoseconds: UInt64 = 3_600_000_000_000

    /// The HdrHistogram resolution every recorder uses, so any two recorders can merge.
    public static let significantDigits: SignificantDigits = .three

    /// The underlying histogram: values in nanoseconds.
    public internal(set) var histogram: Histogram<UInt64>
    /// Values above this are recorded as this value and counted in ``clampedCount``.
    public let highestTrackableNanoseconds: UInt64
    /// How many recorded values were larger than ``highestTrackableNanoseconds`` (counts
    /// backfilled by ``recordCorrected(nanoseconds:expectedIntervalNanoseconds:)`` included).
    public internal(set) var clampedCount: UInt64 = 0

    /// An empty recorder.
    ///
    /// - Parameter highestTrackableNanoseconds: the clamp limit, at least 2 (default one hour).
    public init(highestTrackableNanoseconds: UInt64 = LatencyRecorder.defaultHighestTrackableNanoseconds) {
        precondition(highestTrackableNanoseconds >= 2, "highestTrackableNanoseconds must be at least 2")
        self.highestTrackableNanoseconds = highestTrackableNanoseconds
        self.histogram = Self.emptyHistogram
    }

    /// The histogram every new recorder starts from: copies share its counts array until
    /// their first record (copy-on-write), so an empty recorder allocates nothing. A task's
    /// metrics that count pages but record no latency (a pager of a phase, whose latencies
    /// go to shared histograms) then cost a few hundred bytes, not 2 × 16 KiB.
    private static let emptyHistogram: Histogram<UInt64> = {
        var histogram = Histogram<UInt64>(
            lowestDiscernibleValue: 1,
            highestTrackableValue: 2,
            numberOfSignificantValueDigits: significantDigits
        )
        histogram.autoResize = true
        return histogram
    }()

    /// Bytes this recorder holds (conservatively high, from HdrHistogram's estimate).
    public var estimatedFootprintBytes: Int { histogram.estimatedFootprintInBytes }

    /// Number of values recorded (including backfilled ones).
    public var count: UInt64 { histogram.totalCount }

    /// Whether nothing was recorded.
    public var isEmpty: Bool { histogram.totalCount == 0 }

    /// Records one latency in nanoseconds.
    @inlinable
    public mutating func record(nanoseconds: UInt64) {
        record(nanoseconds: nanoseconds, count: 1)
    }

    /// Records `count` occurrences of a latency in nanoseconds.
    public mutating func record(nanoseconds: UInt64, count: UInt64) {
        guard count > 0 else { return }
        var value = nanoseconds
        if value > highestTrackableNanoseconds {
            value = highestTrackableNanoseconds
            clampedCount &+= count
        }
        // Cannot fail: auto-resize is on and the value is at most the clamp limit.
        histogram.record(value, count: count)
    }

    /// Records one latency given as a `Duration` (negative durations record as 0).
    public mutating func record(_ duration: Duration) {
        record(nanoseconds: Self.nanoseconds(duration))
    }

    /// Records a latency and backfills the samples a stalled closed-loop load generator missed
    /// (HdrHistogram's coordinated-omission correction).
    ///
    /// When `nanoseconds` exceeds the expected interval between requests, the values
    /// `nanoseconds - k × interval` (k = 1, 2, … while ≥ interval) are recorded too, as the
    /// requests that would have been issued during the stall would have waited that long.
    /// An open-loop generator that knows each request's intended start should instead record
    /// `end − intendedStart` with ``record(nanoseconds:)`` into a "corrected" recorder and
    /// `end − actualStart` into an uncorrected one; both approaches are supported here.
    ///
    /// - Parameter expectedIntervalNanoseconds: the intended time between requests; 0 disables
    ///   the correction. The backfill loop runs `nanoseconds / interval` times.
    public mutating func recordCorrected(nanoseconds: UInt64, expectedIntervalNanoseconds: UInt64) {
        let value = Swift.min(nanoseconds, highestTrackableNanoseconds)
        record(nanoseconds: nanoseconds)
        guard expectedIntervalNanoseconds > 0, value > expectedIntervalNanoseconds else { return }
        var missing = value - expectedIntervalNanoseconds
        while missing >= expectedIntervalNanoseconds {
            histogram.record(missing, count: 1)
            missing -= expectedIntervalNanoseconds
        }
    }

    /// Adds every sample of `other` to this recorder: exact, bucket by bucket.
    ///
    /// - Precondition: both recorders have the same ``highestTrackableNanoseconds``.
    public mutating func add(_ other: LatencyRecorder) {
        precondition(
            highestTrackableNanoseconds == other.highestTrackableNanoseconds,
            "cannot merge latency recorders with different clamp limits "
                + "(\(highestTrackableNanoseconds) ns and \(other.highestTrackableNanoseconds) ns)"
        )
        histogram.add(other.histogram)
        clampedCount &+= other.clampedCount
    }

    /// The merge of several recorders (an empty recorder if `recorders` is empty).
    public static func merged(_ recorders: some Sequence<LatencyRecorder>) -> LatencyRecorder {
        var result: LatencyRecorder?
        for recorder in recorders {
            if result == nil { result = recorder } else { result!.add(recorder) }
        }
        return result ?? LatencyRecorder()
    }

    /// Forgets every sample (keeps the allocated buckets, so reuse does not allocate).
    public mutating func reset() {
        histogram.reset()
        clampedCount = 0
    }

    /// The value at `percentile` (0…100) in nanoseconds: the highest value equivalent (within
    /// the histogram's resolution) to the recorded value at that rank, never above ``maxNanoseconds``.
    /// 0 when empty.
    public func valueAtPercentile(_ percentile: Double) -> UInt64 {
        isEmpty ? 0 : histogram.valueAtPercentile(percentile)
    }

    /// The largest value recorded, exactly (after clamping). 0 when empty.
    public var maxNanoseconds: UInt64 { histogram.maxRecorded }

    /// The smallest value recorded, to within the histogram's resolution. 0 when empty.
    public var minNanoseconds: UInt64 { histogram.min }

    /// The percentiles pagebench reports (all zero when empty).
    public var percentiles: LatencyPercentiles {
        LatencyPercentiles(
            p50Nanoseconds: valueAtPercentile(50),
            p90Nanoseconds: valueAtPercentile(90),
            p99Nanoseconds: valueAtPercentile(99),
            p999Nanoseconds: valueAtPercentile(99.9),
            maxNanoseconds: maxNanoseconds
        )
    }

    /// ``percentiles``, or nil when nothing was recorded (an empty CSV cell, not a fake 0).
    public var percentilesIfRecorded: LatencyPercentiles? { isEmpty ? nil : percentiles }

    /// Whole nanoseconds in `duration`, 0 for negative durations, saturating at `UInt64.max`.
    public static func nanoseconds(_ duration: Duration) -> UInt64 { duration.nonNegativeNanoseconds }

    public static func == (lhs: LatencyRecorder, rhs: LatencyRecorder) -> Bool {
        lhs.highestTrackableNanoseconds == rhs.highestTrackableNanoseconds && lhs.clampedCount == rhs.clampedCount
            && lhs.histogram == rhs.histogram && lhs.histogram.maxRecorded == rhs.histogram.maxRecorded
            && lhs.histogram.min == rhs.histogram.min
    }
}

/// The latency percentiles pagebench reports, in nanoseconds. Lower is better.
public struct LatencyPercentiles: Sendable, Equatable, Hashable {
    public var p50Nanoseconds: UInt64
    public var p90Nanoseconds: UInt64
    public var p99Nanoseconds: UInt64
    /// The 99.9th percentile.
    public var p999Nanoseconds: UInt64
    /// The exact largest sample.
    public var maxNanoseconds: UInt64

    public init(
        p50Nanoseconds: UInt64 = 0,
        p90Nanoseconds: UInt64 = 0,
        p99Nanoseconds: UInt64 = 0,
        p999Nanoseconds: UInt64 = 0,
        maxNanoseconds: UInt64 = 0
    ) {
        self.p50Nanoseconds = p50Nanoseconds
        self.p90Nanoseconds = p90Nanoseconds
        self.p99Nanoseconds = p99Nanoseconds
        self.p999Nanoseconds = p999Nanoseconds
        self.maxNanoseconds = maxNanoseconds
    }
}
