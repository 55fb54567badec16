/// A seeded generator so test samples are the same on every run and machine.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A latency spread log-uniformly over 1 ns … 10 s, with occasional zeros.
    mutating func latency() -> UInt64 {
        if next() % 97 == 0 { return 0 }
        let exponent = Double(next() % 1_000_000) / 1_000_000 * 10  // 10^0 … 10^10
        return UInt64(pow10(exponent))
    }

    private func pow10(_ exponent: Double) -> Double {
        var result = 1.0
        var remaining = exponent
        while remaining >= 1 { result *= 10; remaining -= 1 }
        // 10^r = e^(r ln 10), series is plenty precise for test data.
        let x = remaining * 2.302585092994046
        var term = 1.0, sum = 1.0
        for n in 1..<30 { term *= x / Double(n); sum += term }
        return result * sum
    }
}
