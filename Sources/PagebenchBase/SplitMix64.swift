/// SplitMix64: the one seeded generator of pagebench (store tests, pager retry jitter, the
/// harness's random choices, the checker's bootstrap). Identical on every machine; never
/// `Hasher` or `SystemRandomNumberGenerator` (docs/contract.md H3).
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    /// The SplitMix64 increment (2^64 / golden ratio, odd).
    /// (A computed constant, so that inlined callers in other modules fold it.)
    @inlinable
    public static var golden: UInt64 { 0x9E37_79B9_7F4A_7C15 }

    @usableFromInline var state: UInt64

    @inlinable
    public init(seed: UInt64) { state = seed }

    /// A generator for item `index` of stream `stream` under `seed`: independent of how
    /// many numbers other items drew, so drain `k` makes the same choices whichever task runs it.
    @inlinable
    public init(seed: UInt64, stream: UInt64, index: UInt64) {
        self.init(seed: Self.mix(Self.mix(seed ^ stream) &+ index &* Self.golden))
    }

    @inlinable
    public mutating func next() -> UInt64 {
        state &+= Self.golden
        return Self.mix(state)
    }

    /// Skips `count` outputs of ``next()`` in constant time: the generator is then where
    /// `count` calls would have left it.
    @inlinable
    public mutating func advance(by count: Int) {
        state &+= UInt64(truncatingIfNeeded: count) &* Self.golden
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    @inlinable
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in `0 ..< bound` (bound ≥ 1), unbiased: Lemire's multiply-shift with its
    /// rejection step. The rejection only fires when the low half of the product falls
    /// below `2^64 mod bound` (a chance of at most `bound / 2^64` per draw), so for every
    /// bound pagebench uses it draws the same numbers as the plain multiply-shift, which
    /// the harness used before: seeded runs keep their choices.
    @inlinable
    public mutating func next(below bound: Int) -> Int {
        precondition(bound >= 1, "next(below:) needs a bound of at least 1")
        let limit = UInt64(bound)
        var product = next().multipliedFullWidth(by: limit)
        if product.low < limit {
            let threshold = (0 &- limit) % limit
            while product.low < threshold { product = next().multipliedFullWidth(by: limit) }
        }
        return Int(truncatingIfNeeded: product.high)
    }

    /// The SplitMix64 output function: a bijective avalanche of all 64 bits.
    @inlinable @inline(__always)
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
