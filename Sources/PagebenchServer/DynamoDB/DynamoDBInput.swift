import PagebenchWire

/// The members of one DynamoDB request body, read by name with DynamoDB's types; every
/// member must be one the operation knows (W2: nothing is ignored).
struct DynamoDBInput {
    let operation: String
    private let members: [String: JSONValue]

    /// The body as a JSON object.
    init(operation: String, body: JSONValue, known: Set<String>, unsupported: [String: String]) throws(DynamoDBError) {
        guard case .object(let members) = body else {
            throw .validation("the \(operation) request body must be a JSON object")
        }
        // Sorted only when something is wrong, so that the first offender named is stable.
        if members.keys.contains(where: { unsupported[$0] != nil || !known.contains($0) }) {
            for name in members.keys.sorted() {
                if let advice = unsupported[name] {
                    throw .validation("\(name) is not supported by pagebench's DynamoDB endpoint; \(advice)")
                }
                if !known.contains(name) {
                    throw .validation("unknown parameter '\(name)' for \(operation)")
                }
            }
        }
        self.operation = operation
        self.members = members
    }

    func string(_ name: String) throws(DynamoDBError) -> String? {
        switch members[name] {
        case nil: return nil
        case .string(let text)?: return text
        default: throw .validation("\(name) must be a string")
        }
    }

    func bool(_ name: String) throws(DynamoDBError) -> Bool? {
        switch members[name] {
        case nil: return nil
        case .bool(let value)?: return value
        default: throw .validation("\(name) must be true or false")
        }
    }

    func integer(_ name: String) throws(DynamoDBError) -> Int? {
        switch members[name] {
        case nil: return nil
        case .number(let text)?:
            guard let value = Int(text) else { throw .validation("\(name) must be a whole number, got \(text)") }
            return value
        default: throw .validation("\(name) must be a number")
        }
    }

    /// A map of strings (`ExpressionAttributeNames`).
    func stringMap(_ name: String) throws(DynamoDBError) -> [String: String]? {
        switch members[name] {
        case nil: return nil
        case .object(let map)?:
            var result: [String: String] = [:]
            for (key, value) in map {
                guard case .string(let text) = value else { throw .validation("\(name).\(key) must be a string") }
                result[key] = text
            }
            return result
        default: throw .validation("\(name) must be a map of strings")
        }
    }

    /// A map of attribute values (`ExpressionAttributeValues`, `ExclusiveStartKey`, `Key`).
    func attributeMap(_ name: String) throws(DynamoDBError) -> [String: DynamoDBValue]? {
        switch members[name] {
        case nil: return nil
        case .object(let map)?:
            var result: [String: DynamoDBValue] = [:]
            for (key, value) in map { result[key] = try DynamoDBValue(value, at: "\(name).\(key)") }
            return result
        default: throw .validation("\(name) must be a map of attribute values")
        }
    }

    /// The table named by `TableName`, which must be the served one.
    func table(served: String) throws(DynamoDBError) {
        guard let name = try string("TableName") else { throw .validation("\(operation) needs a TableName") }
        guard name == served else {
            throw DynamoDBError(
                .resourceNotFound,
                "Requested resource not found: Table: \(name) not found (this server serves '\(served)')"
            )
        }
    }
}

/// One DynamoDB attribute value; pagebench reads numbers, strings and binaries.
enum DynamoDBValue: Sendable, Hashable {
    case number(String)
    case string(String)
    case other(String)

    init(_ json: JSONValue, at path: String) throws(DynamoDBError) {
        guard case .object(let typed) = json, typed.count == 1, let (type, value) = typed.first else {
            throw .validation("\(path) must be an attribute value with exactly one type, e.g. {\"N\": \"3\"}")
        }
        switch (type, value) {
        case ("N", .string(let text)): self = .number(text)
        case ("S", .string(let text)): self = .string(text)
        case ("N", _), ("S", _): throw .validation("\(path).\(type) must be a string")
        case ("B", _), ("BOOL", _), ("NULL", _), ("L", _), ("M", _), ("SS", _), ("NS", _), ("BS", _):
            self = .other(type)
        default: throw .validation("\(path) has unknown attribute value type '\(type)'")
        }
    }

    /// The value as a whole number, or an error naming `what`.
    func integer(_ what: String) throws(DynamoDBError) -> Int {
        switch self {
        case .number(let text):
            if let value = Int(text) { return value }
            throw .validation("\(what) is \(text); pagebench's attributes are whole numbers within 64 bits")
        case .string: throw .validation("\(what) is a string (S); the attribute is a number (N)")
        case .other(let type): throw .validation("\(what) is of type \(type); the attribute is a number (N)")
        }
    }
}
