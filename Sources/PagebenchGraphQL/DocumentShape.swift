import GraphQL

/// A parsed document's shape, checked before GraphQLSwift validates it (W7).
///
/// Validation and execution cost grows with what is measured here, and some of it faster
/// than the document: GraphQLSwift 4.3.0 computes every error's line and column by
/// matching the whole document, so errors × document size is quadratic; its executor
/// collects a fragment's fields again at every spread, so fragments spreading each other
/// twice cost 2ⁿ. Counting selections with every spread expanded (memoised per fragment,
/// so the count itself stays linear) bounds the second; the token, definition and
/// directive bounds bound the first.
///
/// It also refuses, with GraphQL's own validation messages, the duplicates on which
/// GraphQLSwift 4.3.0 traps instead of answering: two operations of one name, or two
/// fragments of one name, are equal under its `Hashable` (structural `==`, identity
/// `hash`), and its validation keys dictionaries by them ("Duplicate keys of type
/// 'OperationDefinition'", SIGILL). Duplicate variables, arguments and input fields are
/// refused the same way: GraphQLSwift answers them with one error listing every duplicate,
/// each located by a pass over the whole document.
struct DocumentShape {
    let bounds: GraphQLBounds
    /// The text, to locate errors (the document is parsed from ``DocumentText/flat``).
    let text: DocumentText
    /// Whether some list or object literal holds another list or object: GraphQLSwift
    /// prints a misplaced one in its error message at a cost doubling per level, so such
    /// documents go through ``LiteralGuard`` before validation.
    private(set) var hasNestedLiteral = false
    private var directives = 0
    private var aliases = 0
    private var fragments: [String: FragmentDefinition] = [:]
    private var fragmentSummaries: [String: (selections: Int, depth: Int)] = [:]
    private var expanding: Set<String> = []

    /// Why the document must not be validated, or nil: a bound it exceeds, or a duplicate
    /// GraphQLSwift cannot be trusted with.
    enum Finding: Error {
        case bound(BoundViolation)
        case invalid(GraphQLError)
    }

    init(bounds: GraphQLBounds, text: DocumentText) {
        self.bounds = bounds
        self.text = text
    }

    /// Checks `document`; on success, ``hasNestedLiteral`` tells whether the literal guard
    /// has to run.
    mutating func check(_ document: Document) throws(Finding) {
        let definitions = document.definitions
        guard definitions.count <= bounds.maximumDefinitions else {
            throw .bound(.definitions(bounds, found: definitions.count))
        }
        try checkNames(definitions)
        var operations: [OperationDefinition] = []
        for definition in definitions {
            switch definition {
            case let operation as OperationDefinition:
                operations.append(operation)
                try count(operation.directives)
                try checkUnique(operation.variableDefinitions.map(\.variable.name), "variable", prefix: "$")
                for variable in operation.variableDefinitions {
                    try count(variable.directives)
                    if let value = variable.defaultValue { try literal(value) }
                }
                try walk(operation.selectionSet)
            case let fragment as FragmentDefinition:
                try count(fragment.directives)
                try walk(fragment.selectionSet)
            default:
                break  // ExecutableDefinitionsRule refuses type system definitions
            }
        }
        var selections = 0
        var depth = 0
        for operation in operations {
            let summary = expanded(operation.selectionSet)
            selections = Self.add(selections, summary.selections, cap: bounds.maximumSelections)
            depth = max(depth, summary.depth)
        }
        guard selections <= bounds.maximumSelections else { throw .bound(.selections(bounds, found: selections)) }
        guard depth <= bounds.maximumDepth else {
            throw .bound(.depth(bounds, "fields nest \(depth) deep with fragments expanded"))
        }
    }

    // MARK: Names

    /// Operation and fragment names (the definitions GraphQLSwift hashes).
    private mutating func checkNames(_ definitions: [any Definition]) throws(Finding) {
        var operationNames: [String: Name] = [:]
        var operations = 0
        var anonymous: OperationDefinition?
        for definition in definitions {
            if let operation = definition as? OperationDefinition {
                operations += 1
                if let name = operation.name {
                    if let known = operationNames[name.value] {
                        throw invalid("There can be only one operation named \"\(name.value)\".", known, name)
                    }
                    operationNames[name.value] = name
                } else if anonymous == nil {
                    anonymous = operation
                }
            } else if let fragment = definition as? FragmentDefinition {
                if let known = fragments[fragment.name.value] {
                    throw invalid(
                        "There can be only one fragment named \"\(fragment.name.value)\".",
                        known.name,
                        fragment.name
                    )
                }
                fragments[fragment.name.value] = fragment
            }
        }
        if let anonymous, operations > 1 {
            throw invalid("This anonymous operation must be the only defined operation.", anonymous)
        }
    }

