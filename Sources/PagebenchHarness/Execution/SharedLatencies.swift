import PagebenchMetrics
import Synchronization

/// Which of a phase's latency histograms a pager's sample goes to.
enum LatencyKind: UInt64, CaseIterable, Sendable {
    /// One page (``TaskMetrics/pageLatency``).
    case page
    /// A drain that ended, from its actual start (``TaskMetrics/drainLatency``).
    case drain
    /// Open loop: a drain that ended, from its intended start (``TaskMetrics/drainLatencyCorrected``).
    case drainCorrected
    /// Cancel request → the drain's task returned (``TaskMetrics/cancellationLatency``, H2).
    case cancellation
    /// Write committed → new output published (``TaskMetrics/watchLatency``, P16).
    case watch
}

/// A pager's latencies not yet folded into its phase's shared histograms (``LatencySink``):
/// at most ``capacity`` samples (1 KiB), each tagged with its ``LatencyKind`` in its top
/// three bits. Owned by one pager task; appending is a store into its own array, and every
/// ``capacity`` samples (and when a drain's pager returns, parks or moves to another stage)
/// the batch is folded in under the sink's lock, once per batch, never per page.
///
/// Folding is exact: every sample lands in the same bucket of the same kind of histogram as
/// if the pager had recorded it into a histogram of its own, merged at the end (the merge of
/// HdrHistograms adds counts bucket by bucket), so the phase's merged histograms, and every
/// percentile, are what one histogram per pager gave, at a small part of its memory
/// (results/crowd.md).
struct LatencyBuffer: Sendable {
    /// Samples held before a fold: a fold every 92 pages. 92 samples and the array's 32-byte
    /// header are 768 bytes, one of the allocator's size classes (128 were 1,056 bytes, in
    /// a 1,280-byte class: 512 bytes a pager more, issue 38).
    static var capacity: Int { 92 }
    /// Bits of a sample's value; the kind is in the bits above. A value this large (73
    /// years in nanoseconds) is past every recorder's clamp limit, so keeping it at the
    /// limit changes neither the bucket it is recorded in nor ``LatencyRecorder/clampedCount``.
    static var valueBits: UInt64 { 61 }
    static var largestValue: UInt64 { (1 << valueBits) - 1 }

    private var samples: [UInt64] = []
    /// Where the samples go; nil until the pager knows (a staged pager's stage is chosen
    /// before its first drain, ``PoolSlot/enter(stage:metrics:latencies:)``).
    var sink: LatencySink?

    init(sink: LatencySink?) {
        self.sink = sink
    }

    /// Samples held, not yet folded.
    var count: Int { samples.count }

    /// Keeps one latency; folds the batch into the sink when it is full.
    @inline(__always)
    mutating func record(_ kind: LatencyKind, nanoseconds: UInt64) {
        if samples.capacity == 0 { samples.reserveCapacity(Self.capacity) }
        samples.append(kind.rawValue << Self.valueBits | Swift.min(nanoseconds, Self.largestValue))
        if samples.count >= Self.capacity { flush() }
    }

    /// Folds the samples held into the sink.
    @inline(never)
    mutating func flush() {
        guard !samples.isEmpty else { return }
        guard let sink else { preconditionFailure("latencies recorded before their histograms were chosen") }
        sink.fold(samples)
        samples.removeAll(keepingCapacity: true)
    }
}

/// One set of shared latency histograms (page, drain, and the optional ones as they are
/// first used), which pagers fold their ``LatencyBuffer`` batches into under a lock held
/// for one batch (a hundred histogram records, no `await`).
///
/// Its recorders start as copies of ``PresizedRecorders/empty``: the presized counts
/// array is shared until the first fold writes it (one `memcpy`), so a sink nothing was
/// folded into (a stage no drain started in) holds no histogram memory.
final class LatencySink: Sendable {
    private let recorders: Mutex<TaskMetrics>

    init() {
        var metrics = TaskMetrics()
        metrics.pageLatency = PresizedRecorders.empty
        metrics.drainLatency = PresizedRecorders.empty
        recorders = Mutex(metrics)
    }

    /// Records a batch of tagged samples (``LatencyBuffer``).
    func fold(_ samples: [UInt64]) {
        recorders.withLock { metrics in
            for sample in samples {
                let value = sample & LatencyBuffer.largestValue
                switch LatencyKind(rawValue: sample >> LatencyBuffer.valueBits) {
                case .page: metrics.pageLatency.record(nanoseconds: value)
                case .drain: metrics.drainLatency.record(nanoseconds: value)
                case .drainCorrected:
                    if metrics.drainLatencyCorrected == nil { metrics.drainLatencyCorrected = PresizedRecorders.empty }
                    metrics.drainLatencyCorrected!.record(nanoseconds: value)
                case .cancellation:
                    if metrics.cancellationLatency == nil { metrics.cancellationLatency = PresizedRecorders.empty }
                    metrics.cancellationLatency!.record(nanoseconds: value)
                case .watch:
                    if metrics.watchLatency == nil { metrics.watchLatency = LatencyRecorder() }
                    metrics.watchLatency!.record(nanoseconds: value)
                case nil: preconditionFailure("a latency sample with no kind")
                }
            }
        }
    }

    /// The histograms folded in so far (every other figure of the metrics is zero).
    var histograms: TaskMetrics {
        recorders.withLock { $0 }
    }
    /// The page latencies folded in so far: a reference to the histogram, taken under the
    /// lock for an instant (the next fold copies the histogram once if the reference is
    /// still held then), so that a pager never waits for a reader's merge.
    var pageLatency: LatencyRecorder {
        recorders.withLock { $0.pageLatency }
    }
}

/// The shared latency histograms of one unstaged phase: a few ``LatencySink``s (two per
/// core), so that pagers folding at the same instant on different threads rarely wait for
/// each other; pager `i` folds into sink `i` modulo their count. Their merge is the phase's
/// latency histograms.
struct SharedLatencies: Sendable {
    let sinks: [LatencySink]

    /// - Parameter cores: the cores the phase's pagers run on.
    init(pagers: Int, cores: Int) {
        sinks = (0..<max(1, min(pagers, 2 * cores))).map { _ in LatencySink() }
    }

    /// The sink pager `index` folds into.
    func sink(forPager index: Int) -> LatencySink { sinks[index % sinks.count] }

    /// The page latencies folded in so far (live metrics, while the phase runs): all but
    /// those each pager holds in its ``LatencyBuffer`` (at most ``LatencyBuffer/capacity``
    /// samples, and none older than ``Pacing/latencyFoldNanoseconds`` after a slow page).
    var pageLatencySoFar: LatencyRecorder {
        var merged = sinks[0].pageLatency
        for sink in sinks.dropFirst() { merged.add(sink.pageLatency) }
        return merged
    }

    /// Adds every sink's histograms to `metrics` (the merge of the pagers' counts): after
    /// every pager has folded its last batch.
    func addHistograms(to metrics: inout TaskMetrics) {
        for sink in sinks { metrics.add(sink.histograms) }
    }
}
