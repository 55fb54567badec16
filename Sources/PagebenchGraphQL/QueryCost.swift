import GraphQL

/// The cost of an operation before it runs (W7, ``GraphQLBounds/maximumCost``): an upper
/// bound on the values GraphQLSwift's executor will resolve, each of which is a task, a
/// `Map` and a piece of the response.
///
/// Every field costs 1, plus what it selects. A list costs 1 plus, for each element it can
/// hold, 1 and what the element selects; how many it can hold is
/// - for `items` and `edges`, the page's: the `limit` (`first`, `last`) the request asked
///   for, read from the literal or the variables (absent: the store's default limit;
///   unreadable: the most a page can hold), never more than the store's budget lets a page
///   evaluate (scan budget ÷ smallest item size, plus one);
/// - for introspection (`__schema`, `__type`), exactly what the schema holds: the selection
///   is walked over the schema's own types, fields and arguments, as the executor would.
///
/// `{ listItems(limit: 1000) { items { partition sortKey } nextToken } }` costs
/// 1 + (1 + 1000 × (1 + 2)) + 1 = 3,003. `@skip`/`@include` are not evaluated (a bound
/// need not be tight), and fragments are counted where they are spread.
struct QueryCost: Sendable {
    /// A type as a field or argument refers to it.
    indirect enum TypeRef: Sendable {
        case named(String)
        case list(TypeRef)
        case nonNull(TypeRef)

        init(_ type: any GraphQLType) {
            if let nonNull = type as? GraphQLNonNull {
                self = .nonNull(TypeRef(nonNull.ofType))
            } else if let list = type as? GraphQLList {
                self = .list(TypeRef(list.ofType))
            } else {
                self = .named((type as? any GraphQLNamedType)?.name ?? "")
            }
        }

        /// The named type, and how many lists wrap it.
        var shape: (type: String, lists: Int) {
            switch self {
            case .named(let name): (name, 0)
            case .list(let inner): (inner.shape.type, inner.shape.lists + 1)
            case .nonNull(let inner): inner.shape
            }
        }
    }

    /// A field as introspection shows it.
    struct FieldEntry: Sendable {
        let name: String
        let type: TypeRef
        let arguments: [TypeRef]
    }

    /// What introspection shows of a named type.
    struct TypeEntry: Sendable {
        var fields: [FieldEntry] = []
        var inputFields: [TypeRef] = []
        var enumValues = 0
        var interfaces: [String] = []
        var possibleTypes: [String] = []
    }

    /// Every named type, in the schema's order.
    let typeNames: [String]
    let types: [String: TypeEntry]
    /// Field types by type name and field name.
    let fieldTypes: [String: [String: TypeRef]]
    /// The directives: their arguments' types and their number of locations.
    let directives: [(arguments: [TypeRef], locations: Int)]
    let queryType: String

    init(schema: GraphQLSchema) {
        var names: [String] = []
        var types: [String: TypeEntry] = [:]
        func fields(_ map: GraphQLFieldMap?) -> [FieldEntry] {
            (map ?? [:]).map { name, field in
                FieldEntry(name: name, type: TypeRef(field.type), arguments: field.args.values.map { TypeRef($0.type) })
            }
        }
        for (name, type) in schema.typeMap {
            var entry = TypeEntry()
            switch type {
            case let object as GraphQLObjectType:
                entry.fields = fields(try? object.fields())
                entry.interfaces = ((try? object.interfaces()) ?? []).map(\.name)
            case let interface as GraphQLInterfaceType:
                entry.fields = fields(try? interface.fields())
                entry.interfaces = ((try? interface.interfaces()) ?? []).map(\.name)
                entry.possibleTypes = schema.getPossibleTypes(abstractType: interface).map(\.name)
            case let union as GraphQLUnionType:
                entry.possibleTypes = schema.getPossibleTypes(abstractType: union).map(\.name)
            case let enumType as GraphQLEnumType:
                entry.enumValues = enumType.values.count
            case let input as GraphQLInputObjectType:
                entry.inputFields = ((try? input.fields()) ?? [:]).values.map { TypeRef($0.type) }
            default:
                break
            }
            names.append(name)
            types[name] = entry
        }
        typeNames = names
        self.types = types
        var fieldTypes: [String: [String: TypeRef]] = [:]
        for (name, entry) in types {
            fieldTypes[name] = Dictionary(
                entry.fields.map { ($0.name, $0.type) },
                uniquingKeysWith: { first, _ in first }
            )
        }
        let query = schema.queryType?.name ?? "Query"
        fieldTypes[query, default: [:]]["__schema"] = .nonNull(.named("__Schema"))
        fieldTypes[query, default: [:]]["__type"] = .named("__Type")
        self.fieldTypes = fieldTypes
        directives = schema.directives.map { ($0.args.map { TypeRef($0.type) }, $0.locations.count) }
        queryType = query
    }

