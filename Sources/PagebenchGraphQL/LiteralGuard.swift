import GraphQL

/// Refuses a nested list or object literal where its argument's type wants a scalar, an enum
/// or an input object, before GraphQLSwift's validation prints it.
///
/// GraphQLSwift 4.3.0's `ValuesOfCorrectTypeRule` puts the literal in its error message
/// with `print(ast:)`, which prints a list or object a second time whenever its one-line
/// form is longer than 80 characters: the cost doubles with every level, and a 180-byte
/// request of 62 nested lists cost two minutes of CPU. This runs first, as a validation
/// rule of its own (so that it sees the types GraphQLSwift's rule would see), and answers
/// with the same message, the literal printed once and cut short. Literals that hold no
/// list or object print in linear time and are left to GraphQLSwift.
enum LiteralGuard {
    /// GraphQL errors for the misplaced nested literals of `document` (parsed from
    /// `text.flat`), located on `text`, or none.
    static func errors(_ document: Document, schema: GraphQLSchema, text: DocumentText) -> [GraphQLError] {
        validate(schema: schema, ast: document, rules: [rule]).map { error in
            GraphQLError(
                message: error.message,
                locations: text.locations(of: error.positions),
                extensions: ["code": "GRAPHQL_VALIDATION_FAILED"]
            )
        }
    }

    @Sendable static func rule(_ context: ValidationContext) -> Visitor {
        Visitor(enter: { node, _, _, _, _ in
            switch node {
            case let list as ListValue:
                guard let parent = context.parentInputType, !(nullable(parent) is GraphQLList),
                    let type = context.inputType, list.values.contains(where: isCompound)
                else { return .continue }
                context.report(error: error(list, type))
                return .skip
            case let object as ObjectValue:
                guard let type = context.inputType, !(named(type) is GraphQLInputObjectType),
                    object.fields.contains(where: { isCompound($0.value) })
                else { return .continue }
                context.report(error: error(object, type))
                return .skip
            default:
                return .continue
            }
        })
    }

    static func isCompound(_ value: any Value) -> Bool {
        value is ListValue || value is ObjectValue
    }

    static func nullable(_ type: any GraphQLType) -> any GraphQLType {
        (type as? GraphQLNonNull)?.ofType ?? type
    }

    static func named(_ type: any GraphQLType) -> any GraphQLType {
        var type = type
        while true {
            if let nonNull = type as? GraphQLNonNull {
                type = nonNull.ofType
            } else if let list = type as? GraphQLList {
                type = list.ofType
            } else {
                return type
            }
        }
    }

    /// The error at `value`: its position only (GraphQLSwift would locate it with a pass over
    /// the document; ``errors(_:schema:text:)`` locates them all at once).
    static func error(_ value: any Value, _ type: any GraphQLType) -> GraphQLError {
        GraphQLError(
            message: "Expected value of type \"\(type)\", found \(Text(limit: 200).text(of: value)).",
            positions: value.loc.map { [$0.start] } ?? []
        )
    }
}

extension LiteralGuard {
    /// A value literal on one line, cut short after `limit` characters (GraphQLSwift's
    /// printer is exponential on nested literals).
    struct Text {
        let limit: Int
        private var output = ""

        init(limit: Int) {
            self.limit = limit
        }

        func text(of value: any Value) -> String {
            var copy = self
            copy.write(value)
            return copy.output.utf8.count > limit ? String(copy.output.prefix(limit)) + "…" : copy.output
        }

        private mutating func write(_ value: any Value) {
            guard output.utf8.count <= limit else { return }
            switch value {
            case let list as ListValue:
                output += "["
                for (index, element) in list.values.enumerated() {
                    if index > 0 { output += ", " }
                    write(element)
                    if output.utf8.count > limit { return }
                }
                output += "]"
            case let object as ObjectValue:
                output += "{"
                for (index, field) in object.fields.enumerated() {
                    output += (index > 0 ? ", " : "") + field.name.value + ": "
                    write(field.value)
                    if output.utf8.count > limit { return }
                }
                output += "}"
            case let string as StringValue:
                output += "\"" + string.value.prefix(limit) + "\""
            case let variable as Variable:
                output += "$" + variable.name.value
            case let int as IntValue:
                output += int.value.prefix(limit)
            case let float as FloatValue:
                output += float.value.prefix(limit)
            case let boolean as BooleanValue:
                output += boolean.value ? "true" : "false"
            case let enumValue as EnumValue:
                output += enumValue.value
            default:
                output += "null"
            }
        }
    }
}
