import PagebenchBase
@testable import PagebenchReport
import Testing

@Suite struct StatisticsTests {
    @Test func medianOfOddAndEvenCounts() {
        #expect(Statistics.median([3, 1, 2]) == 2)
        #expect(Statistics.median([4, 1, 3, 2]) == 2.5)
        #expect(Statistics.median([]) == nil)
    }

    @Test func ratioHandlesZeroBaseline() {
        #expect(Statistics.ratio(0, over: 0) == 1)
        #expect(Statistics.ratio(3, over: 0) == .infinity)
        #expect(Statistics.ratio(3, over: 2) == 1.5)
    }

    /// Completely separated samples of 5 and 5: exact two-sided p = 2 / C(10, 5) = 2/252.
    @Test func mannWhitneyExactForSeparatedSamples() {
        let p = Statistics.mannWhitneyP([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
        #expect(abs(p - 2.0 / 252) < 1e-12)
        // Symmetric, and 3 vs 3 cannot go below 0.1.
        #expect(abs(Statistics.mannWhitneyP([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]) - p) < 1e-12)
        #expect(abs(Statistics.mannWhitneyP([1, 2, 3], [4, 5, 6]) - 0.1) < 1e-12)
    }

    @Test func mannWhitneyInterleavedSamplesAreNotSignificant() {
        #expect(Statistics.mannWhitneyP([1, 3, 5, 7, 9], [2, 4, 6, 8, 10]) > 0.5)
    }

    @Test func mannWhitneyWithTiesUsesTheNormalApproximation() {
        let p = Statistics.mannWhitneyP([1, 1, 2, 2, 3, 3], [5, 5, 6, 6, 7, 7])
        #expect(p < 0.01)
        #expect(Statistics.mannWhitneyP([4, 4, 4], [4, 4, 4]) == 1)
    }

    @Test func exactDistributionSumsToBinomial() {
        let counts = Statistics.exactUDistribution(4, 6)
        #expect(counts.count == 25)
        #expect(counts.reduce(0, +) == 210)  // C(10, 4)
        #expect(counts == counts.reversed())
    }

    @Test func bootstrapIsSeededAndBracketsThePointRatio() {
        let baseline = [100.0, 101, 99, 102, 98]
        let current = [90.0, 91, 89, 92, 88]
        let first = Statistics.bootstrapRatioOfMedians(baseline: baseline, current: current, confidence: 0.95, resamples: 2000, seed: 9)
        let second = Statistics.bootstrapRatioOfMedians(baseline: baseline, current: current, confidence: 0.95, resamples: 2000, seed: 9)
        #expect(first == second)
        #expect(first.low <= 0.9 && 0.9 <= first.high)
        #expect(first.high < 1)
        let single = Statistics.bootstrapRatioOfMedians(baseline: [10], current: [12], confidence: 0.95, resamples: 100, seed: 1)
        #expect(single.low == 1.2 && single.high == 1.2)
    }

    @Test func generatorIndexIsUniformEnough() {
        var generator = SplitMix64(seed: 3)
        var counts = [Int](repeating: 0, count: 5)
        for _ in 0..<50_000 { counts[generator.next(below: 5)] += 1 }
        #expect(counts.allSatisfy { abs($0 - 10_000) < 400 })
    }

    @Test func formatScalesUnits() {
        #expect(NumberText.value(1_500, unit: "ns") == "1.5 µs")
        #expect(NumberText.value(2_500_000, unit: "ns") == "2.5 ms")
        #expect(NumberText.value(3 * 1_048_576, unit: "bytes") == "3 MiB")
        #expect(NumberText.number(1234.5678) == "1235")
        #expect(NumberText.number(0.012345) == "0.01235")
        #expect(NumberText.percent(-0.1234) == "−12.3 %")
        #expect(NumberText.percent(0.05) == "+5 %")
        #expect(NumberText.compact(2_500_000) == "2.5M")
        #expect(NumberText.compact(12_345) == "12.3k")
        #expect(NumberText.compact(950) == "950")
    }

    /// The counting resampler gives exactly the medians that sorting each resample gives
    /// (the draws are the same), also with ties and even counts.
    @Test(arguments: [1, 2, 3, 4, 7, 10, 31, 200])
    func countingResamplerMatchesSortingTheDraws(size: Int) {
        var values = SplitMix64(seed: UInt64(size))
        let sample = (0..<size).map { _ in Double(values.next(below: max(2, size / 3))) + 0.5 }
        var resampler = Statistics.Resampler(sample)
        var counting = SplitMix64(seed: 77)
        var sorting = SplitMix64(seed: 77)
        for _ in 0..<200 {
            let drawn = (0..<size).map { _ in sample[sorting.next(below: size)] }.sorted()
            let expected = size % 2 == 1 ? drawn[size / 2] : (drawn[size / 2 - 1] + drawn[size / 2]) / 2
            #expect(resampler.resampledMedian(&counting) == expected)
        }
    }

    @Test func constantSamplesNeedNoDrawsAndGiveThePointRatio() {
        let interval = Statistics.bootstrapRatioOfMedians(
            baseline: [10, 10, 10], current: [12, 12], confidence: 0.95, resamples: 2000, seed: 3)
        #expect(interval.low == 1.2 && interval.high == 1.2)
        // One constant side keeps the other side's draws: the same interval as drawing both.
        var resampler = Statistics.Resampler([5, 5, 5, 5])
        var skipping = SplitMix64(seed: 11)
        var drawing = SplitMix64(seed: 11)
        #expect(resampler.resampledMedian(&skipping) == 5)
        for _ in 0..<4 { _ = drawing.next(below: 4) }
        #expect(skipping.next() == drawing.next())
    }
}
