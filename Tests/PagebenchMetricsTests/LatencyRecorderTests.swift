import PagebenchBase
import PagebenchTestSupport
import Testing

@testable import PagebenchMetrics

@Suite("LatencyRecorder")
struct LatencyRecorderTests {
    static let percentiles: [Double] = [0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100]

    /// Per-task recorders over deterministic samples, plus one recorder that saw them all.
    static func shards(count: Int, samplesEach: Int, seed: UInt64) -> (shards: [LatencyRecorder], all: LatencyRecorder)
    {
        var random = SplitMix64(seed: seed)
        var all = LatencyRecorder()
        var shards: [LatencyRecorder] = []
        for shard in 0..<count {
            var recorder = LatencyRecorder()
            // Shards of different sizes and ranges so the histograms resize differently.
            for _ in 0..<(samplesEach + shard * 37) {
                let value = random.latency() / UInt64(shard + 1)
                recorder.record(nanoseconds: value)
                all.record(nanoseconds: value)
            }
            shards.append(recorder)
        }
        return (shards, all)
    }

    @Test("merging per-task recorders gives exactly the percentiles of one recorder holding every sample")
    func mergeIsExact() {
        let (shards, all) = Self.shards(count: 5, samplesEach: 2_000, seed: 42)
        let merged = LatencyRecorder.merged(shards)
        #expect(merged.count == all.count)
        #expect(merged == all)
        for percentile in Self.percentiles {
            #expect(merged.valueAtPercentile(percentile) == all.valueAtPercentile(percentile), "p\(percentile)")
        }
        #expect(merged.percentiles == all.percentiles)
        #expect(merged.maxNanoseconds == all.maxNanoseconds)
        #expect(merged.minNanoseconds == all.minNanoseconds)
    }

    @Test("serialise → parse is lossless, and merging parsed recorders equals the all-samples recorder")
    func serialisationRoundTripIsLossless() throws {
        let (shards, all) = Self.shards(count: 4, samplesEach: 1_500, seed: 7)
        var mergedFromText = LatencyRecorder()
        for shard in shards {
            let text = shard.serialized()
            #expect(!text.contains(",") && !text.contains("\n"), "must fit a CSV cell unquoted")
            let parsed = try LatencyRecorder(serialized: text)
            #expect(parsed == shard)
            #expect(parsed.serialized() == text)
            for percentile in Self.percentiles {
                #expect(parsed.valueAtPercentile(percentile) == shard.valueAtPercentile(percentile))
            }
            mergedFromText.add(parsed)
        }
        #expect(mergedFromText == all)
        #expect(mergedFromText.percentiles == all.percentiles)
        let allParsed = try LatencyRecorder(serialized: all.serialized())
        #expect(allParsed.percentiles == all.percentiles)
        #expect(allParsed.minNanoseconds == all.minNanoseconds)
    }

    @Test("exact min and max survive the round trip when they sit inside wide buckets")
    func exactExtremes() throws {
        var recorder = LatencyRecorder()
        for value: UInt64 in [123_456_789, 123_456_999, 987_654_321_012, 5_000_001] {
            recorder.record(nanoseconds: value)
        }
        let parsed = try LatencyRecorder(serialized: recorder.serialized())
        #expect(parsed.maxNanoseconds == 987_654_321_012)
        #expect(parsed.minNanoseconds == 5_000_001)
        #expect(parsed.valueAtPercentile(100) == 987_654_321_012)

        var single = LatencyRecorder()
        single.record(nanoseconds: 77_777_777)
        let parsedSingle = try LatencyRecorder(serialized: single.serialized())
        #expect(parsedSingle.percentiles == single.percentiles)
        #expect(parsedSingle.percentiles.p50Nanoseconds == 77_777_777)
    }

    @Test("an empty recorder and one holding only zeros round-trip")
    func emptyAndZeros() throws {
        let empty = LatencyRecorder()
        #expect(empty.serialized() == "hdr1 digits=3 highest=3600000000000 clamped=0 total=0 min=none max=0")
        #expect(try LatencyRecorder(serialized: empty.serialized()) == empty)
        #expect(empty.percentiles == LatencyPercentiles())
        #expect(empty.percentilesIfRecorded == nil)
        var zeros = LatencyRecorder()
        zeros.record(nanoseconds: 0, count: 5)
        #expect(zeros.serialized() == "hdr1 digits=3 highest=3600000000000 clamped=0 total=5 min=none max=0 0:5")
        #expect(try LatencyRecorder(serialized: zeros.serialized()) == zeros)
    }

