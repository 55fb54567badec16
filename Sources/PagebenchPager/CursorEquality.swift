/// Whether two cursors are equal as `String ==` says (canonical equivalence), decided for
/// the common case without the standard library's out-of-line comparison: the pagers
/// compare every page's cursor with the previous one (docs/contract.md P9), and consecutive
/// cursors usually differ.
///
/// Checks the last eight bytes, then scans for the first differing UTF-8 byte. No
/// difference and the same length: equal. A first (or, in the last word, last) difference
/// where both bytes are ASCII: not equal, because an ASCII character
/// is a starter that neither decomposes nor reorders, so the canonical decompositions
/// differ at that character too. Anything else (a non-ASCII difference, or one cursor a
/// prefix of the other) falls back to `==`, so the answer is always the same as `==`.
@inlinable @inline(__always)
func cursorsEqual(_ a: String, _ b: String) -> Bool {
    let decided: Bool??? = a.utf8.withContiguousStorageIfAvailable { x in
        b.utf8.withContiguousStorageIfAvailable { y -> Bool? in
            // Consecutive cursors of one source usually have the same length and differ
            // in their last bytes (a position, a checksum): look at the last word first.
            // By the same argument read backwards, a last differing byte that is ASCII in
            // both decides "not equal" (an ASCII starter blocks reordering both ways).
            if x.count == y.count, x.count >= 8 {
                let offset = x.count &- 8
                let wx = UInt64(
                    littleEndian: UnsafeRawPointer(x.baseAddress!).loadUnaligned(
                        fromByteOffset: offset,
                        as: UInt64.self
                    )
                )
                let wy = UInt64(
                    littleEndian: UnsafeRawPointer(y.baseAddress!).loadUnaligned(
                        fromByteOffset: offset,
                        as: UInt64.self
                    )
                )
                if wx != wy {
                    let last = offset &+ (63 &- (wx ^ wy).leadingZeroBitCount) / 8
                    if x[last] < 0x80 && y[last] < 0x80 { return false }
                }
            }
            let common = min(x.count, y.count)
            var index = 0
            // Eight bytes at a time, then byte by byte from the first differing word.
            while index &+ 8 <= common {
                let wx = UnsafeRawPointer(x.baseAddress!).loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let wy = UnsafeRawPointer(y.baseAddress!).loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if wx != wy { break }
                index &+= 8
            }
            while index < common, x[index] == y[index] { index &+= 1 }
            if index == common { return x.count == y.count ? true : nil }
            return x[index] < 0x80 && y[index] < 0x80 ? false : nil
        }
    }
    if case .some(.some(.some(let decided))) = decided { return decided }
    return a == b
}
