import GraphQL
import PagebenchServer
import PagebenchWire

/// Refuses an empty string where a variable's type wants an enum value, before
/// GraphQLSwift's executor sees it.
///
/// GraphQLSwift 4.3.0 answers an unknown enum value with "did you mean" suggestions, and its
/// edit-distance function traps on an empty string (`for i in 1...0`), so one request with
/// `"sortDirection": ""` in its variables would kill the server. Document names are never
/// empty (the lexer requires a letter or `_`), so variables are the only way in. The error
/// says what GraphQL would say of any other unknown value.
enum EmptyEnumValueGuard {
    /// A GraphQL error for the first empty enum value in `variables`, or nil.
    static func error(_ document: Document, variables: [String: Map], schema: GraphQLSchema) -> GraphQLError? {
        for case let operation as OperationDefinition in document.definitions {
            for definition in operation.variableDefinitions {
                guard let value = variables[definition.variable.name.value],
                    let path = emptyEnumValue(value, definition.type, schema: schema, depth: 0)
                else { continue }
                return GraphQLError(
                    message: "Variable \"$\(definition.variable.name.value)\" got invalid value \"\"\(path).\n"
                        + "Expected a value of an enum type, found an empty string.",
                    positions: definition.loc.map { [$0.start] } ?? []
                )
            }
        }
        return nil
    }

    /// Where in `value` an empty string stands for an enum value of `type` (`""` for the
    /// value itself, `" at [1].direction"` inside it), or nil.
    static func emptyEnumValue(_ value: Map, _ type: any Type, schema: GraphQLSchema, depth: Int) -> String? {
        guard depth < JSONValue.maximumDepth else { return nil }
        switch type {
        case let nonNull as NonNullType:
            return emptyEnumValue(value, nonNull.type, schema: schema, depth: depth)
        case let list as ListType:
            guard let elements = value.array else {
                return emptyEnumValue(value, list.type, schema: schema, depth: depth + 1)
            }
            for (index, element) in elements.enumerated() {
                if let inner = emptyEnumValue(element, list.type, schema: schema, depth: depth + 1) {
                    return " at [\(index)]\(inner)"
                }
            }
            return nil
        case let named as NamedType:
            return emptyEnumValue(value, schema.getType(name: named.name.value), schema: schema, depth: depth)
        default:
            return nil
        }
    }

    static func emptyEnumValue(_ value: Map, _ type: (any GraphQLType)?, schema: GraphQLSchema, depth: Int) -> String? {
        switch type {
        case is GraphQLEnumType:
            return value.string == "" ? "" : nil
        case let nonNull as GraphQLNonNull:
            return emptyEnumValue(value, nonNull.ofType, schema: schema, depth: depth)
        case let list as GraphQLList:
            for (index, element) in (value.array ?? [value]).enumerated() {
                if let inner = emptyEnumValue(element, list.ofType, schema: schema, depth: depth + 1) {
                    return " at [\(index)]\(inner)"
                }
            }
            return nil
        case let object as GraphQLInputObjectType:
            guard let members = value.dictionary, let fields = try? object.fields() else { return nil }
            for (name, member) in members {
                if let field = fields[name],
                    let inner = emptyEnumValue(member, field.type, schema: schema, depth: depth + 1)
                {
                    return " at .\(name)\(inner)"
                }
            }
            return nil
        default:
            return nil
        }
    }
}