    private func checkUnique(_ names: [Name], _ what: String, prefix: String = "") throws(Finding) {
        guard names.count > 1 else { return }
        var seen: [String: Name] = [:]
        for name in names {
            if let known = seen[name.value] {
                throw invalid("There can be only one \(what) named \"\(prefix)\(name.value)\".", known, name)
            }
            seen[name.value] = name
        }
    }

    /// GraphQL's validation error at `nodes`, located without GraphQLSwift's pass over the
    /// whole document per node.
    private func invalid(_ message: String, _ nodes: any Node...) -> Finding {
        let locations = text.locations(of: nodes.compactMap { $0.loc?.start })
        return .invalid(
            GraphQLError(message: message, locations: locations, extensions: ["code": "GRAPHQL_VALIDATION_FAILED"])
        )
    }

    // MARK: Selections, as written

    private mutating func count(_ directives: [Directive]) throws(Finding) {
        for directive in directives {
            self.directives += 1
            guard self.directives <= bounds.maximumDirectives else {
                throw .bound(.directives(bounds, found: self.directives))
            }
            try arguments(directive.arguments)
        }
    }

    private mutating func arguments(_ arguments: [Argument]) throws(Finding) {
        try checkUnique(arguments.map(\.name), "argument")
        for argument in arguments { try literal(argument.value) }
    }

    /// Every selection set once, as written: directives, aliases, arguments.
    private mutating func walk(_ selectionSet: SelectionSet) throws(Finding) {
        for selection in selectionSet.selections {
            switch selection {
            case let field as Field:
                if field.alias != nil {
                    aliases += 1
                    guard aliases <= bounds.maximumAliases else { throw .bound(.aliases(bounds, found: aliases)) }
                }
                try count(field.directives)
                try arguments(field.arguments)
                if let inner = field.selectionSet { try walk(inner) }
            case let fragment as InlineFragment:
                try count(fragment.directives)
                try walk(fragment.selectionSet)
            case let spread as FragmentSpread:
                try count(spread.directives)
            default:
                break
            }
        }
    }

    /// A value literal: unique input fields; notes nested lists and objects.
    private mutating func literal(_ value: any Value, compound: Bool = false) throws(Finding) {
        switch value {
        case let list as ListValue:
            if compound { hasNestedLiteral = true }
            for element in list.values { try literal(element, compound: true) }
        case let object as ObjectValue:
            if compound { hasNestedLiteral = true }
            try checkUnique(object.fields.map(\.name), "input field")
            for field in object.fields { try literal(field.value, compound: true) }
        default:
            break
        }
    }

    // MARK: Selections, as executed

    /// Selections and field depth of `selectionSet` with every fragment spread expanded,
    /// counts capped just past the bound. A fragment is summarised once; a cycle counts as
    /// empty (NoFragmentCyclesRule refuses it).
    private mutating func expanded(_ selectionSet: SelectionSet) -> (selections: Int, depth: Int) {
        var selections = 0
        var depth = 0
        let cap = bounds.maximumSelections
        for selection in selectionSet.selections {
            selections = Self.add(selections, 1, cap: cap)
            switch selection {
            case let field as Field:
                var fieldDepth = 1
                if let inner = field.selectionSet {
                    let summary = expanded(inner)
                    selections = Self.add(selections, summary.selections, cap: cap)
                    fieldDepth += summary.depth
                }
                depth = max(depth, fieldDepth)
            case let fragment as InlineFragment:
                let summary = expanded(fragment.selectionSet)
                selections = Self.add(selections, summary.selections, cap: cap)
                depth = max(depth, summary.depth)
            case let spread as FragmentSpread:
                let summary = fragmentSummary(spread.name.value)
                selections = Self.add(selections, summary.selections, cap: cap)
                depth = max(depth, summary.depth)
            default:
                break
            }
        }
        return (selections, depth)
    }

    private mutating func fragmentSummary(_ name: String) -> (selections: Int, depth: Int) {
        if let known = fragmentSummaries[name] { return known }
        guard let fragment = fragments[name], expanding.insert(name).inserted else { return (0, 0) }
        let summary = expanded(fragment.selectionSet)
        expanding.remove(name)
        fragmentSummaries[name] = summary
        return summary
    }

    /// `a + b`, but never past `cap + 1`: counting stops once a bound is exceeded.
    static func add(_ a: Int, _ b: Int, cap: Int) -> Int {
        min(a + b, cap + 1)
    }
}
