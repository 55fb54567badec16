/// SipHash-2-4 (Aumasson & Bernstein, 2012): a keyed 64-bit MAC / PRF.
///
/// pagebench uses it to sign page tokens (S17, S18) with a 128-bit key derived from the
/// store configuration, so a token that was forged, altered, or issued by a differently
/// configured store fails verification. It is written here, rather than taken from
/// swift-crypto, to keep the store free of dependencies; the reference test vectors of
/// the SipHash paper are checked in `SipHash24Tests`.
struct SipHash24: Sendable, Hashable {
    let k0: UInt64
    let k1: UInt64

    init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// Creates a key from 16 bytes, little-endian, as the reference implementation does.
    init(keyBytes: [UInt8]) {
        precondition(keyBytes.count == 16, "SipHash-2-4 needs a 16-byte key")
        self.init(k0: Self.loadLE(keyBytes, 0), k1: Self.loadLE(keyBytes, 8))
    }

    private struct State {
        var v0: UInt64
        var v1: UInt64
        var v2: UInt64
        var v3: UInt64

        init(_ key: SipHash24) {
            v0 = key.k0 ^ 0x736F_6D65_7073_6575
            v1 = key.k1 ^ 0x646F_7261_6E64_6F6D
            v2 = key.k0 ^ 0x6C79_6765_6E65_7261
            v3 = key.k1 ^ 0x7465_6462_7974_6573
        }

        @inline(__always)
        mutating func round() {
            v0 = v0 &+ v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32)
            v2 = v2 &+ v3; v3 = rotl(v3, 16); v3 ^= v2
            v0 = v0 &+ v3; v3 = rotl(v3, 21); v3 ^= v0
            v2 = v2 &+ v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32)
        }

        @inline(__always)
        mutating func compress(_ m: UInt64) {
            v3 ^= m
            round(); round()
            v0 ^= m
        }

        @inline(__always)
        mutating func finalize() -> UInt64 {
            v2 ^= 0xFF
            round(); round(); round(); round()
            return v0 ^ v1 ^ v2 ^ v3
        }

        @inline(__always)
        private func rotl(_ x: UInt64, _ b: UInt64) -> UInt64 { (x << b) | (x >> (64 &- b)) }
    }

    /// The MAC of an arbitrary byte string.
    func mac(_ bytes: some Collection<UInt8>) -> UInt64 {
        var state = State(self)
        var word: UInt64 = 0
        var shift: UInt64 = 0
        var length: UInt64 = 0
        for byte in bytes {
            word |= UInt64(byte) << shift
            shift += 8
            length &+= 1
            if shift == 64 {
                state.compress(word)
                word = 0
                shift = 0
            }
        }
        state.compress(word | (length << 56))
        return state.finalize()
    }

    /// The MAC of four little-endian 64-bit words (a 32-byte message), without touching memory.
    ///
    /// Equal to `mac` over the same 32 bytes; this is the token hot path.
    @inline(__always)
    func mac(_ w0: UInt64, _ w1: UInt64, _ w2: UInt64, _ w3: UInt64) -> UInt64 {
        var state = State(self)
        state.compress(w0)
        state.compress(w1)
        state.compress(w2)
        state.compress(w3)
        state.compress(32 << 56)
        return state.finalize()
    }

    private static func loadLE(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        return value
    }
}
