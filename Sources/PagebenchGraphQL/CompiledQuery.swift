import GraphQL
import NIOCore
import OrderedCollections
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire

/// A validated document that is one query of one list field (`listItems` or
/// `itemsConnection`) with plain selections, compiled once so that running it is one store
/// request through the same resolvers and one direct JSON write — the idea of graphql-jit.
/// GraphQLSwift's executor resolves every field of every item through an async closure,
/// dynamic casts and a `Map` tree, then encodes that tree with a Foundation-style encoder:
/// it cost ~8× the REST endpoint per page (results/protocols/graphql-wrk.md).
///
/// Anything outside the compiled subset — fragments, directives, several root fields,
/// variables of other types, a value GraphQL would have to coerce or reject — is run by
/// GraphQLSwift's executor instead, so answers and errors stay GraphQL's. Tests compare
/// the two paths' results on the same requests.
struct CompiledQuery: Sendable {
    enum Root: Sendable {
        case list
        case connection
    }

    /// A scalar a selection writes.
    enum Leaf: Sendable {
        case partition, sortKey, sizeBytes, category, fingerprint
        case nextToken, scannedCount
        case cursor
        case hasNextPage, hasPreviousPage, startCursor, endCursor
        case typename(String)
    }

    /// An object a selection descends into.
    enum Branch: Sendable {
        case items, edges, node, pageInfo
    }

    indirect enum Selection: Sendable {
        case leaf(key: String, Leaf)
        case branch(key: String, Branch, [Selection])
    }

    /// The variable types the compiled path reads itself.
    enum VariableType: String, Sendable {
        case int = "Int"
        case string = "String"
        case direction = "ModelSortDirection"
        case filter = "ItemFilterInput"
    }

    struct VariableDefinition: Sendable {
        let name: String
        let type: VariableType
        let nonNull: Bool
        let defaultValue: Map?
    }

    let operationName: String?
    let root: Root
    /// The root field's response key (its alias or name).
    let key: String
    let arguments: [(name: String, value: any Value)]
    let variables: [VariableDefinition]
    /// Variables used inside list or object literals: GraphQL coerces a missing one there
    /// in ways the compiled path does not copy, so a request without them is left to
    /// GraphQLSwift.
    let nestedVariables: Set<String>
    let selections: [Selection]
    /// Where the root field is, for errors.
    let locations: [SourceLocation]

    // MARK: Compiling

    /// The compiled form of `document`, or nil when it is outside the compiled subset;
    /// `located` is the same document parsed with locations (``DocumentText/flat``), where
    /// the root field's position is read, to locate it on `text`.
    static func compile(_ document: Document, located: Document, text: DocumentText) -> CompiledQuery? {
        guard document.definitions.count == 1, let operation = document.definitions.first as? OperationDefinition,
            operation.operation == .query, operation.directives.isEmpty,
            operation.selectionSet.selections.count == 1, let field = operation.selectionSet.selections.first as? Field,
            field.directives.isEmpty, let selectionSet = field.selectionSet
        else { return nil }
        let root: Root
        switch field.name.value {
        case "listItems": root = .list
        case "itemsConnection": root = .connection
        default: return nil
        }
        var variables: [VariableDefinition] = []
        for definition in operation.variableDefinitions {
            guard definition.directives.isEmpty else { return nil }
            var type = definition.type
            var nonNull = false
            if let wrapped = type as? NonNullType {
                nonNull = true
                type = wrapped.type
            }
            guard let named = type as? NamedType, let variableType = VariableType(rawValue: named.name.value) else {
                return nil
            }
            var defaultValue: Map?
            if let literal = definition.defaultValue {
                guard let value = try? valueFromASTUntyped(valueAST: literal) else { return nil }
                defaultValue = value
            }
            variables.append(
                VariableDefinition(
                    name: definition.variable.name.value,
                    type: variableType,
                    nonNull: nonNull,
                    defaultValue: defaultValue
                )
            )
        }
        guard let selections = compile(selectionSet, type: root == .list ? "ItemList" : "ItemConnection") else {
            return nil
        }
        var nested: Set<String> = []
        for argument in field.arguments where !(argument.value is Variable) {
            collectVariables(argument.value, into: &nested)
        }
        return CompiledQuery(
            operationName: operation.name?.value,
            root: root,
            key: field.alias?.value ?? field.name.value,
            arguments: field.arguments.map { ($0.name.value, $0.value) },
            variables: variables,
            nestedVariables: nested,
            selections: selections,
            locations: text.locations(of: rootFieldStart(located).map { [$0] } ?? [])
        )
    }

    /// Where the only operation's first selection starts in `located`.
    static func rootFieldStart(_ located: Document) -> Int? {
        ((located.definitions.first as? OperationDefinition)?.selectionSet.selections.first as? Field)?.loc?.start
    }

    /// The names of the variables `value` uses, at any depth.
    static func collectVariables(_ value: any Value, into names: inout Set<String>) {
        switch value {
        case let variable as Variable: names.insert(variable.name.value)
        case let list as ListValue: for element in list.values { collectVariables(element, into: &names) }
        case let object as ObjectValue: for field in object.fields { collectVariables(field.value, into: &names) }
        default: break
        }
    }

