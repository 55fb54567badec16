import GraphQL

/// Where the fields an execution error's `path` names are written, read from the document
/// parsed with locations: the executed document has none (see ``DocumentText``), and an
/// error is located at every field merged into its response key, as GraphQLSwift locates it.
struct FieldLocations {
    let operation: OperationDefinition?
    let fragments: [String: FragmentDefinition]

    /// The operation `operationName` picks in `located` (the only one when nil).
    init(_ located: Document, operationName: String?) {
        var operation: OperationDefinition?
        var fragments: [String: FragmentDefinition] = [:]
        for definition in located.definitions {
            if let candidate = definition as? OperationDefinition,
                operationName == nil || candidate.name?.value == operationName
            {
                operation = operation == nil ? candidate : operation
            } else if let fragment = definition as? FragmentDefinition {
                fragments[fragment.name.value] = fragment
            }
        }
        self.operation = operation
        self.fragments = fragments
    }

    /// The start offsets of the fields at `path` (list indexes skipped).
    func starts(at path: IndexPath) -> [Int] {
        guard let operation else { return [] }
        var sets = [operation.selectionSet]
        var fields: [Field] = []
        for element in path.elements {
            guard case .key(let key) = element else { continue }
            fields = []
            for set in sets { collect(key, in: set, into: &fields, visited: []) }
            sets = fields.compactMap(\.selectionSet)
        }
        return fields.compactMap { $0.loc?.start }
    }

    /// The fields of response key `key` in `set`, through inline fragments and spreads.
    private func collect(_ key: String, in set: SelectionSet, into fields: inout [Field], visited: Set<String>) {
        for selection in set.selections {
            switch selection {
            case let field as Field:
                if (field.alias?.value ?? field.name.value) == key { fields.append(field) }
            case let inline as InlineFragment:
                collect(key, in: inline.selectionSet, into: &fields, visited: visited)
            case let spread as FragmentSpread:
                let name = spread.name.value
                guard !visited.contains(name), let fragment = fragments[name] else { continue }
                collect(key, in: fragment.selectionSet, into: &fields, visited: visited.union([name]))
            default:
                break
            }
        }
    }
}
