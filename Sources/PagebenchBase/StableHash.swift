/// Deterministic, platform-independent hashing for everything derived from a seed or a
/// configuration text: item attributes, payload bytes, configuration identity, the
/// checker's seeds.
///
/// Swift's `Hasher` is randomly seeded per process, so it must never be used for anything
/// that has to be reproducible (docs/contract.md H3). These functions are.
public enum StableHash {
    /// The SplitMix64 increment (``SplitMix64/golden``).
    @inlinable
    public static var golden: UInt64 { SplitMix64.golden }

    /// The SplitMix64 output function (``SplitMix64/mix(_:)``).
    @inlinable @inline(__always)
    public static func mix(_ value: UInt64) -> UInt64 {
        SplitMix64.mix(value)
    }

    /// Mixes two values into one well-distributed 64-bit hash.
    @inlinable @inline(__always)
    public static func combine(_ a: UInt64, _ b: UInt64) -> UInt64 {
        mix(mix(a &+ SplitMix64.golden) ^ (b &* 0xC2B2_AE3D_27D4_EB4F))
    }

    /// 64-bit FNV-1a over UTF-8 bytes. Used for configuration identity (not security).
    @inlinable
    public static func fnv1a64<S: StringProtocol>(_ text: S) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// Lowercase, zero-padded hexadecimal (16 characters for a `UInt64`).
    public static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
