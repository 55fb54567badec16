/// SplitMix64: a tiny seeded generator, identical on every machine (never `Hasher`).
@usableFromInline
struct SplitMix64: Sendable {
    @usableFromInline var state: UInt64

    @usableFromInline init(seed: UInt64) { state = seed }

    @usableFromInline mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    @usableFromInline mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
