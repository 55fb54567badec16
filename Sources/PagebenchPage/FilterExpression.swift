/// A compound filter over the two filterable attributes (W2, W6): comparisons and
/// `BETWEEN` on `category` and `sizeBytes`, joined by AND, OR and NOT. Applied after the
/// budget is charged, like every filter (S3).
public indirect enum FilterExpression: Sendable, Hashable {
    case comparison(FilterAttribute, ComparisonOperator, Int)
    /// Inclusive at both ends.
    case between(FilterAttribute, Int, Int)
    case and(FilterExpression, FilterExpression)
    case or(FilterExpression, FilterExpression)
    case not(FilterExpression)

    /// Whether an item with these attributes passes.
    @inlinable @inline(__always)
    public func matches(category: Int, sizeBytes: Int) -> Bool {
        switch self {
        case .comparison(let attribute, let op, let value):
            op.holds(attribute == .category ? category : sizeBytes, value)
        case .between(let attribute, let low, let high):
            (attribute == .category ? category : sizeBytes) >= low
                && (attribute == .category ? category : sizeBytes) <= high
        case .and(let left, let right):
            left.matches(category: category, sizeBytes: sizeBytes)
                && right.matches(category: category, sizeBytes: sizeBytes)
        case .or(let left, let right):
            left.matches(category: category, sizeBytes: sizeBytes)
                || right.matches(category: category, sizeBytes: sizeBytes)
        case .not(let inner):
            !inner.matches(category: category, sizeBytes: sizeBytes)
        }
    }

    /// Gives a parsed condition its meaning as a filter.
    ///
    /// - Parameters:
    ///   - attribute: maps a name operand (as written, `#placeholders` included) to an
    ///     attribute, or throws naming it.
    ///   - value: maps a `:value` placeholder or a literal to a whole number, or throws.
    /// - Throws: ``ExpressionError`` for an operand that is neither, or a comparison
    ///   between two attributes or two values.
    public init(
        _ condition: ConditionExpression,
        attribute: (String) throws(ExpressionError) -> FilterAttribute,
        value: (ConditionExpression.Operand) throws(ExpressionError) -> Int
    ) throws(ExpressionError) {
        func resolve(_ condition: ConditionExpression) throws(ExpressionError) -> FilterExpression {
            switch condition {
            case .comparison(.name(let name), let op, let right):
                if case .name(let other) = right {
                    throw ExpressionError(
                        "'\(name) \(op.rawValue) \(other)' compares two attributes; compare an attribute with a value"
                    )
                }
                return .comparison(try attribute(name), op, try value(right))
            case .comparison(let left, let op, .name(let name)):
                return .comparison(try attribute(name), op.mirrored, try value(left))
            case .comparison:
                throw ExpressionError("a comparison between two values names no attribute")
            case .between(.name(let name), let low, let high):
                return .between(try attribute(name), try value(low), try value(high))
            case .between:
                throw ExpressionError("BETWEEN must follow an attribute name")
            case .and(let left, let right): return .and(try resolve(left), try resolve(right))
            case .or(let left, let right): return .or(try resolve(left), try resolve(right))
            case .not(let inner): return .not(try resolve(inner))
            }
        }
        self = try resolve(condition)
    }

    /// The values compared with `attribute` anywhere in the condition, in text order.
    func values(of attribute: FilterAttribute) -> [Int] {
        switch self {
        case .comparison(let compared, _, let value): compared == attribute ? [value] : []
        case .between(let compared, let low, let high): compared == attribute ? [low, high] : []
        case .and(let left, let right), .or(let left, let right):
            left.values(of: attribute) + right.values(of: attribute)
        case .not(let inner): inner.values(of: attribute)
        }
    }

    /// The canonical text, which ``Filter/init(parsing:)`` reads back to the same tree:
    /// `(category=0 or category=1) and size>=1000`.
    public var description: String {
        func operand(_ expression: FilterExpression) -> String {
            switch expression {
            case .and, .or: "(\(expression.description))"
            default: expression.description
            }
        }
        switch self {
        case .comparison(let attribute, let op, let value): return "\(attribute.textName)\(op.rawValue)\(value)"
        case .between(let attribute, let low, let high): return "\(attribute.textName) between \(low) and \(high)"
        case .and(let left, let right): return "\(operand(left)) and \(operand(right))"
        case .or(let left, let right): return "\(operand(left)) or \(operand(right))"
        case .not(let inner): return "not \(operand(inner))"
        }
    }
}

/// The attributes a filter can test.
public enum FilterAttribute: String, Sendable, Hashable, CaseIterable {
    /// 0 for the configured `selectivity` of items, else 1…15.
    case category
    /// The item's size in bytes.
    case sizeBytes

    /// The name in pagebench's filter text (`size`, as in `size>=1000`).
    var textName: String { self == .category ? "category" : "size" }
}
