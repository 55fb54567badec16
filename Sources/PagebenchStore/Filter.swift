/// A filter on item attributes, applied after the scan budget is charged (S3).
///
/// Text form (CLI `--filter`, JSON): `match` (category 0, the configured selectivity),
/// `category=N`, `category!=N`, `size>=N`, `size<=N` (sizes in bytes). Filters
/// are part of a token's binding under the strict policy (S18).
public enum Filter: Sendable, Hashable {
    /// Items whose category equals the value. Category 0 holds `selectivity` of the items.
    case categoryEquals(Int)
    /// Items whose category differs from the value.
    case categoryNotEquals(Int)
    /// Items of at least this many bytes.
    case sizeAtLeast(Int)
    /// Items of at most this many bytes.
    case sizeAtMost(Int)

    /// The filter selecting the configured fraction of items (`selectivity`, category 0).
    public static let matching = Filter.categoryEquals(0)

    /// Whether an item passes this filter.
    @inline(__always)
    public func matches(_ item: Item) -> Bool {
        matches(category: item.category, sizeBytes: item.sizeBytes)
    }

    @inline(__always)
    func matches(category: Int, sizeBytes: Int) -> Bool {
        switch self {
        case .categoryEquals(let value): category == value
        case .categoryNotEquals(let value): category != value
        case .sizeAtLeast(let value): sizeBytes >= value
        case .sizeAtMost(let value): sizeBytes <= value
        }
    }
}

extension Filter: CustomStringConvertible, Codable {
    /// The canonical text form, e.g. `category=0`.
    public var description: String {
        switch self {
        case .categoryEquals(let value): "category=\(value)"
        case .categoryNotEquals(let value): "category!=\(value)"
        case .sizeAtLeast(let value): "size>=\(value)"
        case .sizeAtMost(let value): "size<=\(value)"
        }
    }

    /// Parses the text form.
    ///
    /// - Throws: ``StoreError`` (`invalidConfiguration`) listing the accepted forms.
    public init(parsing text: String) throws(StoreError) {
        let spec = text.filter { !$0.isWhitespace }.lowercased()
        let forms: [(prefix: String, make: (Int) -> Filter)] = [
            ("category!=", Filter.categoryNotEquals),
            ("category=", Filter.categoryEquals),
            ("size>=", Filter.sizeAtLeast),
            ("size<=", Filter.sizeAtMost),
        ]
        if spec == "match" {
            self = .matching
            return
        }
        for form in forms where spec.hasPrefix(form.prefix) {
            if let value = Int(spec.dropFirst(form.prefix.count)), value >= 0 {
                self = form.make(value)
                return
            }
            throw .invalidConfiguration(
                "filter '\(text)': the value after '\(form.prefix)' must be a whole number ≥ 0")
        }
        throw .invalidConfiguration(
            "filter '\(text)' is not understood; use 'match', 'category=N', 'category!=N', 'size>=BYTES' or 'size<=BYTES'"
        )
    }

    public init(from decoder: any Decoder) throws {
        self = try Filter(parsing: decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Optional where Wrapped == Filter {
    /// `none` for no filter, else the filter's text — the wording of token-mismatch messages.
    var filterText: String { self.map(\.description) ?? "none" }
}
