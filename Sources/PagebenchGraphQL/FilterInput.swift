import GraphQL
import OrderedCollections
import PagebenchPage
import PagebenchStore

/// AppSync-style filter input objects (W6) as store filters:
/// `{category: {eq: 0}, sizeBytes: {ge: 1000}}` — the conditions of one object are ANDed —
/// with `and: [...]`, `or: [...]` and `not: {...}` as in AppSync's generated
/// `ModelFilterInput`. Operators of `ModelIntInput`: `eq`, `ne`, `lt`, `le`, `gt`, `ge`,
/// `between: [low, high]`.
enum FilterInput {
    struct Invalid: Error {
        let message: String
    }

    /// The fields of `ItemFilterInput` and `ModelIntInput` in the schema's order.
    static let filterFields = ["category", "sizeBytes", "and", "or", "not"]
    static let operatorFields = ["eq", "ne", "lt", "le", "gt", "ge", "between"]

    /// An input object's fields in the schema's order (GraphQLSwift's coercion order), unknown
    /// names last by name. The order of an input object's fields means nothing in GraphQL, but
    /// the filter's form is what a token is bound to (S18): one filter must have one form,
    /// whichever order a client wrote it in and whichever executor read it.
    static func inSchemaOrder(
        _ fields: OrderedDictionary<String, Map>,
        _ order: [String]
    ) -> [(key: String, value: Map)] {
        fields.sorted { a, b in
            let (i, j) = (order.firstIndex(of: a.key) ?? order.count, order.firstIndex(of: b.key) ?? order.count)
            return i != j ? i < j : a.key < b.key
        }
    }

    /// The filter of an argument value; nil for an absent or empty filter (no filter).
    static func filter(_ value: Map) throws(Invalid) -> Filter? {
        try expression(value, path: "filter").map(Filter.init)
    }

    static func expression(_ value: Map, path: String) throws(Invalid) -> FilterExpression? {
        if value.isNull || value.isUndefined { return nil }
        guard let fields = value.dictionary else { throw Invalid(message: "\(path) must be an input object") }
        var parts: [FilterExpression] = []
        for (name, field) in inSchemaOrder(fields, filterFields) where !(field.isNull || field.isUndefined) {
            let fieldPath = "\(path).\(name)"
            switch name {
            case "category": parts += try conditions(.category, field, path: fieldPath)
            case "sizeBytes": parts += try conditions(.sizeBytes, field, path: fieldPath)
            case "and", "or":
                guard let list = field.array, !list.isEmpty else {
                    throw Invalid(message: "\(fieldPath) must be a non-empty list")
                }
                var operands: [FilterExpression] = []
                for (index, element) in list.enumerated() {
                    guard let operand = try expression(element, path: "\(fieldPath)[\(index)]") else {
                        throw Invalid(message: "\(fieldPath)[\(index)] has no condition")
                    }
                    operands.append(operand)
                }
                parts.append(operands.dropFirst().reduce(operands[0]) { name == "and" ? .and($0, $1) : .or($0, $1) })
            case "not":
                guard let inner = try expression(field, path: fieldPath) else {
                    throw Invalid(message: "\(fieldPath) has no condition")
                }
                parts.append(.not(inner))
            default:
                throw Invalid(message: "\(fieldPath) is not a filter field")
            }
        }
        guard let first = parts.first else { return nil }
        return parts.dropFirst().reduce(first) { .and($0, $1) }
    }

    static func conditions(
        _ attribute: FilterAttribute,
        _ value: Map,
        path: String
    ) throws(Invalid) -> [FilterExpression] {
        guard let operators = value.dictionary else { throw Invalid(message: "\(path) must be an input object") }
        var result: [FilterExpression] = []
        for (name, operand) in inSchemaOrder(operators, operatorFields) where !(operand.isNull || operand.isUndefined) {
            if name == "between" {
                guard let bounds = operand.array, bounds.count == 2, let low = bounds[0].int, let high = bounds[1].int
                else {
                    throw Invalid(message: "\(path).between must be [low, high]")
                }
                result.append(.between(attribute, low, high))
                continue
            }
            let comparisons: [String: ComparisonOperator] = [
                "eq": .equal, "ne": .notEqual, "lt": .less, "le": .lessOrEqual, "gt": .greater, "ge": .greaterOrEqual,
            ]
            guard let comparison = comparisons[name] else {
                throw Invalid(message: "\(path).\(name) is not an operator")
            }
            guard let number = operand.int else { throw Invalid(message: "\(path).\(name) must be an integer") }
            result.append(.comparison(attribute, comparison, number))
        }
        return result
    }
}