    /// What a request runs against: the store's page limits and the request's variables.
    struct Context {
        let fragments: [String: FragmentDefinition]
        let variables: [String: Map]
        let variableDefinitions: [String: VariableDefinition]
        /// The most items one page can hold.
        let maximumPageItems: Int
        let defaultLimit: Int
        /// Counting stops past this.
        let cap: Int

        /// `a + b`, never past `cap + 1`.
        func add(_ a: Int, _ b: Int) -> Int { min(a + b, cap + 1) }

        /// `a × b`, never past `cap + 1`.
        func multiply(_ a: Int, _ b: Int) -> Int {
            let (product, overflow) = a.multipliedReportingOverflow(by: b)
            return overflow ? cap + 1 : min(product, cap + 1)
        }
    }

    /// The cost of the operation `operationName` picks in `document` (nil when execution
    /// would refuse the choice), counted up to just past `cap`.
    func cost(
        of document: Document,
        operationName: String?,
        variables: [String: Map],
        maximumPageItems: Int,
        defaultLimit: Int,
        cap: Int
    ) -> Int? {
        var operation: OperationDefinition?
        var fragments: [String: FragmentDefinition] = [:]
        for definition in document.definitions {
            if let candidate = definition as? OperationDefinition {
                if operationName == nil || candidate.name?.value == operationName {
                    if operation != nil, operationName == nil { return nil }
                    operation = candidate
                }
            } else if let fragment = definition as? FragmentDefinition {
                fragments[fragment.name.value] = fragment
            }
        }
        guard let operation else { return nil }
        var definitions: [String: VariableDefinition] = [:]
        for definition in operation.variableDefinitions { definitions[definition.variable.name.value] = definition }
        let context = Context(
            fragments: fragments,
            variables: variables,
            variableDefinitions: definitions,
            maximumPageItems: maximumPageItems,
            defaultLimit: defaultLimit,
            cap: cap
        )
        return cost(operation.selectionSet, on: .object(queryType, pageItems: 0), context)
    }

    /// What a selection set is selected on.
    enum Parent {
        /// An object of the schema's own types; `pageItems` is the enclosing page's size.
        case object(String, pageItems: Int)
        case schema
        /// A `__Type`: the type it describes.
        case type(TypeRef)
        /// A `__Field`.
        case field(FieldEntry)
        /// An `__InputValue` of this type.
        case inputValue(TypeRef)
        case enumValue
        /// A `__Directive`, by its index.
        case directive(Int)
    }

    func cost(_ selectionSet: SelectionSet, on parent: Parent, _ context: Context) -> Int {
        var total = 0
        for selection in selectionSet.selections {
            switch selection {
            case let field as Field:
                total = context.add(total, cost(field, on: parent, context))
            case let fragment as InlineFragment:
                total = context.add(total, cost(fragment.selectionSet, on: parent, context))
            case let spread as FragmentSpread:
                guard let fragment = context.fragments[spread.name.value] else { continue }
                total = context.add(total, cost(fragment.selectionSet, on: parent, context))
            default:
                break
            }
            if total > context.cap { return total }
        }
        return total
    }

