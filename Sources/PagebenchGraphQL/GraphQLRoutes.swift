import Foundation
import GraphQL
import HTTPTypes
import HummingbirdCore
import NIOCore
import OrderedCollections
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Synchronization

/// GraphQL over HTTP on the served store (W6): `POST /graphql` with
/// `{"query", "variables", "operationName"}` (and `GET /graphql?query=…` for queries),
/// executing against ``StoreSchema`` with GraphQLSwift. Documents are parsed and validated
/// once per text (``DocumentCache``). Answers are `application/json` with status 200 for
/// every well-formed request, errors included, as GraphQL-over-HTTP specifies for that
/// media type; a body that is not a GraphQL request is a 400 with a GraphQL error list.
package struct GraphQLRoutes: StoreRouteRegistration {
    /// How valid documents are run.
    package enum Execution: String, Sendable, CaseIterable {
        /// Plain list queries by ``CompiledQuery`` (one store request, one direct JSON
        /// write); everything else by GraphQLSwift's executor. The default.
        case compiled
        /// Every document by GraphQLSwift's executor (to compare the two, or to rule the
        /// compiled path out).
        case generic
    }

    package let schema: GraphQLSchema
    package let execution: Execution
    /// What a GraphQL request may ask of the server (W7), on top of the server's
    /// ``PagebenchServer/RequestBounds``.
    package let bounds: GraphQLBounds
    let cost: QueryCost
    let documents = DocumentCache()
    let executions = ExecutionCounts()
    static let headers: HTTPFields = [.contentType: "application/json"]

    package init(execution: Execution = .compiled, bounds: GraphQLBounds = GraphQLBounds()) throws {
        schema = try StoreSchema.make()
        self.execution = execution
        self.bounds = bounds
        cost = QueryCost(schema: schema)
    }

    /// Valid documents run by the compiled path and by GraphQLSwift's executor.
    package var executionCounts: (compiled: Int, generic: Int) {
        (executions.compiled.load(ordering: .relaxed), executions.generic.load(ordering: .relaxed))
    }

    /// Documents answered from the parsed-document cache, and documents parsed.
    package var documentCacheCounts: (hits: Int, misses: Int) {
        (documents.hits.load(ordering: .relaxed), documents.misses.load(ordering: .relaxed))
    }

    package func register(on router: inout StoreRouter, server: StoreServer) {
        router.post("/graphql") { request, context in
            let limits = server.configuration.bounds
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: limits.maximumBodyBytes)
            } catch {
                return Self.failure(
                    "the request body exceeds \(limits.maximumBodyBytes) bytes (serve --max-body-bytes)",
                    status: .contentTooLarge
                )
            }
            let budget = RequestCPUBudget(limit: limits.maximumCPUTime)
            let graphQLRequest: GraphQLRequest
            do throws(RequestError) {
                graphQLRequest = try budget.charge("reading the request") { _ throws(RequestError) in
                    try Self.request(body)
                }
            } catch {
                return Self.failure(error.message, status: .badRequest)
            }
            return await execute(graphQLRequest, server: server, context: context, budget: budget)
        }
        router.get("/graphql") { request, context in
            let parameters = request.uri.queryParameters
            guard let query = parameters["query"].map(String.init) else {
                return Self.failure("GET /graphql needs a 'query' parameter", status: .badRequest)
            }
            let budget = RequestCPUBudget(limit: server.configuration.bounds.maximumCPUTime)
            var variables: [String: Map] = [:]
            if let text = parameters["variables"] {
                do {
                    try budget.charge("reading the request") { _ in
                        let json = try JSONValue.parse(String(text))
                        guard case .object(let members) = json else {
                            throw RequestError("'variables' must be a JSON object")
                        }
                        for (name, value) in members { variables[name] = try Self.map(value) }
                    }
                } catch {
                    return Self.failure("'variables' must be a JSON object: \(error)", status: .badRequest)
                }
            }
            let operation = parameters["operationName"].map(String.init)
            return await execute(
                GraphQLRequest(query: query, operationName: operation, variables: variables),
                server: server,
                context: context,
                budget: budget
            )
        }
    }

    func execute(
        _ request: GraphQLRequest,
        server: StoreServer,
        context: StoreRequestContext,
        budget: RequestCPUBudget
    ) async -> Response {
        let result: GraphQLResult
        if let deep = request.variables.keys.sorted().first(where: {
            Self.depth(of: request.variables[$0] ?? .null, limit: bounds.maximumDepth + 1) > bounds.maximumDepth
        }) {
            result = GraphQLResult(errors: [
                BoundViolation.depth(
                    bounds,
                    "variable $\(deep) nests more than \(bounds.maximumDepth) levels of lists and objects"
                )
                .graphQLError
            ])
        } else {
            switch documents.document(request.query, schema: schema, bounds: bounds, budget: budget) {
            case .invalid(let errors):
                result = GraphQLResult(errors: errors)
            case .valid(let prepared):
                if let violation = costViolation(prepared.plain, request, store: server.store, budget: budget) {
                    result = GraphQLResult(errors: [violation.graphQLError])
                    break
                }
                let resolverContext = ResolverContext(server: server, request: context)
                if execution == .compiled, let compiled = prepared.compiled,
                    let body = await compiled.run(
                        operationName: request.operationName,
                        variables: request.variables,
                        context: resolverContext
                    )
                {
                    executions.compiled.add(1, ordering: .relaxed)
                    return respond(body, server: server)
                }
                executions.generic.add(1, ordering: .relaxed)
                result = await execute(prepared, request, context: resolverContext)
            }
        }
        do {
            let data = try GraphQLJSONEncoder().encode(result)
            return respond(ByteBuffer(bytes: data), server: server)
        } catch {
            return Self.failure("the result could not be encoded: \(error)", status: .internalServerError)
        }
    }

    /// The operation's cost (``QueryCost``) over the bound, or nil.
    func costViolation(
        _ document: Document,
        _ request: GraphQLRequest,
        store: SyntheticStore,
        budget: RequestCPUBudget
    ) -> BoundViolation? {
        let configuration = store.configuration
        let found = budget.charge("costing the operation") { _ in
            cost.cost(
                of: document,
                operationName: request.operationName,
                variables: request.variables,
                maximumPageItems: Self.maximumPageItems(configuration),
                defaultLimit: configuration.defaultLimit,
                cap: bounds.maximumCost
            )
        }
        guard let found, found > bounds.maximumCost else { return nil }
        return .cost(bounds, found: found)
    }

    /// The most items one page of `configuration`'s store can hold: a page evaluates at most
    /// its budget's worth of the smallest items, plus the one that crosses the budget
    /// (`inclusive`, S4), and never more than the largest limit.
    static func maximumPageItems(_ configuration: StoreConfiguration) -> Int {
        let smallest = max(1, configuration.itemSize.minimumBytes)
        return min(PageRequest.maximumLimit, configuration.scanBudgetBytes / smallest + 1)
    }

    /// `body` as the response, or the response-size bound's error in its place.
    func respond(_ body: ByteBuffer, server: StoreServer) -> Response {
        let limit = server.configuration.bounds.maximumResponseBytes
        guard body.readableBytes <= limit else {
            let error = BoundViolation.responseBytes(limit, found: body.readableBytes).graphQLError
            let data = (try? GraphQLJSONEncoder().encode(GraphQLResult(errors: [error]))) ?? Data()
            return Response(status: .ok, headers: Self.headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        return Response(status: .ok, headers: Self.headers, body: .init(byteBuffer: body))
    }

    /// The deepest nesting of lists and objects in a variable value, counted up to `limit`.
    static func depth(of value: Map, limit: Int) -> Int {
        guard limit > 0 else { return 0 }
        switch value {
        case .array(let elements): return 1 + (elements.lazy.map { depth(of: $0, limit: limit - 1) }.max() ?? 0)
        case .dictionary(let members):
            return 1 + (members.values.lazy.map { depth(of: $0, limit: limit - 1) }.max() ?? 0)
        default: return 0
        }
    }

    /// Runs a valid document with GraphQLSwift's executor, on the document parsed without
    /// locations (see ``DocumentText``); its errors are located from the located parse.
    func execute(
        _ prepared: DocumentCache.Prepared,
        _ request: GraphQLRequest,
        context: ResolverContext
    ) async -> GraphQLResult {
        if let error = EmptyEnumValueGuard.error(prepared.located, variables: request.variables, schema: schema) {
            return GraphQLResult(errors: [DocumentText.relocated(error, in: request.query)])
        }
        var result: GraphQLResult
        do {
            result = try await GraphQL.execute(
                schema: schema,
                documentAST: prepared.plain,
                rootValue: (),
                context: context,
                variableValues: request.variables,
                operationName: request.operationName
            )
        } catch let error as GraphQLError {
            result = GraphQLResult(errors: [error])
        } catch {
            result = GraphQLResult(errors: [GraphQLError(message: "\(error)")])
        }
        if result.errors.contains(where: { $0.locations.isEmpty && !$0.path.elements.isEmpty }) {
            let fields = FieldLocations(prepared.located, operationName: request.operationName)
            result.errors = result.errors.map { error in
                guard error.locations.isEmpty, !error.path.elements.isEmpty else { return error }
                let locations = DocumentText.locations(in: request.query, of: fields.starts(at: error.path))
                return GraphQLError(
                    message: error.message,
                    locations: locations,
                    path: error.path,
                    extensions: error.extensions
                )
            }
        }
        return result
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

    /// The GraphQL request of a POST body, read as a `JSONValue` (PagebenchWire, with Base's
    /// one JSON tokenizer), which bounds nesting: Foundation's decoder of GraphQLSwift's
    /// `Map` tries each type at every level and takes exponential time on a deeply nested
    /// `variables` value.
    static func request(_ body: ByteBuffer) throws(RequestError) -> GraphQLRequest {
        let usage = "the body must be a JSON object with a string 'query' (and optional 'variables', 'operationName')"
        let json: JSONValue
        do {
            json = try body.withUnsafeReadableBytes { bytes in try JSONValue.parse(bytes) }
        } catch {
            throw RequestError("\(usage): \(error)")
        }
        guard case .object(let members) = json, case .string(let query)? = members["query"] else {
            throw RequestError(usage)
        }
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
        if let unknown = members.keys.sorted().first(where: {
            !["query", "operationName", "variables", "extensions"].contains($0)
        }) {
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
