import PagebenchBase

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Statistics {
    /// Medians of bootstrap resamples of one sample, each drawn from its exact law in constant
    /// time: the hot loop of `check` (2,000 resamples per metric and group).
    ///
    /// A bootstrap resample draws `n` positions of the sorted sample uniformly with
    /// replacement; its median is its k-th smallest drawn position's value (odd n,
    /// k = (n + 1) / 2) or the mean of its k-th and (k + 1)-th (even n, k = n / 2), as in
    /// ``Statistics/median(_:)``. Rather than drawing the `n` positions, the resampler draws
    /// those one or two order statistics directly:
    ///
    /// - a position drawn uniformly is ⌈n·U⌉ with U uniform in (0, 1), a non-decreasing map,
    ///   so the k-th smallest of n drawn positions is ⌈n·U₍ₖ₎⌉, where U₍ₖ₎, the k-th smallest
    ///   of n uniforms, is Beta(k, n + 1 − k);
    /// - given U₍ₖ₎ = u, the n − k uniforms above it are uniform in (u, 1), so
    ///   U₍ₖ₊₁₎ = u + (1 − u)·M, where M, the smallest of n − k uniforms, is
    ///   Beta(1, n − k) = 1 − W^(1/(n − k)) for W uniform in (0, 1].
    ///
    /// The resampled medians therefore have exactly the distribution that drawing `n` indices
    /// gives (StatisticsTests compares them with every possible resample of small samples and
    /// with drawing indices for large ones), at a few variates per resample instead of `n`.
    /// Rounding moves a position only when n·U falls within an ulp of an integer.
    struct Resampler {
        /// The sample, ascending.
        private let sorted: [Double]

        init(_ sample: [Double]) {
            sorted = Statistics.ascending(sample)
        }

        /// The sample's only value when every value is the same.
        var constant: Double? { sorted.first == sorted.last ? sorted.first : nil }

        /// The median of one resample with replacement (same size as the sample).
        ///
        /// A constant sample draws nothing: its every resample has the same median.
        func resampledMedian(_ generator: inout SplitMix64) -> Double {
            if let constant { return constant }
            let count = sorted.count
            if count % 2 == 1 {
                let k = count / 2 + 1
                return sorted[position(generator.nextBeta(Double(k), Double(count + 1 - k)))]
            }
            let k = count / 2
            let lower = generator.nextBeta(Double(k), Double(count + 1 - k))
            let above = 1 - generator.nextUnit()  // W, in (0, 1]
            let smallestAbove = -expm1(Math.log(above) / Double(count - k))
            let upper = lower + (1 - lower) * smallestAbove
            return (sorted[position(lower)] + sorted[position(upper)]) / 2
        }

        /// The index into `sorted` of the position ⌈n·u⌉ (1-based), kept within the sample.
        private func position(_ u: Double) -> Int {
            let rank = Int((Double(sorted.count) * u).rounded(.up))
            return min(sorted.count - 1, max(0, rank - 1))
        }
    }
}

extension SplitMix64 {
    /// A standard normal variate (Box–Muller, from two ``nextUnit()`` draws).
    mutating func nextStandardNormal() -> Double {
        let radius = (-2 * Math.log(1 - nextUnit())).squareRoot()
        return radius * cos(2 * Double.pi * nextUnit())
    }

    /// A Gamma(shape, 1) variate for `shape` ≥ 1: Marsaglia and Tsang's squeeze and
    /// rejection method (ACM TOMS 26(3), 2000), exact in distribution.
    mutating func nextGamma(shape: Double) -> Double {
        precondition(shape >= 1, "nextGamma(shape:) needs a shape of at least 1")
        let d = shape - 1.0 / 3
        let c = 1 / (9 * d).squareRoot()
        while true {
            var x: Double
            var v: Double
            repeat {
                x = nextStandardNormal()
                v = 1 + c * x
            } while v <= 0
            v = v * v * v
            let u = nextUnit()
            let squared = x * x
            if u < 1 - 0.0331 * squared * squared { return d * v }
            if Math.log(u) < 0.5 * squared + d * (1 - v + Math.log(v)) { return d * v }
        }
    }

    /// A Beta(a, b) variate for a, b ≥ 1, as X / (X + Y) of Gamma(a) and Gamma(b) variates.
    mutating func nextBeta(_ a: Double, _ b: Double) -> Double {
        let x = nextGamma(shape: a)
        let y = nextGamma(shape: b)
        return x / (x + y)
    }
}
