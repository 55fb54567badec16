/// A filter on item attributes, applied after the scan budget is charged (S3).
///
/// Text form (CLI `--filter`, JSON): `match` (category 0, the configured selectivity),
/// `category=N`, `category!=N`, `size>=N`, `size<=N` (sizes in bytes), or a compound
/// condition in DynamoDB's grammar with whole-number literals: comparisons (`=`, `<>` or
/// `!=`, `<`, `<=`, `>`, `>=`) and `BETWEEN` on `category` and `size` (or `sizeBytes`),
/// joined by `and`, `or`, `not` and parentheses: `category=0 and size>=1000`. Filters
/// are part of a token's binding under the strict policy (S18); a compound one by the hash
/// of its canonical text.
public enum Filter: Sendable, Hashable {
    /// Items whose category equals the value. Category 0 holds `selectivity` of the items.
    case categoryEquals(Int)
    /// Items whose category differs from the value.
    case categoryNotEquals(Int)
    /// Items of at least this many bytes.
    case sizeAtLeast(Int)
    /// Items of at most this many bytes.
    case sizeAtMost(Int)
    /// Any other condition over category and size (W2, W6).
    case expression(FilterExpression)

    /// The filter selecting the configured fraction of items (`selectivity`, category 0).
    public static let matching = Filter.categoryEquals(0)

    /// Whether an item passes this filter. An item without attributes (a real target's)
    /// passes: the target applied the filter it was sent, and its item has no category here.
    @inlinable @inline(__always)
    public func matches(_ item: Item) -> Bool {
        guard let attributes = item.attributes else { return true }
        return matches(category: attributes.category, sizeBytes: item.sizeBytes)
    }

    /// Whether an item with these attributes passes: what a store's evaluation asks per
    /// item (inlinable, so that the store's loop keeps it inline across the module boundary).
    @inlinable @inline(__always)
    public func matches(category: Int, sizeBytes: Int) -> Bool {
        switch self {
        case .categoryEquals(let value): category == value
        case .categoryNotEquals(let value): category != value
        case .sizeAtLeast(let value): sizeBytes >= value
        case .sizeAtMost(let value): sizeBytes <= value
        case .expression(let expression): expression.matches(category: category, sizeBytes: sizeBytes)
        }
    }

    /// The filter for a condition: one of the simple cases when the condition is one of
    /// their forms (so that its text and token binding are the simple case's), else
    /// ``expression(_:)``.
    public init(_ expression: FilterExpression) {
        switch expression {
        case .comparison(.category, .equal, let value) where value >= 0: self = .categoryEquals(value)
        case .comparison(.category, .notEqual, let value) where value >= 0: self = .categoryNotEquals(value)
        case .comparison(.sizeBytes, .greaterOrEqual, let value) where value >= 0: self = .sizeAtLeast(value)
        case .comparison(.sizeBytes, .lessOrEqual, let value) where value >= 0: self = .sizeAtMost(value)
        default: self = .expression(expression)
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
        case .expression(let expression): expression.description
        }
    }

    /// Parses the text form.
    ///
    /// - Throws: ``PageError`` (``PageError/Kind/invalidRequest``) listing the accepted forms;
    ///   its message starts `invalid configuration:` as the store's configuration errors do.
    public init(parsing text: String) throws(PageError) {
        let spec = text.filter { !$0.isWhitespace }.lowercased()
        if spec == "match" {
            self = .matching
            return
        }
        let forms: [(prefix: String, make: (Int) -> Filter)] = [
            ("category!=", Filter.categoryNotEquals),
            ("category=", Filter.categoryEquals),
            ("size>=", Filter.sizeAtLeast),
            ("size<=", Filter.sizeAtMost),
        ]
        for form in forms where spec.hasPrefix(form.prefix) {
            if let value = Int(spec.dropFirst(form.prefix.count)), value >= 0 {
                self = form.make(value)
                try checkCategories(text)
                return
            }
        }
        let understood =
            "use 'match', 'category=N', 'category!=N', 'size>=BYTES', 'size<=BYTES', or conditions on category and size joined by and, or, not"
        do {
            let condition = try ConditionExpression(parsing: text, dialect: .filterText)
            let expression = try FilterExpression(
                condition,
                attribute: { (name: String) throws(ExpressionError) -> FilterAttribute in
                    switch name.lowercased() {
                    case "category": return .category
                    case "size", "sizebytes": return .sizeBytes
                    default: throw ExpressionError("unknown attribute '\(name)'")
                    }
                },
                value: { (operand: ConditionExpression.Operand) throws(ExpressionError) -> Int in
                    guard case .number(let number) = operand, number >= 0 else {
                        throw ExpressionError("categories and sizes are whole numbers ≥ 0")
                    }
                    return number
                }
            )
            self = Filter(expression)
        } catch {
            throw Self.invalid("filter '\(text)' is not understood (\(error.message)); \(understood)")
        }
        try checkCategories(text)
    }

    /// Refuses a category no item has: a typo, since the filter could only ever match all or
    /// nothing of what a real category would.
    private func checkCategories(_ text: String) throws(PageError) {
        let values: [Int] =
            switch self {
            case .categoryEquals(let value), .categoryNotEquals(let value): [value]
            case .sizeAtLeast, .sizeAtMost: []
            case .expression(let expression): expression.values(of: .category)
            }
        if let bad = values.first(where: { !Item.categories.contains($0) }) {
            throw Self.invalid(
                "filter '\(text)': there is no category \(bad); items have categories \(Item.categories.lowerBound) "
                    + "(the selectivity share, which 'match' selects) to \(Item.categories.upperBound)"
            )
        }
    }

    /// A filter text that is not understood, worded as the store's configuration errors are.
    private static func invalid(_ message: String) -> PageError {
        PageError(.invalidRequest, "invalid configuration: \(message)")
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
    public var filterText: String { self.map(\.description) ?? "none" }
}
