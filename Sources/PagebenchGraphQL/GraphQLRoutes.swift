import Foundation
public import GraphQL
public import Hummingbird
import NIOCore
import OrderedCollections
import Synchronization
public import PagebenchHTTP

/// GraphQL over HTTP on the served store (W6): `POST /graphql` with
/// `{"query", "variables", "operationName"}` (and `GET /graphql?query=…` for queries),
/// executing against ``StoreSchema`` with GraphQLSwift. Documents are parsed and validated
/// once per text (``DocumentCache``). Answers are `application/json` with status 200 for
/// every well-formed request, errors included, as GraphQL-over-HTTP specifies for that
/// media type; a body that is not a GraphQL request is a 400 with a GraphQL error list.
public struct GraphQLRoutes: StoreRouteRegistration {
    /// How valid documents are run.
    public enum Execution: String, Sendable, CaseIterable {
        /// Plain list queries by ``CompiledQuery`` (one store request, one direct JSON
        /// write); everything else by GraphQLSwift's executor. The default.
        case compiled
        /// Every document by GraphQLSwift's executor (to compare the two, or to rule the
        /// compiled path out).
        case generic
    }

    public let schema: GraphQLSchema
    public let execution: Execution
    let documents = DocumentCache()
    let executions = ExecutionCounts()
    static let maximumBodyBytes = 1 << 20
    static let headers: HTTPFields = [.contentType: "application/json"]

    public init(execution: Execution = .compiled) throws {
        schema = try StoreSchema.make()
        self.execution = execution
    }

    /// Valid documents run by the compiled path and by GraphQLSwift's executor.
    public var executionCounts: (compiled: Int, generic: Int) {
        (executions.compiled.load(ordering: .relaxed), executions.generic.load(ordering: .relaxed))
    }

    /// Documents answered from the parsed-document cache, and documents parsed.
    public var documentCacheCounts: (hits: Int, misses: Int) {
        (documents.hits.load(ordering: .relaxed), documents.misses.load(ordering: .relaxed))
    }

