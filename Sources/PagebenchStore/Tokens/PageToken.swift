import PagebenchBase
import PagebenchPage

/// The content of a page token (S16): where to resume, and the request it is bound to.
///
/// Wire format, version 2: 40 bytes, encoded as 54 characters of unpadded URL-safe base64
/// (RFC 4648 §5, canonical: the unused low bits of the last character must be zero).
///
/// | bytes | content |
/// | --- | --- |
/// | 0 | version (2; version 1, signed with SipHash-2-4, is no longer accepted) |
/// | 1 | flags: bit 0 = reverse |
/// | 2 | range kind: 0 partition, 1 scan, 2 segment |
/// | 3 | filter kind: 0 none, 1 category=, 2 category!=, 3 size>=, 4 size<=, 5 compound |
/// | 4–7 | partition, or segment index |
/// | 8–11 | segment total |
/// | 12–15 | limit |
/// | 16–23 | filter value (compound: FNV-1a of its canonical text) |
/// | 24–31 | global position of the last evaluated item; under writes its global key (keyset) or the items passed (offset, S24) |
/// | 32–39 | SipHash-1-3 MAC of bytes 0–31 |
///
/// All integers are little-endian. The MAC key is derived from the store configuration, so
/// a token is also bound to the store and dataset that issued it (S18).
struct PageToken: Sendable, Hashable {
    static let version: UInt8 = 2
    static let byteCount = 40
    static let textCount = 54

    var reverse: Bool
    var rangeKind: UInt8
    var rangeA: UInt32
    var rangeB: UInt32
    var limit: UInt32
    var filterKind: UInt8
    var filterValue: UInt64
    var lastPosition: UInt64

    init(request: PageRequest, limit: Int, lastPosition: Int) {
        reverse = request.reverse
        (rangeKind, rangeA, rangeB) = Self.rangeFields(request.range)
        self.limit = UInt32(truncatingIfNeeded: limit)
        (filterKind, filterValue) = Self.filterFields(request.filter)
        self.lastPosition = UInt64(truncatingIfNeeded: lastPosition)
    }

    /// This token with another position word (a key or an offset under writes).
    func with(lastPosition: UInt64) -> PageToken {
        var copy = self
        copy.lastPosition = lastPosition
        return copy
    }

    init(
        reverse: Bool,
        rangeKind: UInt8,
        rangeA: UInt32,
        rangeB: UInt32,
        limit: UInt32,
        filterKind: UInt8,
        filterValue: UInt64,
        lastPosition: UInt64
    ) {
        self.reverse = reverse
        self.rangeKind = rangeKind
        self.rangeA = rangeA
        self.rangeB = rangeB
        self.limit = limit
        self.filterKind = filterKind
        self.filterValue = filterValue
        self.lastPosition = lastPosition
    }

    @inline(__always)
    static func rangeFields(_ range: ScanRange) -> (UInt8, UInt32, UInt32) {
        switch range {
        case .partition(let partition): (0, UInt32(truncatingIfNeeded: partition), 0)
        case .scan: (1, 0, 0)
        case .segment(let index, let total): (2, UInt32(truncatingIfNeeded: index), UInt32(truncatingIfNeeded: total))
        }
    }

    @inline(__always)
    static func filterFields(_ filter: Filter?) -> (UInt8, UInt64) {
        switch filter {
        case nil: (0, 0)
        case .categoryEquals(let value)?: (1, UInt64(truncatingIfNeeded: value))
        case .categoryNotEquals(let value)?: (2, UInt64(truncatingIfNeeded: value))
        case .sizeAtLeast(let value)?: (3, UInt64(truncatingIfNeeded: value))
        case .sizeAtMost(let value)?: (4, UInt64(truncatingIfNeeded: value))
        case .expression(let expression)?: (5, StableHash.fnv1a64(expression.description))
        }
    }

    /// The range this token was issued for (for mismatch messages).
    var range: ScanRange {
        switch rangeKind {
        case 0: .partition(Int(rangeA))
        case 1: .scan
        default: .segment(index: Int(rangeA), total: Int(rangeB))
        }
    }