    func cost(_ field: Field, on parent: Parent, _ context: Context) -> Int {
        let name = field.name.value
        /// A list of `elements`: 1, and 1 plus its selection for each.
        func list(_ elements: [Parent]) -> Int {
            var total = 1
            for element in elements {
                total = context.add(
                    total,
                    context.add(1, field.selectionSet.map { cost($0, on: element, context) } ?? 0)
                )
                if total > context.cap { break }
            }
            return total
        }
        /// One object (nil: null).
        func object(_ element: Parent?) -> Int {
            guard let element, let inner = field.selectionSet else { return 1 }
            return context.add(1, cost(inner, on: element, context))
        }
        if name == "__typename" { return 1 }
        switch parent {
        case .object(let type, let pageItems):
            if type == queryType, name == "__schema" { return object(.schema) }
            if type == queryType, name == "__type" { return object(described(field, context).map { .type($0) }) }
            guard let reference = fieldTypes[type]?[name] else { return 1 }  // validation refused it
            let shape = reference.shape
            var items = pageItems
            if type == queryType, name == "listItems" || name == "itemsConnection" {
                items = self.pageItems(field, context)
            }
            var value = 1
            if let inner = field.selectionSet {
                value = context.add(1, cost(inner, on: .object(shape.type, pageItems: items), context))
            }
            for _ in 0..<shape.lists {
                // Lists outside introspection are pages: `items`, `edges`.
                value = context.add(1, context.multiply(items, value))
            }
            return value
        case .schema:
            switch name {
            case "types": return list(typeNames.map { .type(.named($0)) })
            case "queryType": return object(.type(.named(queryType)))
            case "directives": return list(directives.indices.map { .directive($0) })
            default: return 1  // description, mutationType and subscriptionType (null)
            }
        case .type(let reference):
            guard case .named(let typeName) = reference else {
                // A list or non-null wrapper: only `ofType` has something to select.
                switch (name, reference) {
                case ("ofType", .list(let inner)), ("ofType", .nonNull(let inner)): return object(.type(inner))
                default: return 1
                }
            }
            let entry = types[typeName] ?? TypeEntry()
            switch name {
            case "fields": return list(entry.fields.map { .field($0) })
            case "interfaces": return list(entry.interfaces.map { .type(.named($0)) })
            case "possibleTypes": return list(entry.possibleTypes.map { .type(.named($0)) })
            case "enumValues": return list(Array(repeating: .enumValue, count: entry.enumValues))
            case "inputFields": return list(entry.inputFields.map { .inputValue($0) })
            default: return 1
            }
        case .field(let entry):
            switch name {
            case "args": return list(entry.arguments.map { .inputValue($0) })
            case "type": return object(.type(entry.type))
            default: return 1
            }
        case .inputValue(let reference):
            return name == "type" ? object(.type(reference)) : 1
        case .enumValue:
            return 1
        case .directive(let index):
            switch name {
            case "args": return list(directives[index].arguments.map { .inputValue($0) })
            case "locations": return context.add(1, directives[index].locations)
            default: return 1
            }
        }
    }

    /// The type `__type(name:)` describes; nil when it names none. When the name cannot be
    /// read, the type whose description costs most stands for it.
    func described(_ field: Field, _ context: Context) -> TypeRef? {
        let argument = field.arguments.first { $0.name.value == "name" }?.value
        var name: String?
        switch argument {
        case let literal as StringValue: name = literal.value
        case let variable as Variable: name = context.variables[variable.name.value]?.string
        default: break
        }
        if let name { return types[name] == nil ? nil : .named(name) }
        guard let inner = field.selectionSet else { return nil }
        return typeNames.max {
            cost(inner, on: .type(.named($0)), context) < cost(inner, on: .type(.named($1)), context)
        }
        .map { .named($0) }
    }

    /// How many items the page of a `listItems` or `itemsConnection` field can hold.
    func pageItems(_ field: Field, _ context: Context) -> Int {
        let names = field.name.value == "listItems" ? ["limit"] : ["first", "last"]
        var requested: Int?
        for argument in field.arguments where names.contains(argument.name.value) {
            guard let value = integer(argument.value, context) else { return context.maximumPageItems }
            requested = max(requested ?? 0, value)
        }
        return min(max(requested ?? context.defaultLimit, 0), context.maximumPageItems)
    }

    /// An Int argument's value as execution will see it: nil when it cannot be told (then
    /// the most a page holds is assumed); the default limit for null.
    func integer(_ value: any Value, _ context: Context) -> Int? {
        switch value {
        case let literal as IntValue:
            return Int(literal.value)
        case is NullValue:
            return context.defaultLimit
        case let variable as Variable:
            let name = variable.name.value
            if let provided = context.variables[name] {
                switch provided {
                case .null, .undefined: return context.defaultLimit
                case .number(let number):
                    // GraphQLSwift's Int takes any finite number in range; the resolver
                    // then truncates it.
                    let real = number.doubleValue
                    return real.isFinite && abs(real) < 1e15 ? Int(real.rounded(.up)) : nil
                default: return nil
                }
            }
            guard let fallback = context.variableDefinitions[name]?.defaultValue else { return context.defaultLimit }
            return integer(fallback, context)
        default:
            return nil
        }
    }
}