    public func register(on router: Router<StoreRequestContext>, server: StoreServer) {
        router.post("/graphql") { request, context in
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: Self.maximumBodyBytes)
            } catch {
                return Self.failure("the request body exceeds \(Self.maximumBodyBytes) bytes", status: .contentTooLarge)
            }
            let graphQLRequest: GraphQLRequest
            do throws(RequestError) {
                graphQLRequest = try Self.request(body)
            } catch {
                return Self.failure(error.message, status: .badRequest)
            }
            return await execute(graphQLRequest, server: server, context: context)
        }
        router.get("/graphql") { request, context in
            let parameters = request.uri.queryParameters
            guard let query = parameters["query"].map(String.init) else {
                return Self.failure("GET /graphql needs a 'query' parameter", status: .badRequest)
            }
            var variables: [String: Map] = [:]
            if let text = parameters["variables"] {
                do {
                    let json = try JSONValue.parse(String(text))
                    guard case .object(let members) = json else { throw RequestError("'variables' must be a JSON object") }
                    for (name, value) in members { variables[name] = try Self.map(value) }
                } catch {
                    return Self.failure("'variables' must be a JSON object: \(error)", status: .badRequest)
                }
            }
            let operation = parameters["operationName"].map(String.init)
            return await execute(
                GraphQLRequest(query: query, operationName: operation, variables: variables), server: server, context: context)
        }
    }

    func execute(_ request: GraphQLRequest, server: StoreServer, context: StoreRequestContext) async -> Response {
        let result: GraphQLResult
        let limit = NestingLimit.maximumDepth
        if NestingLimit.depth(ofDocument: request.query) > limit {
            result = GraphQLResult(errors: [
                GraphQLError(message: "the document nests deeper than \(limit) levels", extensions: ["code": "GRAPHQL_PARSE_FAILED"])
            ])
        } else if request.variables.values.contains(where: { NestingLimit.depth(of: $0) > limit }) {
            result = GraphQLResult(errors: [
                GraphQLError(message: "a variable nests deeper than \(limit) levels", extensions: ["code": "invalidParameter"])
            ])
        } else {
            switch documents.document(request.query, schema: schema) {
            case .invalid(let errors):
                result = GraphQLResult(errors: errors)
            case .valid(let document, let compiled):
                let resolverContext = ResolverContext(server: server, request: context)
                if execution == .compiled, let compiled,
                    let body = await compiled.run(
                        operationName: request.operationName, variables: request.variables, context: resolverContext)
                {
                    executions.compiled.add(1, ordering: .relaxed)
                    return Response(status: .ok, headers: Self.headers, body: .init(byteBuffer: body))
                }
                executions.generic.add(1, ordering: .relaxed)
                result = await execute(document, request, context: resolverContext)
            }
        }
        do {
            let data = try GraphQLJSONEncoder().encode(result)
            return Response(status: .ok, headers: Self.headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        } catch {
            return Self.failure("the result could not be encoded: \(error)", status: .internalServerError)
        }
    }

    /// Runs a valid document with GraphQLSwift's executor.
    func execute(_ document: Document, _ request: GraphQLRequest, context: ResolverContext) async -> GraphQLResult {
        if let error = EmptyEnumValueGuard.error(document, variables: request.variables, schema: schema) {
            return GraphQLResult(errors: [error])
        }
        do {
            return try await GraphQL.execute(
                schema: schema, documentAST: document, rootValue: (), context: context, variableValues: request.variables,
                operationName: request.operationName)
        } catch let error as GraphQLError {
            return GraphQLResult(errors: [error])
        } catch {
            return GraphQLResult(errors: [GraphQLError(message: "\(error)")])
        }
    }

    final class ExecutionCounts: Sendable {
        let compiled = Atomic<Int>(0)
        let generic = Atomic<Int>(0)
    }

    struct RequestError: Error, CustomStringConvertible {
        let message: String
        init(_ message: String) { self.message = message }
        var description: String { message }
    }

    /// The GraphQL request of a POST body, read with PagebenchHTTP's JSON reader, which bounds
    /// nesting: Foundation's decoder of GraphQLSwift's `Map` tries each type at every level
    /// and takes exponential time on a deeply nested `variables` value.
    static func request(_ body: ByteBuffer) throws(RequestError) -> GraphQLRequest {
        let usage = "the body must be a JSON object with a string 'query' (and optional 'variables', 'operationName')"
        let json: JSONValue
        do {
            json = try body.withUnsafeReadableBytes { bytes throws(JSONReadError) in try JSONValue.parse(bytes) }
        } catch {
            throw RequestError("\(usage): \(error)")
        }
        guard case .object(let members) = json, case .string(let query)? = members["query"] else { throw RequestError(usage) }
        var operationName: String?
        switch members["operationName"] {
        case nil, .null?: break
        case .string(let name)?: operationName = name
        default: throw RequestError("'operationName' must be a string")
        }
        var variables: [String: Map] = [:]
        switch members["variables"] {
        case nil, .null?: break
        case .object(let values)?:
            for (name, value) in values { variables[name] = try map(value) }
        default: throw RequestError("'variables' must be a JSON object")
        }
        if let unknown = members.keys.sorted().first(where: { !["query", "operationName", "variables", "extensions"].contains($0) }) {
            throw RequestError("unknown member '\(unknown)' in the request; \(usage)")
        }
        return GraphQLRequest(query: query, operationName: operationName, variables: variables)
    }

    /// A JSON value as GraphQLSwift's `Map` (JSONValue bounds the nesting already).
    static func map(_ value: JSONValue) throws(RequestError) -> Map {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .string(let text), .raw(let text): return .string(text)
        case .number(let text):
            if let integer = Int(text) { return .number(Number(integer)) }
            guard let real = Double(text) else { throw RequestError("'\(text)' is not a number") }
            return .number(Number(real))
        case .array(let elements):
            var result: [Map] = []
            for element in elements { result.append(try map(element)) }
            return .array(result)
        case .object(let members):
            var result: OrderedDictionary<String, Map> = [:]
            for key in members.keys.sorted() { result[key] = try map(members[key]!) }
            return .dictionary(result)
        }
    }

    /// A request that is not a GraphQL request: a GraphQL error list, with `status`.
    static func failure(_ message: String, status: HTTPResponse.Status) -> Response {
        let data = (try? GraphQLJSONEncoder().encode(GraphQLResult(errors: [GraphQLError(message: message)]))) ?? Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
