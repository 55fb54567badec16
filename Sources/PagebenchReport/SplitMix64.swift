/// A small seeded generator (SplitMix64) so the checker's bootstrap gives the same interval on
/// every run and machine. Never Swift's `SystemRandomNumberGenerator`: a verdict must be
/// reproducible from the two CSV files and the thresholds alone.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform index in `0..<count` (Lemire's nearly-divisionless method, unbiased).
    mutating func index(below count: Int) -> Int {
        precondition(count > 0)
        let bound = UInt64(count)
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold { product = next().multipliedFullWidth(by: bound) }
        }
        return Int(product.high)
    }
}
