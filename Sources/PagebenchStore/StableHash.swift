/// Deterministic, platform-independent hashing used for everything the store derives from
/// its seed: item attributes, payload bytes, configuration identity.
///
/// Swift's `Hasher` is randomly seeded per process, so it must never be used for anything
/// that has to be reproducible (see STYLE.md, "Determinism"). These functions are.
enum StableHash {
    /// The SplitMix64 increment (2^64 / golden ratio, odd).
    static let golden: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The SplitMix64 output function: a bijective avalanche of all 64 bits.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Mixes two values into one well-distributed 64-bit hash.
    @inline(__always)
    static func combine(_ a: UInt64, _ b: UInt64) -> UInt64 {
        mix(mix(a &+ golden) ^ (b &* 0xC2B2_AE3D_27D4_EB4F))
    }

    /// 64-bit FNV-1a over UTF-8 bytes. Used for configuration identity (not security).
    static func fnv1a64<S: StringProtocol>(_ text: S) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// Lowercase, zero-padded hexadecimal (16 characters for a `UInt64`).
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
