import PagebenchBase
import Testing

@testable import PagebenchReport

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
        let first = Statistics.bootstrapRatioOfMedians(
            baseline: baseline,
            current: current,
            confidence: 0.95,
            resamples: 2000,
            seed: 9
        )
        let second = Statistics.bootstrapRatioOfMedians(
            baseline: baseline,
            current: current,
            confidence: 0.95,
            resamples: 2000,
            seed: 9
        )
        #expect(first == second)
        #expect(first.low <= 0.9 && 0.9 <= first.high)
        #expect(first.high < 1)
        let single = Statistics.bootstrapRatioOfMedians(
            baseline: [10],
            current: [12],
            confidence: 0.95,
            resamples: 100,
            seed: 1
        )
        #expect(single.low == 1.2 && single.high == 1.2)
    }

    /// The exact sampler's resampled medians have the law of drawing `size` values with
    /// replacement: for samples of 1 … 6 distinct values, every one of the size^size
    /// resamples is enumerated, and 60,000 seeded draws are held against those probabilities
    /// by a chi-square test at the 0.1 % level. (A sampler off by one in a Beta parameter
    /// fails it by far.)
    @Test(arguments: 1...6)
    func resampledMediansHaveTheLawOfDrawingWithReplacement(size: Int) {
        // Powers of two: every pair of middle values has its own mean, so a median tells which pair it was.
        let sample = (0..<size).map { Double(1 << $0) }.reversed().map { $0 }
        var exact: [Double: Double] = [:]
        var indices = [Int](repeating: 0, count: size)
        let resamples = (0..<size).reduce(1) { total, _ in total * size }
        for _ in 0..<resamples {
            exact[Statistics.median(indices.map { sample[$0] })!, default: 0] += 1 / Double(resamples)
            for digit in 0..<size {  // the next of the size^size index tuples
                indices[digit] += 1
                if indices[digit] < size { break }
                indices[digit] = 0
            }
        }
        let draws = 60_000
        let resampler = Statistics.Resampler(sample)
        var generator = SplitMix64(seed: 2_024 + UInt64(size))
        var observed: [Double: Int] = [:]
        for _ in 0..<draws { observed[resampler.resampledMedian(&generator), default: 0] += 1 }
        #expect(Set(observed.keys).isSubset(of: Set(exact.keys)))
        #expect(exact.values.allSatisfy { $0 * Double(draws) >= 5 })
        let chiSquare = exact.reduce(0.0) { sum, entry in
            let expected = entry.value * Double(draws)
            let difference = Double(observed[entry.key, default: 0]) - expected
            return sum + difference * difference / expected
        }
        #expect(chiSquare <= chiSquareCritical(degreesOfFreedom: exact.count - 1))
    }

    /// The statistics' own sort orders every value as the standard library's stable sort
    /// does, element for element and bit for bit: ties (also -0.0 against 0.0), infinities,
    /// every length across its insertion runs and merge widths, and NaN, left to the library.
    @Test(arguments: [0, 1, 2, 15, 16, 17, 33, 100, 1_000, 10_001])
    func ascendingIsTheStandardLibrarysOrder(count: Int) {
        var random = SplitMix64(seed: UInt64(count) + 1)
        let pool: [Double] = [-0.0, 0.0, .infinity, -.infinity, 1, -1, 0.5, 1e300, -1e-300]
        for ties in [false, true] {
            var values = (0..<count).map { _ in
                ties ? pool[random.next(below: pool.count)] : (random.nextUnit() - 0.5) * 1e6
            }
            #expect(Statistics.ascending(values).map(\.bitPattern) == values.sorted().map(\.bitPattern))
            guard count > 2 else { continue }
            values[count / 2] = .nan
            #expect(Statistics.ascending(values).map(\.bitPattern) == values.sorted().map(\.bitPattern))
        }
    }

    /// On larger samples with ties, the exact sampler's medians and those of drawing `size`
    /// indices agree: a two-sample chi-square test over the medians' values, 0.1 % level.
    @Test(arguments: [7, 31, 200, 201])
    func resampledMediansMatchDrawingIndices(size: Int) {
        var values = SplitMix64(seed: UInt64(size))
        let sample = (0..<size).map { _ in Double(values.next(below: max(4, size / 3))) + 0.5 }
        let draws = 10_000
        let resampler = Statistics.Resampler(sample)
        var exact = SplitMix64(seed: 5)
        var drawing = SplitMix64(seed: 6)
        var counts: [Double: (exact: Int, drawn: Int)] = [:]
        for _ in 0..<draws {
            counts[resampler.resampledMedian(&exact), default: (0, 0)].exact += 1
            let drawn = (0..<size).map { _ in sample[drawing.next(below: size)] }
            counts[Statistics.median(drawn)!, default: (0, 0)].drawn += 1
        }
        // Adjacent values merged until each bin holds at least 10 of the pooled draws.
        var bins: [(exact: Int, drawn: Int)] = []
        var pending = (exact: 0, drawn: 0)
        for value in counts.keys.sorted() {
            pending.exact += counts[value]!.exact
            pending.drawn += counts[value]!.drawn
            if pending.exact + pending.drawn >= 10 {
                bins.append(pending)
                pending = (0, 0)
            }
        }
        if pending.exact + pending.drawn > 0 {
            if bins.isEmpty {
                bins.append(pending)
            } else {
                bins[bins.count - 1].exact += pending.exact
                bins[bins.count - 1].drawn += pending.drawn
            }
        }
        #expect(bins.count >= 3)
        let chiSquare = bins.reduce(0.0) { sum, bin in
            let difference = Double(bin.exact - bin.drawn)
            return sum + difference * difference / Double(bin.exact + bin.drawn)
        }
        #expect(chiSquare <= chiSquareCritical(degreesOfFreedom: bins.count - 1))
    }

    /// The chi-square quantile at 0.999 (Wilson–Hilferty: at most 3 % above the tables' values, from 1 degree of freedom up).
    private func chiSquareCritical(degreesOfFreedom: Int) -> Double {
        let k = Double(max(1, degreesOfFreedom))
        let z = 3.090_232  // the standard normal's 0.999 quantile
        let term = 1 - 2 / (9 * k) + z * (2 / (9 * k)).squareRoot()
        return k * term * term * term
    }

    @Test func constantSamplesNeedNoDrawsAndGiveThePointRatio() {
        let interval = Statistics.bootstrapRatioOfMedians(
            baseline: [10, 10, 10],
            current: [12, 12],
            confidence: 0.95,
            resamples: 2000,
            seed: 3
        )
        #expect(interval.low == 1.2 && interval.high == 1.2)
        // A constant side draws nothing, so the other side's draws are those it would make alone.
        let resampler = Statistics.Resampler([5, 5, 5, 5])
        var skipping = SplitMix64(seed: 11)
        #expect(resampler.resampledMedian(&skipping) == 5)
        #expect(skipping == SplitMix64(seed: 11))
    }
}