    @Test("values above the limit are clamped and counted, and merging adds the clamp counts")
    func clamping() throws {
        var recorder = LatencyRecorder(highestTrackableNanoseconds: 1_000_000)
        recorder.record(nanoseconds: 10)
        recorder.record(nanoseconds: 5_000_000, count: 3)
        #expect(recorder.clampedCount == 3)
        #expect(recorder.maxNanoseconds == 1_000_000)
        #expect(recorder.count == 4)
        var other = LatencyRecorder(highestTrackableNanoseconds: 1_000_000)
        other.record(nanoseconds: .max)
        recorder.add(other)
        #expect(recorder.clampedCount == 4)
        let parsed = try LatencyRecorder(serialized: recorder.serialized())
        #expect(parsed.clampedCount == 4)
        #expect(parsed == recorder)
    }

    @Test("coordinated-omission correction backfills the requests a stall delayed")
    func correctedRecording() {
        var corrected = LatencyRecorder()
        corrected.recordCorrected(nanoseconds: 100, expectedIntervalNanoseconds: 30)
        // 100, then 70, 40 (10 < 30 stops the backfill).
        #expect(corrected.count == 3)
        #expect(corrected.minNanoseconds == 40)
        #expect(corrected.maxNanoseconds == 100)
        var fast = LatencyRecorder()
        fast.recordCorrected(nanoseconds: 20, expectedIntervalNanoseconds: 30)
        fast.recordCorrected(nanoseconds: 1_000, expectedIntervalNanoseconds: 0)
        #expect(fast.count == 2)
    }

    @Test("durations convert to whole nanoseconds; negative ones record as zero")
    func durations() {
        #expect(LatencyRecorder.nanoseconds(.milliseconds(5)) == 5_000_000)
        #expect(LatencyRecorder.nanoseconds(.nanoseconds(1) + .seconds(2)) == 2_000_000_001)
        #expect(LatencyRecorder.nanoseconds(.nanoseconds(-3)) == 0)
        #expect(LatencyRecorder.nanoseconds(.seconds(Int64.max)) == .max)
        var recorder = LatencyRecorder()
        recorder.record(.microseconds(3))
        #expect(recorder.maxNanoseconds == 3_000)
    }

    @Test(
        "malformed serialised histograms are rejected with the offending column",
        arguments: [
            ("hdr2 digits=3", 1, "start with 'hdr1'"),
            ("hdr1 digits=3 highest=100", 26, "missing 'clamped=…'"),
            ("hdr1 digits=2 highest=100 clamped=0 total=0 min=none max=0", 6, "only digits=3"),
            ("hdr1 digits=3 highest=100 clamped=0 total=x min=none max=0", 43, "non-negative integer"),
            ("hdr1 digits=3 highest=100 clamped=0 total=2 min=5 max=9 5:1 9:2", 43, "add up to 3"),
            ("hdr1 digits=3 highest=100 clamped=0 total=2 min=5 max=9 9:1 5:1", 61, "must increase"),
            ("hdr1 digits=3 highest=100000 clamped=0 total=1 min=4097 max=4097 4097:1", 66, "not the lowest value"),
            ("hdr1 digits=3 highest=100 clamped=0 total=1 min=5 max=9 5:0", 57, "count > 0"),
            ("hdr1 digits=3 highest=100 clamped=0 total=1 min=5 max=9 50:1", 57, "outside"),
        ] as [(String, Int, String)]
    )
    func malformedSerialisation(text: String, column: Int, fragment: String) {
        #expect {
            try LatencyRecorder(serialized: text, file: "runs.csv", line: 3, column: 1)
        } throws: { error in
            guard let error = error as? MetricsError else { return false }
            return error.kind == .malformedInput && error.file == "runs.csv" && error.line == 3
                && error.column == column
                && error.message.contains(fragment)
        }
    }
}