    /// The filter this token was issued for, `nil` for none or a compound one (carried as a hash).
    var filter: Filter? {
        let value = Int(truncatingIfNeeded: filterValue)
        switch filterKind {
        case 1: return .categoryEquals(value)
        case 2: return .categoryNotEquals(value)
        case 3: return .sizeAtLeast(value)
        case 4: return .sizeAtMost(value)
        default: return nil
        }
    }

    private var words: (UInt64, UInt64, UInt64, UInt64) {
        let w0 =
            UInt64(Self.version) | UInt64(reverse ? 1 : 0) << 8 | UInt64(rangeKind) << 16
            | UInt64(filterKind) << 24 | UInt64(rangeA) << 32
        let w1 = UInt64(rangeB) | UInt64(limit) << 32
        return (w0, w1, filterValue, lastPosition)
    }

    /// The token text: 54 URL-safe base64 characters.
    func encode(key: SipHash13) -> String {
        encode(key: key, reusing: nil)
    }

    /// The token text, finishing the MAC from `prefix` when it was computed under `key` over
    /// the same first three words (the next token of the request a decoded token was bound
    /// to): the same MAC as computed from scratch, for about half the SipHash work.
    @inline(__always)
    func encode(key: SipHash13, reusing prefix: MACPrefix?) -> String {
        let (w0, w1, w2, w3) = words
        let state: SipState
        if let prefix, prefix.key == key, prefix.w0 == w0, prefix.w1 == w1, prefix.w2 == w2 {
            state = prefix.state
        } else {
            state = key.prefix(w0, w1, w2)
        }
        return Base64URL.encode40(w0, w1, w2, w3, SipHash13.mac(state, w3))
    }

    /// The first three words of a verified token and the MAC state after them under `key`.
    struct MACPrefix: Sendable {
        let key: SipHash13
        let w0: UInt64
        let w1: UInt64
        let w2: UInt64
        let state: SipState
    }

    /// Decodes and verifies a token. Never traps on any input.
    static func decode(_ text: String, key: SipHash13) throws(StoreError) -> PageToken {
        try decodeKeepingPrefix(text, key: key).token
    }

    /// Decodes and verifies a token, also returning its MAC prefix for ``encode(key:reusing:)``.
    @inline(__always)
    static func decodeKeepingPrefix(
        _ text: String,
        key: SipHash13
    ) throws(StoreError) -> (token: PageToken, prefix: MACPrefix) {
        let w = try Base64URL.decode40(text)
        let state = key.prefix(w.0, w.1, w.2)
        guard SipHash13.mac(state, w.3) == w.4 else {
            if UInt8(truncatingIfNeeded: w.0) == 1 {
                throw .invalidToken(
                    "it looks like a version 1 token (signed with SipHash-2-4), which this store no longer accepts; start the listing again without a token"
                )
            }
            throw .invalidToken(
                "its signature does not verify, so it was altered, forged, or issued by a store with a different configuration or seed"
            )
        }
        let version = UInt8(truncatingIfNeeded: w.0)
        guard version == Self.version else {
            throw .invalidToken("token version \(version) is not supported (this store issues version \(Self.version))")
        }
        let flags = UInt8(truncatingIfNeeded: w.0 >> 8)
        let rangeKind = UInt8(truncatingIfNeeded: w.0 >> 16)
        let filterKind = UInt8(truncatingIfNeeded: w.0 >> 24)
        guard flags <= 1, rangeKind <= 2, filterKind <= 5 else {
            throw .invalidToken("it has fields this store never writes")
        }
        let token = PageToken(
            reverse: flags == 1,
            rangeKind: rangeKind,
            rangeA: UInt32(truncatingIfNeeded: w.0 >> 32),
            rangeB: UInt32(truncatingIfNeeded: w.1),
            limit: UInt32(truncatingIfNeeded: w.1 >> 32),
            filterKind: filterKind,
            filterValue: w.2,
            lastPosition: w.3
        )
        return (token, MACPrefix(key: key, w0: w.0, w1: w.1, w2: w.2, state: state))
    }
}
