import Testing

@testable import PagebenchPager

/// The repeated-cursor guard (P9) compares every page's cursor with the previous one through
/// `cursorsEqual`, a fast path that must give exactly `String ==`'s answer.
@Suite
struct CursorEqualityTests {
    /// Pairs covering every branch: no difference, an ASCII difference in the first 8-byte
    /// word, in a later word and in the byte-by-byte tail, a prefix, different lengths,
    /// small and large strings, and non-ASCII differences that fall back to `==`.
    static let pairs: [(String, String)] = [
        ("", ""),
        ("a", "a"),
        ("a", "b"),
        ("", "a"),
        ("abc", "abcd"),
        ("eyJwIjoxfQ", "eyJwIjoxfQ"),
        (
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        ),
        (
            "XAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        ),
        (
            "AAAAAAAAAAXAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        ),
        (
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAX",
            "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        ),
        ("AAAAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAAAB"),
        // Same length, differing in the last word: ASCII, and non-ASCII in the last word.
        ("token-0123456789-AAAAAAAX", "token-0123456789-AAAAAAAY"),
        ("token-0123456789-AXAAAAAA", "token-0123456789-AYAAAAAA"),
        ("xx-caf\u{E9}", "xx-caf\u{E8}"),
        // Same length, canonically equivalent, differing only in the last word.
        ("abcdefgh-\u{E9}x", "abcdefgh-e\u{301}"),
        ("abcdefg-a\u{301}\u{323}", "abcdefg-a\u{323}\u{301}"),
        // Canonically equivalent, different bytes: precomposed vs decomposed "é".
        ("caf\u{E9}-token-0123456789", "cafe\u{301}-token-0123456789"),
        ("\u{E9}", "e\u{301}"),
        // Non-ASCII, not equivalent.
        ("caf\u{E9}-token", "caf\u{E8}-token"),
        ("tok\u{1F600}", "tok\u{1F601}"),
    ]

    @Test(arguments: pairs)
    func p9CursorsEqualAgreesWithStringEquality(_ pair: (String, String)) {
        #expect(cursorsEqual(pair.0, pair.1) == (pair.0 == pair.1))
        #expect(cursorsEqual(pair.1, pair.0) == (pair.1 == pair.0))
    }

    @Test func p9RepeatedCursorIsDetectedInEveryDirectionAndInfoType() {
        let token = String(repeating: "tokenABC", count: 7)
        let same = String(token.utf8.map { Character(Unicode.Scalar($0)) })  // equal value, another buffer
        let next = token.dropLast() + "D"
        typealias Cursor = CursorBasedPagination
        #expect(Cursor.Forward(nextToken: same).repeatsPosition(of: .init(nextToken: token), direction: .next))
        #expect(!Cursor.Forward(nextToken: String(next)).repeatsPosition(of: .init(nextToken: token), direction: .next))
        #expect(!Cursor.Forward(nextToken: nil).repeatsPosition(of: .init(nextToken: nil), direction: .next))
        let reverse = Cursor.Reverse(hasPrevious: true, startCursor: same)
        #expect(reverse.repeatsPosition(of: .init(hasPrevious: true, startCursor: token), direction: .previous))
        #expect(!reverse.repeatsPosition(of: .init(hasPrevious: true, startCursor: String(next)), direction: .previous))
        let both = Cursor.Bidirectional(hasNext: true, endCursor: same, hasPrevious: true, startCursor: "e\u{301}")
        let before = Cursor.Bidirectional(hasNext: true, endCursor: token, hasPrevious: true, startCursor: "\u{E9}")
        #expect(both.repeatsPosition(of: before, direction: .next))
        #expect(both.repeatsPosition(of: before, direction: .previous))
    }
}
