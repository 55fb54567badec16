import Testing

@testable import PagebenchStore

/// S17–S19 under fuzzing: truncated, bit-flipped, re-encoded, forged and cross-request
/// tokens are all rejected with the right error, and no input traps.
@Suite struct TokenFuzzTests {
    let store: SyntheticStore
    let request = PageRequest(range: .scan, limit: 5, filter: .matching)
    let token: String

    init() throws {
        store = try smallStore(partitions: 3, items: 40)
        token = try #require(try store.evaluatePage(PageRequest(range: .scan, limit: 5, filter: .matching)).nextToken)
    }

    func code(_ text: String, _ request: PageRequest? = nil) -> StoreError.Code? {
        storeErrorCode { _ = try store.evaluatePage((request ?? self.request).with(token: text)) }
    }

    @Test func theGenuineTokenWorks() throws {
        #expect(code(token) == nil)
    }

    @Test func everyTruncationIsRejected() {
        for length in 0..<token.count {
            #expect(code(String(token.prefix(length))) == .invalidToken, "prefix \(length)")
            #expect(code(String(token.suffix(length))) == .invalidToken, "suffix \(length)")
        }
    }

    @Test func everySingleBitFlipIsRejected() {
        let bytes = Array(token.utf8)
        for index in bytes.indices {
            for bit in 0..<8 {
                var flipped = bytes
                flipped[index] ^= 1 << bit
                #expect(code(String(decoding: flipped, as: UTF8.self)) == .invalidToken, "byte \(index) bit \(bit)")
            }
        }
    }

    @Test func everySingleCharacterSubstitutionIsRejected() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let characters = Array(token)
        for index in characters.indices {
            for replacement in alphabet where replacement != characters[index] {
                var changed = characters
                changed[index] = replacement
                #expect(code(String(changed)) == .invalidToken, "character \(index) → \(replacement)")
            }
        }
    }

    @Test func reEncodedTokensAreRejected() throws {
        // Standard base64 alphabet and padding are not the token's encoding.
        let standard = String(token.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        if standard != token { #expect(code(standard) == .invalidToken) }
        #expect(code(token + "==") == .invalidToken)
        #expect(code(token + "\n") == .invalidToken)
        #expect(code(" " + token) == .invalidToken)
        #expect(code(token.uppercased()) == .invalidToken)
        // Decoded, one field changed, re-encoded correctly but without the key: the MAC fails.
        var decoded = try PageToken.decode(token, key: store.tokenKey)
        decoded.lastPosition += 1
        let forgedKey = SipHash24(k0: 1, k1: 2)
        #expect(code(decoded.encode(key: forgedKey)) == .invalidToken)
        let message = storeError { _ = try store.evaluatePage(request.with(token: decoded.encode(key: forgedKey))) }
        #expect(message?.message.contains("signature does not verify") == true)
        // Re-encoded with the right key it is accepted again: the rejection above was the MAC.
        #expect(code(decoded.encode(key: store.tokenKey)) == nil)
    }

    @Test func crossRequestAndCrossStoreTokensAreRejected() throws {
        var other = request
        other.range = .partition(1)
        #expect(code(token, other) == .tokenMismatch)
        other = request
        other.range = .segment(index: 0, total: 1)
        #expect(code(token, other) == .tokenMismatch)
        other = request
        other.filter = .categoryNotEquals(0)
        #expect(code(token, other) == .tokenMismatch)
        // The same request against a store that differs in any field: the key differs.
        for changed in [
            try smallStore(partitions: 3, items: 40, seed: 3), try smallStore(partitions: 3, items: 41),
            try smallStore(partitions: 3, items: 40, budget: 1000),
        ] {
            #expect(storeErrorCode { _ = try changed.evaluatePage(request.with(token: token)) } == .invalidToken)
        }
    }

    @Test func randomGarbageNeverTraps() {
        var random = SplitMix64(seed: 0xF022)
        for _ in 0..<5000 {
            let length = Int.random(in: 0...80, using: &random)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(code(String(decoding: bytes, as: UTF8.self)) == .invalidToken)
        }
    }
}
