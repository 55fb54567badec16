import GraphQL
import PagebenchServer
import PagebenchWire
import Synchronization

/// Parsed and validated GraphQL documents by their text, as production GraphQL servers keep
/// them: a load test of the endpoint then measures the store and the execution, not the
/// parser and validator. A document that failed parsing, its bounds (W7) or validation is
/// cached with its errors; one whose CPU time ran out is not (the time is the request's,
/// not the document's). Bounded: at most ``capacity`` texts, of at most
/// ``maximumCachedBytes`` each (larger ones are prepared for their request only) and
/// ``maximumTotalBytes`` in all; when full it starts over. Its size is bounded by the text it
/// holds because a document's two parses hold tens of times their text (an object per
/// token and per node); the documents clients send are far smaller (the introspection query
/// is 1.2 KB).
final class DocumentCache: Sendable {
    static let capacity = 256
    static let maximumCachedBytes = 16 << 10
    static let maximumTotalBytes = 1 << 20

    private struct Contents {
        var entries: [String: Entry] = [:]
        var bytes = 0
    }

    /// A valid document: parsed without locations (validated and executed), and from
    /// ``DocumentText/flat`` with them (for positions), with its compiled form when it is a
    /// plain list query (``CompiledQuery``).
    struct Prepared: Sendable {
        let plain: Document
        let located: Document
        let compiled: CompiledQuery?
    }

    enum Entry: Sendable {
        case valid(Prepared)
        case invalid([GraphQLError])
    }

    private let contents = Mutex(Contents())
    /// Lookups answered from the cache, and documents parsed (for tests and statistics).
    let hits = Atomic<Int>(0)
    let misses = Atomic<Int>(0)

    /// `error` with `extensions.code` (the codes Apollo Server gives parse and validation errors).
    static func coded(_ error: GraphQLError, _ code: String) -> GraphQLError {
        var extensions = error.extensions
        extensions["code"] = .string(code)
        return GraphQLError(
            message: error.message,
            locations: error.locations,
            path: error.path,
            extensions: extensions
        )
    }

    /// The document of `query` against `schema`, checked against `bounds`, parsed,
    /// validated and compiled once; the work is charged to `budget`.
    func document(_ query: String, schema: GraphQLSchema, bounds: GraphQLBounds, budget: RequestCPUBudget) -> Entry {
        if let cached = contents.withLock({ $0.entries[query] }) {
            hits.add(1, ordering: .relaxed)
            return cached
        }
        misses.add(1, ordering: .relaxed)
        let entry: Entry
        do throws(Preparation.Stop) {
            entry = try Preparation(query: query, schema: schema, bounds: bounds, budget: budget).run()
        } catch {
            switch error {
            case .invalid(let errors):
                entry = .invalid(errors)
            case .outOfTime(let violation):
                return .invalid([violation.graphQLError])
            }
        }
        let bytes = query.utf8.count
        guard bytes <= Self.maximumCachedBytes else { return entry }
        contents.withLock { contents in
            if contents.entries.count >= Self.capacity || contents.bytes + bytes > Self.maximumTotalBytes {
                contents = Contents()
            }
            if contents.entries.updateValue(entry, forKey: query) == nil { contents.bytes += bytes }
        }
        return entry
    }

    /// The steps from a document's text to a valid document, each before the work it
    /// protects: tokens and nesting before the parser, the shape before validation.
    struct Preparation {
        let query: String
        let schema: GraphQLSchema
        let bounds: GraphQLBounds
        let budget: RequestCPUBudget

        enum Stop: Error {
            /// The document's answer: errors to cache.
            case invalid([GraphQLError])
            /// The request's CPU time ran out: not the document's fault, not cached.
            case outOfTime(BoundViolation)
        }

        func run() throws(Stop) -> Entry {
            let text = try scan()
            let located = try parse(text.flat, located: true, text: text)
            var shape = DocumentShape(bounds: bounds, text: text)
            do {
                try budget.charge("checking the document's shape") { _ throws(DocumentShape.Finding) in
                    try shape.check(located)
                }
            } catch {
                switch error {
                case .bound(let violation): throw .invalid([violation.graphQLError])
                case .invalid(let error): throw .invalid([error])
                }
            }
            if shape.hasNestedLiteral {
                let errors = budget.charge("checking value literals") { _ in
                    LiteralGuard.errors(located, schema: schema, text: text)
                }
                if !errors.isEmpty { throw .invalid(errors) }
            }
            try checkTime("checking the document")
            let plain = try parse(text.uncommented, located: false, text: text)
            let errors = try validate(plain)
            guard errors.isEmpty else { throw .invalid(try locate(errors, located: located, text: text)) }
            return .valid(
                Prepared(
                    plain: plain,
                    located: located,
                    compiled: CompiledQuery.compile(plain, located: located, text: text)
                )
            )
        }

        func checkTime(_ phase: String) throws(Stop) {
            if budget.isExhausted { throw .outOfTime(.cpu(budget, phase: phase)) }
        }

