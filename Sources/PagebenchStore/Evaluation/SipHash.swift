/// SipHash (Aumasson & Bernstein, 2012): a keyed 64-bit MAC / PRF, in two round counts.
///
/// - ``SipHash24`` (2 compression, 4 finalization rounds, the paper's default) derives the
///   token key from the store configuration, once per store.
/// - ``SipHash13`` (1 and 3 rounds, the reduced variant Rust's and Python's hash tables use)
///   signs every page token (S17, S18) under that key, so a token that was forged, altered,
///   or issued by a differently configured store fails verification. It is on the paging
///   hot path twice per page (verify the request token, sign the next one).
///
/// Both are written here, rather than taken from swift-crypto, to keep the store free of
/// dependencies; reference test vectors are checked in `SipHashTests`.
struct SipHash24: SipHashKey {
    static let compressionRounds = 2
    static let finalizationRounds = 4

    let k0: UInt64
    let k1: UInt64

    init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// The MAC of four little-endian 64-bit words (a 32-byte message).
    func mac(_ w0: UInt64, _ w1: UInt64, _ w2: UInt64, _ w3: UInt64) -> UInt64 {
        var state = SipState(k0: k0, k1: k1)
        for word in [w0, w1, w2, w3, 32 << 56] { state.compress(word, rounds: 2) }
        return state.finalize(rounds: 4)
    }
}

/// What both round counts share: the key and the MAC of an arbitrary byte string.
protocol SipHashKey: Sendable, Hashable {
    static var compressionRounds: Int { get }
    static var finalizationRounds: Int { get }
    var k0: UInt64 { get }
    var k1: UInt64 { get }
    init(k0: UInt64, k1: UInt64)
}

extension SipHashKey {
    /// Creates a key from 16 bytes, little-endian, as the reference implementation does.
    init(keyBytes: [UInt8]) {
        let (k0, k1) = SipState.key(keyBytes)
        self.init(k0: k0, k1: k1)
    }

    /// The MAC of an arbitrary byte string.
    func mac(_ bytes: some Collection<UInt8>) -> UInt64 {
        SipState.mac(
            bytes,
            k0: k0,
            k1: k1,
            compressionRounds: Self.compressionRounds,
            finalizationRounds: Self.finalizationRounds
        )
    }
}

/// SipHash-1-3: the token MAC (see ``SipHash24`` for the family).
struct SipHash13: SipHashKey {
    static let compressionRounds = 1
    static let finalizationRounds = 3

    let k0: UInt64
    let k1: UInt64

    init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// The MAC of four little-endian 64-bit words (a 32-byte message), without touching memory.
    ///
    /// Equal to `mac` over the same 32 bytes; this is the token hot path.
    @inline(__always)
    func mac(_ w0: UInt64, _ w1: UInt64, _ w2: UInt64, _ w3: UInt64) -> UInt64 {
        Self.mac(prefix(w0, w1, w2), w3)
    }

    /// The state after the first three words of a four-word message. Tokens of one request
    /// share their first three words, so the store computes this once per page and finishes
    /// both the request token's and the next token's MAC from it.
    @inline(__always)
    func prefix(_ w0: UInt64, _ w1: UInt64, _ w2: UInt64) -> SipState {
        var state = SipState(k0: k0, k1: k1)
        state.compress(w0, rounds: 1)
        state.compress(w1, rounds: 1)
        state.compress(w2, rounds: 1)
        return state
    }

    /// The MAC of the four-word message whose first three words gave `prefix`.
    @inline(__always)
    static func mac(_ prefix: SipState, _ w3: UInt64) -> UInt64 {
        var state = prefix
        state.compress(w3, rounds: 1)
        state.compress(32 << 56, rounds: 1)
        return state.finalize(rounds: 3)
    }
}

/// The SipHash internal state and its permutation (SipRound).
struct SipState: Sendable {
    var v0: UInt64
    var v1: UInt64
    var v2: UInt64
    var v3: UInt64

    @inline(__always)
    init(k0: UInt64, k1: UInt64) {
        v0 = k0 ^ 0x736F_6D65_7073_6575
        v1 = k1 ^ 0x646F_7261_6E64_6F6D
        v2 = k0 ^ 0x6C79_6765_6E65_7261
        v3 = k1 ^ 0x7465_6462_7974_6573
    }

    @inline(__always)
    mutating func round() {
        v0 = v0 &+ v1
        v1 = rotl(v1, 13)
        v1 ^= v0
        v0 = rotl(v0, 32)
        v2 = v2 &+ v3
        v3 = rotl(v3, 16)
        v3 ^= v2
        v0 = v0 &+ v3
        v3 = rotl(v3, 21)
        v3 ^= v0
        v2 = v2 &+ v1
        v1 = rotl(v1, 17)
        v1 ^= v2
        v2 = rotl(v2, 32)
    }

    @inline(__always)
    mutating func compress(_ m: UInt64, rounds: Int) {
        v3 ^= m
        for _ in 0..<rounds { round() }
        v0 ^= m
    }

    @inline(__always)
    mutating func finalize(rounds: Int) -> UInt64 {
        v2 ^= 0xFF
        for _ in 0..<rounds { round() }
        return v0 ^ v1 ^ v2 ^ v3
    }

    @inline(__always)
    private func rotl(_ x: UInt64, _ b: UInt64) -> UInt64 { (x << b) | (x >> (64 &- b)) }

    /// The MAC of an arbitrary byte string (words little-endian, the length in the top byte
    /// of the last word).
    static func mac(
        _ bytes: some Collection<UInt8>,
        k0: UInt64,
        k1: UInt64,
        compressionRounds: Int,
        finalizationRounds: Int
    ) -> UInt64 {
        var state = SipState(k0: k0, k1: k1)
        var word: UInt64 = 0
        var shift: UInt64 = 0
        var length: UInt64 = 0
        for byte in bytes {
            word |= UInt64(byte) << shift
            shift += 8
            length &+= 1
            if shift == 64 {
                state.compress(word, rounds: compressionRounds)
                word = 0
                shift = 0
            }
        }
        state.compress(word | (length << 56), rounds: compressionRounds)
        return state.finalize(rounds: finalizationRounds)
    }

    /// A 128-bit key from 16 bytes, little-endian.
    static func key(_ bytes: [UInt8]) -> (UInt64, UInt64) {
        precondition(bytes.count == 16, "SipHash needs a 16-byte key")
        func load(_ offset: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
            return value
        }
        return (load(0), load(8))
    }
}
