import PagebenchBase

/// Test samples from the seeded generator, the same on every run and machine.
extension SplitMix64 {
    /// A latency spread log-uniformly over 1 ns … 10 s, with occasional zeros.
    package mutating func latency() -> UInt64 {
        if next() % 97 == 0 { return 0 }
        let exponent = Double(next() % 1_000_000) / 1_000_000 * 10  // 10^0 … 10^10
        return UInt64(pow10(exponent))
    }

    private func pow10(_ exponent: Double) -> Double {
        var result = 1.0
        var remaining = exponent
        while remaining >= 1 {
            result *= 10
            remaining -= 1
        }
        // 10^r = e^(r ln 10), series is plenty precise for test data.
        let x = remaining * 2.302585092994046
        var term = 1.0
        var sum = 1.0
        for n in 1..<30 {
            term *= x / Double(n)
            sum += term
        }
        return result * sum
    }
}
