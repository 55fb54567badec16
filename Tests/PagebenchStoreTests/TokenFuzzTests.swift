import PagebenchBase
import PagebenchPage
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
        let forgedKey = SipHash13(k0: 1, k1: 2)
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

    @Test func nextTokensEqualTokensSignedFromScratch() throws {
        // evaluatePage finishes the next token's MAC from the request token's prefix state;
        // that must be exactly the token computed from nothing, on every page of a traversal,
        // in both directions, and under the lenient policy when the limit changes between pages
        // (then the prefix words differ and the MAC is computed afresh).
        for (reverse, lenient) in [(false, false), (true, false), (false, true)] {
            let issuer = try smallStore(partitions: 3, items: 40, policy: lenient ? .lenient : .strict)
            var request = PageRequest(range: .scan, reverse: reverse, limit: 4)
            var pages = 0
            while true {
                let page = try issuer.evaluatePage(request)
                guard let next = page.nextToken else { break }
                let decoded = try PageToken.decode(next, key: issuer.tokenKey)
                #expect(decoded.encode(key: issuer.tokenKey) == next)
                request.token = next
                if lenient { request.limit = 3 + pages % 3 }
                pages += 1
            }
            #expect(pages > 5)
        }
    }

    @Test func versionOneTokensAreRejectedWithAnExplanation() throws {
        // The same fields in the version 1 format (SipHash-2-4 under the same key).
        let decoded = try PageToken.decode(token, key: store.tokenKey)
        let w0 = 1 | UInt64(decoded.rangeKind) << 16 | UInt64(decoded.filterKind) << 24 | UInt64(decoded.rangeA) << 32
        let w1 = UInt64(decoded.rangeB) | UInt64(decoded.limit) << 32
        let v1Key = SipHash24(k0: store.tokenKey.k0, k1: store.tokenKey.k1)
        let mac = v1Key.mac(w0, w1, decoded.filterValue, decoded.lastPosition)
        let old = Base64URL.encode40(w0, w1, decoded.filterValue, decoded.lastPosition, mac)
        let error = storeError { _ = try store.evaluatePage(request.with(token: old)) }
        #expect(error?.code == .invalidToken)
        #expect(error?.message.contains("version 1") == true)
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
