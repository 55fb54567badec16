import PagebenchMetrics
import Synchronization

/// Tracks the peak of jemalloc's `stats.allocated` during a run by sampling it periodically.
///
/// Run ``run(every:clock:)`` as a child task of the run's task group and cancel it when the
/// measured phase ends; read ``peakAllocatedBytes`` any time (it is an atomic, so a progress
/// display or time-series writer can read it while the sampler runs). A sample costs two
/// `mallctl` calls and no allocation. Peaks shorter than the interval can be missed: it is a
/// sampled peak, reported as such.
public final class MemorySampler: Sendable {
    private let reader: @Sendable () -> Int?
    private let peak = Atomic<Int>(0)
    private let latest = Atomic<Int>(0)
    private let samples = Atomic<Int>(0)

    /// - Parameter read: returns the current allocated bytes, or nil if unavailable (the sample
    ///   is skipped). Defaults to ``JemallocStats/readAllocatedBytes()``; tests inject a script.
    public init(read: @escaping @Sendable () -> Int? = { try? JemallocStats.readAllocatedBytes() }) {
        self.reader = read
    }

    /// Highest value sampled since creation or the last ``resetPeak()``.
    public var peakAllocatedBytes: Int { peak.load(ordering: .relaxed) }
    /// The most recent sample.
    public var latestAllocatedBytes: Int { latest.load(ordering: .relaxed) }
    /// Number of samples taken.
    public var sampleCount: Int { samples.load(ordering: .relaxed) }

    /// Takes one sample now and folds it into the peak.
    public func sample() {
        guard let value = reader() else { return }
        latest.store(value, ordering: .relaxed)
        var current = peak.load(ordering: .relaxed)
        while value > current {
            let (exchanged, original) = peak.compareExchange(
                expected: current,
                desired: value,
                ordering: .relaxed
            )
            if exchanged { break }
            current = original
        }
        samples.add(1, ordering: .relaxed)
    }

    /// Restarts peak tracking from a fresh sample (call when warm-up ends).
    public func resetPeak() {
        peak.store(0, ordering: .relaxed)
        sample()
    }

    /// Samples immediately, then every `interval` on `clock`, until the task is cancelled.
    /// Returns (does not throw) on cancellation.
    public func run<C: Clock>(every interval: C.Duration, clock: C) async {
        while !Task.isCancelled {
            sample()
            do {
                try await clock.sleep(for: interval)
            } catch {
                break
            }
        }
    }

    /// ``run(every:clock:)`` on the continuous clock.
    public func run(every interval: Duration) async {
        await run(every: interval, clock: ContinuousClock())
    }
}