        /// Reads the tokens as GraphQLSwift's parser will (``DocumentLexer``): their number
        /// and the nesting of `{`, `[` and `(` are bounded before the parser, which recurses
        /// once per level, sees them; input on which GraphQLSwift's lexer traps is refused.
        func scan() throws(Stop) -> DocumentText {
            try budget.charge("reading the document") { phase throws(Stop) in
                var lexer = DocumentLexer(query)
                var tokens: [DocumentLexer.Token] = []
                var count = 0
                var depth = 0
                var errorOffset: Int?
                reading: while true {
                    switch lexer.next() {
                    case .token(let token):
                        tokens.append(token)
                        if token.kind == .comment { continue }
                        count += 1
                        if count > bounds.maximumTokens {
                            throw .invalid([BoundViolation.tokens(bounds, found: count).graphQLError])
                        }
                        switch token.kind {
                        case .openingBrace, .openingBracket, .openingParenthesis:
                            depth += 1
                            if depth > bounds.maximumDepth {
                                throw .invalid([
                                    BoundViolation.depth(
                                        bounds,
                                        "the document nests more than \(bounds.maximumDepth) levels of brackets"
                                    )
                                    .graphQLError
                                ])
                            }
                        case .closingBrace, .closingBracket, .closingParenthesis:
                            depth = max(0, depth - 1)
                        default:
                            break
                        }
                        if count % 4096 == 0, phase.isExhausted { throw .outOfTime(.cpu(budget, phase: phase.name)) }
                    case .end:
                        break reading
                    case .syntaxError(let offset):
                        // GraphQLSwift's parser stops at the same place, and says why.
                        errorOffset = offset
                        break reading
                    case .trap(let offset, let description):
                        let text = DocumentText(query, bytes: lexer.bytes, tokens: tokens, errorOffset: offset)
                        let location = text.locations(of: [offset])[0]
                        throw .invalid([
                            GraphQLError(
                                message:
                                    "Syntax Error GraphQL request (\(location.line):\(location.column)) Unterminated string: "
                                    + description + ".",
                                locations: [location],
                                extensions: ["code": "GRAPHQL_PARSE_FAILED"]
                            )
                        ])
                    }
                }
                return DocumentText(query, bytes: lexer.bytes, tokens: tokens, errorOffset: errorOffset)
            }
        }

        /// GraphQLSwift's parse of `body`, with locations or without; a syntax error is
        /// located on the text as sent.
        func parse(_ body: String, located: Bool, text: DocumentText) throws(Stop) -> Document {
            do {
                return try budget.charge("parsing") { _ in
                    try GraphQL.parse(source: Source(body: body, name: "GraphQL request"), noLocation: !located)
                }
            } catch let error as GraphQLError {
                throw .invalid([text.relocated(error, code: "GRAPHQL_PARSE_FAILED")])
            } catch {
                throw .invalid([
                    GraphQLError(
                        message: "the document could not be parsed: \(error)",
                        extensions: ["code": "GRAPHQL_PARSE_FAILED"]
                    )
                ])
            }
        }

        /// Validation errors (found on the document parsed without locations) with their
        /// locations: the located document is validated again when that is cheap (each error
        /// GraphQLSwift locates costs a pass over the text); otherwise they go without.
        func locate(_ errors: [GraphQLError], located: Document, text: DocumentText) throws(Stop) -> [GraphQLError] {
            let coded = { (error: GraphQLError) in DocumentCache.coded(error, "GRAPHQL_VALIDATION_FAILED") }
            guard errors.count * max(query.utf8.count, 1) <= Self.locatingBytes else { return errors.map(coded) }
            let locatedErrors = try validate(located)
            guard locatedErrors.count == errors.count else { return errors.map(coded) }
            return locatedErrors.map { text.relocated($0, code: "GRAPHQL_VALIDATION_FAILED") }
        }

        /// Errors × text bytes up to which validation errors are located (about 30 ns a byte).
        static let locatingBytes = 4 << 20

        /// GraphQLSwift's validation, each rule wrapped so that it stops at the next node once
        /// the request's CPU time has run out.
        func validate(_ document: Document) throws(Stop) -> [GraphQLError] {
            let stop = StopFlag()
            let errors = budget.charge("validation") { phase in
                GraphQL.validate(schema: schema, ast: document, rules: Self.rules(phase: phase, stop: stop))
            }
            if stop.isStopped { throw .outOfTime(.cpu(budget, phase: "validation")) }
            return errors
        }

        /// GraphQL's specified rules, each stopping (`.break`) at its next node once `stop`
        /// is set; every 32 nodes a rule reads the CPU clock and sets it when the time is up.
        static func rules(phase: RequestCPUBudget.Phase, stop: StopFlag) -> [@Sendable (ValidationContext) -> Visitor] {
            specifiedRules.map { rule in
                { @Sendable context in
                    let inner = rule(context)
                    var visits = 0
                    return Visitor(
                        enter: { node, key, parent, path, ancestors in
                            if stop.isStopped { return .break }
                            visits += 1
                            if visits % 32 == 0, phase.isExhausted {
                                stop.set()
                                return .break
                            }
                            return inner.enter(node: node, key: key, parent: parent, path: path, ancestors: ancestors)
                        },
                        leave: { node, key, parent, path, ancestors in
                            if stop.isStopped { return .break }
                            return inner.leave(node: node, key: key, parent: parent, path: path, ancestors: ancestors)
                        }
                    )
                }
            }
        }
    }

    /// Set once a request's validation has to stop.
    final class StopFlag: Sendable {
        private let stopped = Atomic<Bool>(false)
        var isStopped: Bool { stopped.load(ordering: .relaxed) }
        func set() { stopped.store(true, ordering: .relaxed) }
    }
}