    /// The leaves and branches each object type offers.
    static let leaves: [String: [String: Leaf]] = [
        "Item": [
            "partition": .partition, "sortKey": .sortKey, "sizeBytes": .sizeBytes, "category": .category,
            "fingerprint": .fingerprint,
        ],
        "ItemList": ["nextToken": .nextToken, "scannedCount": .scannedCount],
        "ItemEdge": ["cursor": .cursor],
        "ItemConnection": [:],
        "PageInfo": [
            "hasNextPage": .hasNextPage, "hasPreviousPage": .hasPreviousPage, "startCursor": .startCursor,
            "endCursor": .endCursor,
        ],
    ]
    static let branches: [String: [String: (Branch, String)]] = [
        "ItemList": ["items": (.items, "Item")],
        "ItemConnection": ["edges": (.edges, "ItemEdge"), "pageInfo": (.pageInfo, "PageInfo")],
        "ItemEdge": ["node": (.node, "Item")],
    ]

    static func compile(_ selectionSet: SelectionSet, type: String) -> [Selection]? {
        var result: [Selection] = []
        var keys: Set<String> = []
        for selection in selectionSet.selections {
            guard let field = selection as? Field, field.arguments.isEmpty, field.directives.isEmpty else { return nil }
            let key = field.alias?.value ?? field.name.value
            guard keys.insert(key).inserted else { return nil }  // merged fields: GraphQLSwift's job
            let name = field.name.value
            if name == "__typename", field.selectionSet == nil {
                result.append(.leaf(key: key, .typename(type)))
            } else if let leaf = leaves[type]?[name], field.selectionSet == nil {
                result.append(.leaf(key: key, leaf))
            } else if let (branch, child) = branches[type]?[name], let inner = field.selectionSet,
                let compiled = compile(inner, type: child)
            {
                result.append(.branch(key: key, branch, compiled))
            } else {
                return nil
            }
        }
        return result
    }

    // MARK: Running

    /// The field's error, written as GraphQLSwift would write it.
    struct FieldError: Error {
        let message: String
        let code: String
    }

    /// Runs the query; nil when the request needs GraphQLSwift's executor (another operation
    /// name, a variable value GraphQL would coerce or reject). That is decided before the
    /// store is asked for anything: once it has been, the answer is this path's, errors
    /// included, so no request is ever paged twice.
    func run(operationName: String?, variables provided: [String: Map], context: ResolverContext) async -> ByteBuffer? {
        if let operationName, operationName != self.operationName { return nil }
        var values: [String: Map] = [:]
        for definition in variables {
            guard let value = provided[definition.name] ?? definition.defaultValue else {
                if definition.nonNull || nestedVariables.contains(definition.name) { return nil }
                continue
            }
            guard Self.isPlain(value, definition.type, nonNull: definition.nonNull) else { return nil }
            values[definition.name] = value
        }
        var arguments: OrderedDictionary<String, Map> = [:]
        for (name, literal) in self.arguments {
            guard let value = try? valueFromASTUntyped(valueAST: literal, variables: values) else { return nil }
            if !value.isUndefined { arguments[name] = value }
        }
        var json = JSONWriter(capacity: 2048)
        json.raw("{\"data\":{")
        json.string(key)
        json.raw(":")
        do throws(FieldError) {
            try await resolve(.dictionary(arguments), context: context, into: &json)
            json.raw("}}")
        } catch {
            json.raw("null},\"errors\":[{\"message\":")
            json.string(error.message)
            json.raw(",\"locations\":[")
            for (index, location) in locations.enumerated() {
                json.raw(index == 0 ? "{\"line\":" : ",{\"line\":")
                json.integer(location.line)
                json.raw(",\"column\":")
                json.integer(location.column)
                json.raw("}")
            }
            json.raw("],\"path\":[")
            json.string(key)
            json.raw("],\"extensions\":{\"code\":")
            json.string(error.code)
            json.raw("}}]}")
        }
        return json.buffer
    }

    /// Pages the store through the resolvers the schema uses and writes the root field's value.
    func resolve(_ arguments: Map, context: ResolverContext, into json: inout JSONWriter) async throws(FieldError) {
        let fail: StoreSchema.Failure = { message, code in FieldError(message: message, code: code) }
        do {
            switch root {
            case .list:
                write(list: try await StoreSchema.listItems(arguments, context, fail: fail), selections, into: &json)
            case .connection:
                write(
                    connection: try await StoreSchema.itemsConnection(arguments, context, fail: fail),
                    selections,
                    into: &json
                )
            }
        } catch let error as FieldError {
            throw error
        } catch {
            // The resolvers turn every store outcome into a FieldError; anything else is a
            // defect, answered as a field error as the generic path answers it.
            throw FieldError(message: "\(error)", code: "internalError")
        }
    }

