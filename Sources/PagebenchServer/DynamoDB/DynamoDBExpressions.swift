import PagebenchPage
import PagebenchStore
import PagebenchWire

/// The expressions of one Query or Scan (W2): `#name` and `:value` placeholders resolved
/// from `ExpressionAttributeNames` and `ExpressionAttributeValues`, each of which must be
/// used (as DynamoDB requires), and the key condition, filter and projection given their
/// meaning over the store.
struct DynamoDBExpressions {
    let names: [String: String]
    let values: [String: DynamoDBValue]
    let cache: ConditionCache
    private var usedNames: Set<String> = []
    private var usedValues: Set<String> = []

    init(names: [String: String]?, values: [String: DynamoDBValue]?, cache: ConditionCache) {
        self.names = names ?? [:]
        self.values = values ?? [:]
        self.cache = cache
    }

    /// An attribute name operand: a `#placeholder` resolved, or the name itself.
    mutating func attribute(_ operand: String) throws(ExpressionError) -> String {
        guard operand.hasPrefix("#") else { return operand }
        guard let name = names[operand] else {
            throw ExpressionError(
                "an expression attribute name used in the expression is not defined; attribute name: \(operand)"
            )
        }
        usedNames.insert(operand)
        return name
    }

    /// A value operand as a whole number; `what` names it in errors.
    mutating func number(_ operand: ConditionExpression.Operand, _ what: String) throws(ExpressionError) -> Int {
        guard case .value(let placeholder) = operand else {
            throw ExpressionError("\(what): an attribute was found where a value was expected")
        }
        guard let value = values[placeholder] else {
            throw ExpressionError(
                "an expression attribute value used in the expression is not defined; attribute value: \(placeholder)"
            )
        }
        usedValues.insert(placeholder)
        do {
            return try value.integer("\(placeholder) (compared with \(what))")
        } catch {
            throw ExpressionError(error.message)
        }
    }

    /// `KeyConditionExpression`: `pk = :v`, optionally AND one condition on `sk` (`=`, `<`,
    /// `<=`, `>`, `>=`, `BETWEEN`), which narrows the query to a sort-key window.
    mutating func keyCondition(_ text: String) throws(DynamoDBError) -> (partition: Int, sortKeys: Range<UInt64>?) {
        do throws(ExpressionError) {
            var conjuncts: [ConditionExpression] = []
            func flatten(_ condition: ConditionExpression) throws(ExpressionError) {
                switch condition {
                case .and(let left, let right):
                    try flatten(left)
                    try flatten(right)
                case .or: throw ExpressionError("OR is not allowed in a key condition")
                case .not: throw ExpressionError("NOT is not allowed in a key condition")
                default: conjuncts.append(condition)
                }
            }
            try flatten(try cache.condition(text))
            var partition: Int?
            var sortKeys: Range<UInt64>?
            for conjunct in conjuncts {
                switch conjunct {
                case .comparison(let left, let op, let right):
                    let (nameOperand, valueOperand, op) =
                        if case .name(let name) = left { (name, right, op) } else if case .name(let name) = right {
                            (name, left, op.mirrored)
                        } else {
                            throw ExpressionError("a key condition compares two values")
                        }
                    let name = try attribute(nameOperand)
                    if name == DynamoDBAttributes.partitionKey {
                        guard op == .equal else {
                            throw ExpressionError("the partition key '\(name)' takes only '=', not '\(op.rawValue)'")
                        }
                        guard partition == nil else {
                            throw ExpressionError("the partition key '\(name)' is named twice")
                        }
                        partition = try number(valueOperand, name)
                    } else if name == DynamoDBAttributes.sortKey {
                        guard sortKeys == nil else { throw ExpressionError("the sort key '\(name)' is named twice") }
                        guard op != .notEqual else {
                            throw ExpressionError("the sort key '\(name)' does not take '<>'")
                        }
                        sortKeys = Self.window(op, try number(valueOperand, name))
                    } else {
                        throw ExpressionError(
                            "'\(name)' is not a key attribute; a key condition names pk (HASH) and optionally sk (RANGE)"
                        )
                    }
                case .between(.name(let nameOperand), let low, let high):
                    let name = try attribute(nameOperand)
                    guard name == DynamoDBAttributes.sortKey else {
                        throw ExpressionError("BETWEEN applies to the sort key sk in a key condition, not to '\(name)'")
                    }
                    guard sortKeys == nil else { throw ExpressionError("the sort key '\(name)' is named twice") }
                    let lower = try number(low, name)
                    let upper = try number(high, name)
                    guard lower <= upper else {
                        throw ExpressionError(
                            "the BETWEEN operator requires the upper bound to be at least the lower bound"
                        )
                    }
                    sortKeys = Self.clamp(lower)..<Self.clamp(upper, plusOne: true)
                default:
                    throw ExpressionError(
                        "unsupported key condition; use pk = :v, optionally AND sk with =, <, <=, >, >= or BETWEEN"
                    )
                }
            }
            guard let partition else {
                throw ExpressionError("the key condition must name the partition key pk with '='")
            }
            return (partition, sortKeys)
        } catch {
            throw .validation("Invalid KeyConditionExpression: \(error.message)")
        }
    }

