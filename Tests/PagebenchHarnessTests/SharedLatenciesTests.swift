import PagebenchBase
import PagebenchMetrics
import PagebenchTestSupport
import Testing

@testable import PagebenchHarness

/// Issue 38: pagers no longer own two histograms each (412 KiB a pager); they keep up to
/// 92 samples and fold them into a few histograms the phase shares. H13: the merged
/// histograms, and so every percentile, are exactly what one histogram per pager merged at
/// the end gave.
@Suite struct SharedLatenciesTests {
    /// One pager's recorded latencies in the order it measured them: (kind, nanoseconds).
    static func samples(pager: Int, count: Int) -> [(LatencyKind, UInt64)] {
        var random = SplitMix64(seed: 38, stream: 0x4C41_5445, index: UInt64(pager))
        return (0..<count).map { _ in
            let kind = LatencyKind.allCases[random.next(below: LatencyKind.allCases.count)]
            let value: UInt64
            switch random.next(below: 100) {
            case 0: value = 0
            // Past the one-hour clamp limit, and past the buffer's value bits: clamped alike.
            case 1: value = random.next() | (1 << 63)
            case 2: value = LatencyRecorder.defaultHighestTrackableNanoseconds + UInt64(random.next(below: 1_000))
            case 3..<20: value = UInt64(random.next(below: 5_000_000_000))  // up to 5 s: beyond the presized 1 s
            default: value = UInt64(random.next(below: 200_000)) + 1
            }
            return (kind, value)
        }
    }

    /// The path before issue 38: every pager records into its own recorders, and the
    /// phase merges the pagers' metrics.
    static func perPagerHistograms(_ pagers: [[(LatencyKind, UInt64)]]) -> TaskMetrics {
        TaskMetrics.merged(
            pagers.map { samples in
                var metrics = TaskMetrics()
                metrics.drainLatencyCorrected = LatencyRecorder()
                metrics.cancellationLatency = LatencyRecorder()
                metrics.watchLatency = LatencyRecorder()
                for (kind, value) in samples {
                    switch kind {
                    case .page: metrics.pageLatency.record(nanoseconds: value)
                    case .drain: metrics.drainLatency.record(nanoseconds: value)
                    case .drainCorrected: metrics.drainLatencyCorrected!.record(nanoseconds: value)
                    case .cancellation: metrics.cancellationLatency!.record(nanoseconds: value)
                    case .watch: metrics.watchLatency!.record(nanoseconds: value)
                    }
                }
                return metrics
            }
        )
    }

    static func recorders(_ metrics: TaskMetrics) -> [LatencyRecorder?] {
        [
            metrics.pageLatency, metrics.drainLatency, metrics.drainLatencyCorrected, metrics.cancellationLatency,
            metrics.watchLatency,
        ]
    }

    @Test("h13: pagers' buffers folded into shared histograms give the per-pager histograms' merge, bucket for bucket")
    func h13BufferedRecordingEqualsPerPagerHistograms() throws {
        let pagers = (0..<7).map { Self.samples(pager: $0, count: 1_000 + 97 * $0) }
        let expected = Self.perPagerHistograms(pagers)

        // The pagers interleave as tasks do: a few samples each in turn, each folding into
        // its sink of four, a batch at a time.
        let shared = SharedLatencies(pagers: pagers.count, cores: 2)
        #expect(shared.sinks.count == 4)
        var buffers = pagers.indices.map { LatencyBuffer(sink: shared.sink(forPager: $0)) }
        var positions = Array(repeating: 0, count: pagers.count)
        var turn = 0
        while positions.indices.contains(where: { positions[$0] < pagers[$0].count }) {
            let pager = turn % pagers.count
            for _ in 0..<(1 + turn % 5) where positions[pager] < pagers[pager].count {
                let (kind, value) = pagers[pager][positions[pager]]
                buffers[pager].record(kind, nanoseconds: value)
                #expect(buffers[pager].count < LatencyBuffer.capacity, "a full buffer folds at once")
                positions[pager] += 1
            }
            turn += 1
        }
        for index in buffers.indices { buffers[index].flush() }
        var actual = TaskMetrics()
        shared.addHistograms(to: &actual)

        for (old, new) in zip(Self.recorders(expected), Self.recorders(actual)) {
            let old = try #require(old)
            let new = try #require(new)
            #expect(new.count == old.count)
            #expect(new.count > 0)
            #expect(new.clampedCount == old.clampedCount)
            #expect(new.percentiles == old.percentiles)
            #expect(new.valueAtPercentile(99.99) == old.valueAtPercentile(99.99))
            #expect(new.minNanoseconds == old.minNanoseconds)
            // Every bucket, the exact minimum and maximum, the clamp count.
            #expect(new.serialized() == old.serialized())
        }
        #expect(expected.pageLatency.clampedCount > 0, "the samples reach past the clamp limit")
    }

    @Test("h13: a phase of many pagers counts every page and drain latency once, through the shared histograms")
    func h13ACrowdsLatenciesAreAllCounted() async {
        let scenario = scenario(store: .default) {
            $0.bound = .drains(900)
            $0.read = .scan
        }
        let result = await PhaseRunner(scenario: scenario, source: ScriptedStoreSource()).run(
            concurrency: 300,
            repetition: 1
        )
        #expect(result.pagersReturned == 300)
        #expect(result.metrics.drains == 900)
        #expect(result.metrics.pages == 4_500)
        #expect(result.metrics.pageLatency.count == 4_500)
        #expect(result.metrics.drainLatency.count == 900)
        #expect(result.metrics.drainLatencyCorrected == nil, "closed loop")
    }

    @Test("h13: a new recorder allocates nothing until its first record, and its copies stay independent")
    func h13EmptyRecordersShareTheirCounts() {
        var first = LatencyRecorder()
        let second = LatencyRecorder()
        first.record(nanoseconds: 1_234)
        #expect(first.count == 1 && second.count == 0)
        #expect(LatencyRecorder() == second)
    }
}
