#if canImport(Glibc)
import PagebenchBase
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The statistics behind `pagebench check`: medians, a seeded bootstrap interval of the ratio
/// of medians, and the Mann–Whitney U rank test. Pure functions over plain arrays.
package enum Statistics {
    /// The median of `values` (mean of the two middle values for an even count); nil when empty.
    package static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        return medianOfSorted(ascending(values))
    }

    static func medianOfSorted(_ sorted: [Double]) -> Double {
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The `q`-quantile (0…1) of sorted values, linear interpolation between closest ranks.
    package static func quantile(sorted: [Double], _ q: Double) -> Double {
        precondition(!sorted.isEmpty)
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        // Equal neighbours (also ±infinity from a zero baseline) need no interpolation, which would give NaN.
        if sorted[lower] == sorted[upper] || fraction == 0 { return sorted[lower] }
        if !sorted[lower].isFinite || !sorted[upper].isFinite { return fraction < 0.5 ? sorted[lower] : sorted[upper] }
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }

    /// `current / baseline` of two medians: 1 when both are 0, ±infinity when only the baseline is 0.
    package static func ratio(_ current: Double, over baseline: Double) -> Double {
        if baseline == 0 {
            if current == 0 { return 1 }
            return current > 0 ? .infinity : -.infinity
        }
        return current / baseline
    }

    /// A two-sided percentile-bootstrap interval of median(current) / median(baseline).
    ///
    /// Each of `resamples` rounds takes the medians of both samples drawn again with
    /// replacement (same sizes), from a SplitMix64 generator seeded with `seed`, so the
    /// interval is reproducible. ``Resampler`` draws each resample's median from its exact
    /// law instead of drawing its values one by one. With one value on each side the
    /// interval collapses to the point ratio.
    ///
    /// - Returns: the `(1 − confidence)/2` and `(1 + confidence)/2` quantiles of the resampled ratios.
    package static func bootstrapRatioOfMedians(
        baseline: [Double],
        current: [Double],
        confidence: Double,
        resamples: Int,
        seed: UInt64
    ) -> (low: Double, high: Double) {
        precondition(!baseline.isEmpty && !current.isEmpty && resamples > 0)
        let baselineResampler = Resampler(baseline)
        let currentResampler = Resampler(current)
        // Two constant samples have one resampled ratio: the point ratio (common in a CSV,
        // where many measured metrics do not vary; no draws are needed, and each metric has
        // its own seed, so skipping them changes no other interval).
        if let baselineValue = baselineResampler.constant, let currentValue = currentResampler.constant {
            let point = ratio(currentValue, over: baselineValue)
            return (point, point)
        }
        var generator = SplitMix64(seed: seed)
        var ratios = [Double](repeating: 0, count: resamples)
        for round in 0..<resamples {
            let baselineMedian = baselineResampler.resampledMedian(&generator)
            let currentMedian = currentResampler.resampledMedian(&generator)
            ratios[round] = ratio(currentMedian, over: baselineMedian)
        }
        ratios = ascending(ratios)
        let tail = (1 - confidence) / 2
        return (quantile(sorted: ratios, tail), quantile(sorted: ratios, 1 - tail))
    }

    /// The two-sided p-value of the Mann–Whitney U test that the two samples come from the same distribution.
    ///
    /// Exact (enumerating every arrangement of ranks) when there are no ties and both samples
    /// have at most 20 values; otherwise the normal approximation with tie and continuity
    /// corrections. Note the floor of the exact test: with 3 values on each side the smallest
    /// possible p is 0.1, with 4 it is 0.029, with 5 it is 0.0079.
    package static func mannWhitneyP(_ first: [Double], _ second: [Double]) -> Double {
        let n1 = first.count
        let n2 = second.count
        guard n1 > 0, n2 > 0 else { return 1 }
        // Ranks of the pooled sample, ties sharing their mean rank.
        let pooled = (first.map { ($0, 0) } + second.map { ($0, 1) }).sorted { $0.0 < $1.0 }
        var ranks = [Double](repeating: 0, count: pooled.count)
        var tieCorrection = 0.0
        var hasTies = false
        var start = 0
        while start < pooled.count {
            var end = start
            while end + 1 < pooled.count, pooled[end + 1].0 == pooled[start].0 { end += 1 }
            let rank = Double(start + end + 2) / 2
            for index in start...end { ranks[index] = rank }
            let tied = Double(end - start + 1)
            if tied > 1 {
                hasTies = true
                tieCorrection += tied * tied * tied - tied
            }
            start = end + 1
        }
        var rankSumFirst = 0.0
        for (index, element) in pooled.enumerated() where element.1 == 0 { rankSumFirst += ranks[index] }
        let u = rankSumFirst - Double(n1 * (n1 + 1)) / 2
        let mean = Double(n1 * n2) / 2

        if !hasTies, n1 <= 20, n2 <= 20 {
            let counts = exactUDistribution(n1, n2)
            let total = counts.reduce(0, +)
            let observed = Int(u.rounded())
            let lowerTail = counts[0...observed].reduce(0, +) / total
            let upperTail = counts[observed...].reduce(0, +) / total
            return min(1, 2 * min(lowerTail, upperTail))
        }
        let n = Double(n1 + n2)
        let variance = Double(n1 * n2) / 12 * ((n + 1) - tieCorrection / (n * (n - 1)))
        guard variance > 0 else { return 1 }
        let z = max(0, abs(u - mean) - 0.5) / variance.squareRoot()
        return min(1, erfc(z / 2.0.squareRoot()))
    }

    /// The smallest two-sided p-value the exact Mann–Whitney U test can give for these sample
    /// sizes (complete separation): 2 / C(n1 + n2, n1). 0.1 for 3 and 3, 0.029 for 4 and 4, 0.0079 for 5 and 5.
    package static func smallestMannWhitneyP(_ n1: Int, _ n2: Int) -> Double {
        guard n1 > 0, n2 > 0 else { return 1 }
        var combinations = 1.0
        for k in 0..<min(n1, n2) { combinations = combinations * Double(n1 + n2 - k) / Double(k + 1) }
        return min(1, 2 / combinations)
    }

    /// How many arrangements of `n1` + `n2` distinct values give each U = 0 … n1·n2.
    static func exactUDistribution(_ n1: Int, _ n2: Int) -> [Double] {
        // counts[a][b][u] built by the recurrence f(a, b, u) = f(a − 1, b, u − b) + f(a, b − 1, u).
        let maxU = n1 * n2
        var table = [[[Double]]](
            repeating: [[Double]](repeating: [], count: n2 + 1),
            count: n1 + 1
        )
        for a in 0...n1 {
            for b in 0...n2 {
                var row = [Double](repeating: 0, count: a * b + 1)
                if a == 0 || b == 0 {
                    row[0] = 1
                } else {
                    for u in 0...(a * b) {
                        var count = 0.0
                        if u - b >= 0, u - b < table[a - 1][b].count { count += table[a - 1][b][u - b] }
                        if u < table[a][b - 1].count { count += table[a][b - 1][u] }
                        row[u] = count
                    }
                }
                table[a][b] = row
            }
        }
        precondition(table[n1][n2].count == maxU + 1)
        return table[n1][n2]
    }
}
