/// Which items a request walks (S14, S15).
public enum ScanRange: Sendable, Hashable, Codable {
    /// A query: the items of one partition, in sort-key order (S14).
    case partition(Int)
    /// A scan: every partition in order, pages may cross partition boundaries (S14).
    case scan
    /// Segment `index` of `total` of a parallel scan (S15): a contiguous slice of the scan
    /// order, about `1/total` of all items. Segments are disjoint, their union is the scan,
    /// and a segment may be empty when there are fewer items than segments.
    case segment(index: Int, total: Int)
}

extension ScanRange: CustomStringConvertible {
    /// `partition 3`, `scan`, `segment 1 of 4` — the wording of token-mismatch messages.
    public var description: String {
        switch self {
        case .partition(let partition): "partition \(partition)"
        case .scan: "scan"
        case .segment(let index, let total): "segment \(index) of \(total)"
        }
    }
}
