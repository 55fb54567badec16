/// How many items each page returned, in fixed buckets (docs/live-metrics.md): pages with 0,
/// at most 1, 2, 5, 10, 20, 50, 100, 200, 500, 1,000, 2,000, 5,000 and 10,000 items, and more.
/// The bounds are fixed (a 1–2–5 ladder that holds the usual page limits), so that the
/// histograms of several pagers, workers or runs add up bucket by bucket.
///
/// Counted per page into the pager's own ``TaskMetrics`` (one table lookup and one add), so its
/// count of pages equals the `pages` column exactly: a cut-off drain's pages leave it as they
/// leave `pages` (``PageCounts``).
public struct ItemsPerPageHistogram: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The upper bounds (items, inclusive), ascending; a last bucket holds larger pages.
    public static let upperBounds: [Int] = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000]
    static let bucketCount = 15

    /// Pages per bucket (not cumulative); the last counts pages over the largest bound.
    public var counts: InlineArray<15, Int> = .init(repeating: 0)

    public init() {}

    /// The bucket a page of `items` items goes to: the first whose bound is at least `items`
    /// (``upperBounds``, written out: a global array read per page cost its lazy
    /// initialisation check and accessors, 32 instructions a page under callgrind).
    @inlinable
    public static func bucket(_ items: Int) -> Int {
        switch items {
        case ...0: 0
        case 1: 1
        case 2: 2
        case 3...5: 3
        case 6...10: 4
        case 11...20: 5
        case 21...50: 6
        case 51...100: 7
        case 101...200: 8
        case 201...500: 9
        case 501...1_000: 10
        case 1_001...2_000: 11
        case 2_001...5_000: 12
        case 5_001...10_000: 13
        default: 14
        }
    }

    /// Counts one page of `items` items.
    @inlinable
    public mutating func record(_ items: Int) {
        counts[Self.bucket(items)] &+= 1
    }

    /// Pages counted.
    public var pages: Int {
        var total = 0
        for index in counts.indices { total += counts[index] }
        return total
    }

    /// Cumulative pages at each bound, then in all (`+Inf`).
    public var cumulative: [Int] {
        var running = 0
        return counts.indices.map { index in
            running += counts[index]
            return running
        }
    }

    public mutating func add(_ other: ItemsPerPageHistogram) {
        for index in counts.indices { counts[index] += other.counts[index] }
    }

    /// The pages counted since `earlier` (a reading of the same histogram).
    public func since(_ earlier: ItemsPerPageHistogram) -> ItemsPerPageHistogram {
        var result = self
        for index in counts.indices { result.counts[index] -= earlier.counts[index] }
        return result
    }

    /// The counts per bucket (an `InlineArray` describes its storage as unknown).
    public var description: String {
        "ItemsPerPageHistogram(\(counts.indices.map { String(counts[$0]) }.joined(separator: " ")))"
    }

    public static func == (lhs: ItemsPerPageHistogram, rhs: ItemsPerPageHistogram) -> Bool {
        lhs.counts.indices.allSatisfy { lhs.counts[$0] == rhs.counts[$0] }
    }

    public func hash(into hasher: inout Hasher) {
        for index in counts.indices { hasher.combine(counts[index]) }
    }

    public init(from decoder: any Decoder) throws {
        let values = try [Int](from: decoder)
        guard values.count == Self.bucketCount else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "items per page: \(Self.bucketCount) counts expected, found \(values.count)"
                )
            )
        }
        for index in values.indices { counts[index] = values[index] }
    }

    public func encode(to encoder: any Encoder) throws {
        try counts.indices.map { counts[$0] }.encode(to: encoder)
    }
}
