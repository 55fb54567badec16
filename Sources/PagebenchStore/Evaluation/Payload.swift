import PagebenchBase

/// The bytes of an item, generated on access from a seed: a random-access collection of
/// exactly `count` bytes that allocates nothing.
public struct Payload: RandomAccessCollection, Sendable, Hashable {
    public let seed: UInt64
    public let count: Int

    public init(seed: UInt64, count: Int) {
        self.seed = seed
        self.count = count
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    @inline(__always)
    public subscript(position: Int) -> UInt8 {
        precondition(position >= 0 && position < count, "payload index \(position) out of 0..<\(count)")
        return UInt8(truncatingIfNeeded: word(position >> 3) >> (UInt64(position & 7) << 3))
    }

    /// The 8-byte word `index` of the payload (little-endian bytes `8·index ..< 8·index + 8`).
    @inline(__always)
    func word(_ index: Int) -> UInt64 {
        StableHash.mix(seed &+ UInt64(truncatingIfNeeded: index &+ 1) &* StableHash.golden)
    }

    /// A checksum of all bytes (sum of the 8-byte words, the last one masked to the payload
    /// length), computed a word at a time; cheaper than iterating bytes.
    public func checksum() -> UInt64 {
        let fullWords = count >> 3
        var sum: UInt64 = 0
        for index in 0..<fullWords { sum &+= word(index) }
        let rest = count & 7
        if rest > 0 { sum &+= word(fullWords) & ((1 << (UInt64(rest) << 3)) &- 1) }
        return sum
    }

    /// Copies the bytes into a new array (allocates; for output and tests, not the hot path).
    public var bytes: [UInt8] { Array(self) }
}
