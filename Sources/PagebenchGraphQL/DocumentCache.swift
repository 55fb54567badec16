import GraphQL
import Synchronization

/// Parsed and validated GraphQL documents by their text, as production GraphQL servers keep
/// them: a load test of the endpoint then measures the store and the execution, not the
/// parser and validator. A document that failed parsing or validation is cached with its
/// errors. Bounded: when full it starts over.
final class DocumentCache: Sendable {
    static let capacity = 256

    enum Entry: Sendable {
        /// A valid document, with its compiled form when it is a plain list query
        /// (``CompiledQuery``).
        case valid(Document, CompiledQuery?)
        case invalid([GraphQLError])
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// Lookups answered from the cache, and documents parsed (for tests and statistics).
    let hits = Atomic<Int>(0)
    let misses = Atomic<Int>(0)

    /// `error` with `extensions.code` (the codes Apollo Server gives parse and validation errors).
    static func coded(_ error: GraphQLError, _ code: String) -> GraphQLError {
        var extensions = error.extensions
        extensions["code"] = .string(code)
        return GraphQLError(message: error.message, locations: error.locations, path: error.path, extensions: extensions)
    }

    /// The document of `query` against `schema`, parsed, validated and compiled once.
    func document(_ query: String, schema: GraphQLSchema) -> Entry {
        if let cached = entries.withLock({ $0[query] }) {
            hits.add(1, ordering: .relaxed)
            return cached
        }
        misses.add(1, ordering: .relaxed)
        let entry: Entry
        do {
            let document = try parse(source: Source(body: query, name: "GraphQL request"))
            let errors = validate(schema: schema, ast: document)
            entry = errors.isEmpty ? .valid(document, CompiledQuery.compile(document)) : .invalid(errors.map { Self.coded($0, "GRAPHQL_VALIDATION_FAILED") })
        } catch let error as GraphQLError {
            entry = .invalid([Self.coded(error, "GRAPHQL_PARSE_FAILED")])
        } catch {
            entry = .invalid([GraphQLError(message: "the document could not be parsed: \(error)", extensions: ["code": "GRAPHQL_PARSE_FAILED"])])
        }
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[query] = entry
        }
        return entry
    }
}