    /// Whether GraphQL would take `value` for a variable of `type` as it is, without coercion
    /// or an error (those are left to GraphQLSwift).
    static func isPlain(_ value: Map, _ type: VariableType, nonNull: Bool) -> Bool {
        if value.isNull { return !nonNull }
        switch type {
        case .int: return exactInt(value) != nil
        case .string: return value.isString
        case .direction: return value.string == "ASC" || value.string == "DESC"
        case .filter: return isPlainFilter(value, depth: 0)
        }
    }

    /// An integer GraphQL's Int takes (32 bits), written as an integer.
    static func exactInt(_ value: Map) -> Int? {
        guard case .number(let number) = value, number.storageType == .int,
            let int = value.int, int >= Int(Int32.min), int <= Int(Int32.max)
        else { return nil }
        return int
    }

    /// A filter input object of known fields and exact integers.
    static func isPlainFilter(_ value: Map, depth: Int) -> Bool {
        guard depth < JSONValue.maximumDepth, let fields = value.dictionary else { return false }
        for (name, field) in fields {
            if field.isNull { continue }
            switch name {
            case "category", "sizeBytes":
                guard let operators = field.dictionary else { return false }
                for (op, operand) in operators where !operand.isNull {
                    switch op {
                    case "eq", "ne", "lt", "le", "gt", "ge":
                        guard exactInt(operand) != nil else { return false }
                    case "between":
                        guard let bounds = operand.array, bounds.allSatisfy({ exactInt($0) != nil }) else {
                            return false
                        }
                    default: return false
                    }
                }
            case "and", "or":
                guard let list = field.array, list.allSatisfy({ isPlainFilter($0, depth: depth + 1) }) else {
                    return false
                }
            case "not":
                guard isPlainFilter(field, depth: depth + 1) else { return false }
            default: return false
            }
        }
        return true
    }

    // MARK: Writing

    func write(list page: ItemList, _ selections: [Selection], into json: inout JSONWriter) {
        writeObject(selections, into: &json) { leaf, json in
            switch leaf {
            case .nextToken: Self.write(optional: page.nextToken, into: &json)
            case .scannedCount: json.integer(page.scannedCount)
            default: break
            }
        } branch: { branch, inner, json in
            writeItems(page.items, inner, into: &json)
        }
    }

    func write(connection page: ItemConnection, _ selections: [Selection], into json: inout JSONWriter) {
        writeObject(selections, into: &json) { _, _ in
        } branch: { branch, inner, json in
            switch branch {
            case .edges:
                json.raw("[")
                for (index, edge) in page.edges.enumerated() {
                    if index > 0 { json.raw(",") }
                    writeObject(inner, into: &json) { leaf, json in
                        Self.write(optional: edge.cursor, into: &json)
                    } branch: { _, itemSelections, json in
                        writeItem(edge.item, itemSelections, into: &json)
                    }
                }
                json.raw("]")
            default:
                writeObject(inner, into: &json) { leaf, json in
                    switch leaf {
                    case .hasNextPage: json.raw(page.hasNextPage ? "true" : "false")
                    case .hasPreviousPage: json.raw(page.hasPreviousPage ? "true" : "false")
                    case .startCursor: Self.write(optional: page.startCursor, into: &json)
                    default: Self.write(optional: page.endCursor, into: &json)
                    }
                } branch: { _, _, _ in
                }
            }
        }
    }

    func writeItems(_ items: [Item], _ selections: [Selection], into json: inout JSONWriter) {
        json.raw("[")
        for (index, item) in items.enumerated() {
            if index > 0 { json.raw(",") }
            writeItem(item, selections, into: &json)
        }
        json.raw("]")
    }

    func writeItem(_ item: Item, _ selections: [Selection], into json: inout JSONWriter) {
        writeObject(selections, into: &json) { leaf, json in
            switch leaf {
            case .partition: json.integer(item.partition)
            case .sortKey:
                json.raw("\"")
                json.unsigned(item.sortKey)
                json.raw("\"")
            case .sizeBytes: json.integer(item.sizeBytes)
            case .category: json.integer(item.storeAttributes.category)
            default: json.hex64(item.storeAttributes.fingerprint)
            }
        } branch: { _, _, _ in
        }
    }

    /// Writes `{"key": value, …}` for `selections`: typenames here, other leaves and
    /// branches by the closures.
    func writeObject(
        _ selections: [Selection],
        into json: inout JSONWriter,
        leaf: (Leaf, inout JSONWriter) -> Void,
        branch: (Branch, [Selection], inout JSONWriter) -> Void
    ) {
        json.raw("{")
        for (index, selection) in selections.enumerated() {
            if index > 0 { json.raw(",") }
            switch selection {
            case .leaf(let key, let kind):
                json.string(key)
                json.raw(":")
                if case .typename(let name) = kind { json.string(name) } else { leaf(kind, &json) }
            case .branch(let key, let kind, let inner):
                json.string(key)
                json.raw(":")
                branch(kind, inner, &json)
            }
        }
        json.raw("}")
    }

    static func write(optional text: String?, into json: inout JSONWriter) {
        if let text { json.string(text) } else { json.raw("null") }
    }
}