    /// The sort keys `sk op value` selects.
    static func window(_ op: ComparisonOperator, _ value: Int) -> Range<UInt64> {
        switch op {
        case .equal: clamp(value)..<clamp(value, plusOne: true)
        case .less: 0..<clamp(value)
        case .lessOrEqual: 0..<clamp(value, plusOne: true)
        case .greater: clamp(value, plusOne: true)..<UInt64.max
        case .greaterOrEqual, .notEqual: clamp(value)..<UInt64.max
        }
    }

    /// A key value as a window bound: negatives are below every key, and bounds stay below
    /// `UInt64.max` so that `+ 1` cannot overflow.
    static func clamp(_ value: Int, plusOne: Bool = false) -> UInt64 {
        let bounded = UInt64(max(0, min(value, Int.max - 1)))
        return plusOne ? (value < 0 ? 0 : bounded + 1) : bounded
    }

    /// `FilterExpression` over `category` and `sizeBytes` (W2).
    mutating func filter(_ text: String) throws(DynamoDBError) -> Filter {
        do throws(ExpressionError) {
            let condition = try cache.condition(text)
            let expression = try FilterExpression(
                condition,
                attribute: { (operand: String) throws(ExpressionError) -> FilterAttribute in
                    let name = try attribute(operand)
                    switch name {
                    case "category": return .category
                    case "sizeBytes": return .sizeBytes
                    case DynamoDBAttributes.partitionKey, DynamoDBAttributes.sortKey:
                        throw ExpressionError(
                            "filters on the key attribute '\(name)' are not supported; narrow the key condition instead"
                        )
                    default:
                        throw ExpressionError(
                            "filters on '\(name)' are not supported; filter on category and sizeBytes"
                        )
                    }
                },
                value: { (operand: ConditionExpression.Operand) throws(ExpressionError) -> Int in
                    try number(operand, "a filter attribute")
                }
            )
            return Filter(expression)
        } catch {
            throw .validation("Invalid FilterExpression: \(error.message)")
        }
    }

    /// `ProjectionExpression`: attribute names (or `#placeholders`) separated by commas.
    mutating func projection(_ text: String) throws(DynamoDBError) -> Set<String> {
        // DynamoDB's limit on any expression (4 KB), as the condition parser applies it.
        let length = text.unicodeScalars.count
        guard length <= 4096 else {
            throw .validation(
                "Invalid ProjectionExpression: the expression is \(length) characters long; at most 4096 are accepted"
            )
        }
        var result: Set<String> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let word = part.trimmingWhitespace
            guard !word.isEmpty,
                word.unicodeScalars.allSatisfy({
                    $0.isASCII
                        && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" || $0 == "#")
                })
            else {
                throw .validation(
                    "Invalid ProjectionExpression: '\(word)' is not an attribute name (document paths are not supported)"
                )
            }
            do {
                result.insert(try attribute(String(word)))
            } catch {
                throw .validation("Invalid ProjectionExpression: \(error.message)")
            }
        }
        return result
    }

    /// DynamoDB refuses placeholders that no expression uses.
    func checkAllUsed() throws(DynamoDBError) {
        let unusedNames = Set(names.keys).subtracting(usedNames)
        if !unusedNames.isEmpty {
            throw .validation(
                "Value provided in ExpressionAttributeNames unused in expressions: keys: {\(unusedNames.sorted().joined(separator: ", "))}"
            )
        }
        let unusedValues = Set(values.keys).subtracting(usedValues)
        if !unusedValues.isEmpty {
            throw .validation(
                "Value provided in ExpressionAttributeValues unused in expressions: keys: {\(unusedValues.sorted().joined(separator: ", "))}"
            )
        }
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        var text = self
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }
}
