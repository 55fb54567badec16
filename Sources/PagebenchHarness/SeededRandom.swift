/// SplitMix64: the harness's seeded generator for every random choice of a run (which
/// partition a drain reads, whether it abandons, when it is cancelled, open-loop arrival
/// times). Identical on every machine; never `Hasher` (SEMANTICS H3).
public struct SeededRandom: Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for item `index` of stream `stream` under `seed`: independent of how
    /// many numbers other items drew, so drain `k` makes the same choices whichever task runs it.
    public init(seed: UInt64, stream: UInt64, index: UInt64) {
        self.init(seed: SeededRandom.mix(SeededRandom.mix(seed ^ stream) &+ index &* 0x9E37_79B9_7F4A_7C15))
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SeededRandom.mix(state)
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in `0 ..< bound` (bound ≥ 1), without modulo bias worth mentioning (Lemire's multiply-shift).
    public mutating func next(below bound: Int) -> Int {
        precondition(bound >= 1)
        return Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// The SplitMix64 finaliser.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// FNV-1a 64 over UTF-8: the stable hash of configuration texts (never `Hasher`).
enum StableText {
    static func fnv1a64(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// 16 lowercase hex digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
