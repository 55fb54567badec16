import HTTPTypes
import HummingbirdCore
import PagebenchWire

/// The routes of ``StoreServer``: a method and a path pattern per handler, matched on
/// HummingbirdCore's request. A handful of fixed endpoints need no more than this, and
/// without Hummingbird's router module (and its file system, metrics and tracing
/// dependencies) a cold release build compiles about 117 CPU-seconds less
/// (`results/build-times.md`).
///
/// A path matches a pattern when, split at `/` with empty parts dropped (so `/scan/` and
/// `//scan` are `/scan`), each part equals the pattern's literal or fills its `:name`
/// parameter. A request no route takes gets the JSON error body: 405 with `Allow` for
/// another method on a GET endpoint, 404 listing the endpoints otherwise.
package struct StoreRouter: Sendable {
    /// Answers one request.
    package typealias Handler = @Sendable (Request, StoreRequestContext) async throws -> Response

    struct Route: Sendable {
        enum Part: Sendable, Equatable {
            case literal(Substring)
            case parameter(String)
        }

        let method: HTTPRequest.Method
        let parts: [Part]
        let handler: Handler

        init(method: HTTPRequest.Method, path: String, handler: @escaping Handler) {
            self.method = method
            parts = path.split(separator: "/", omittingEmptySubsequences: true).map {
                $0.first == ":" ? .parameter(String($0.dropFirst())) : .literal($0)
            }
            self.handler = handler
        }

        /// The parameters `path` gives this route's pattern, or nil when it does not match.
        func match(_ path: [Substring]) -> RouteParameters? {
            guard path.count == parts.count else { return nil }
            var parameters = RouteParameters()
            for (part, given) in zip(parts, path) {
                switch part {
                case .literal(let literal):
                    guard literal == given else { return nil }
                case .parameter(let name):
                    parameters.values.append((name, given))
                }
            }
            return parameters
        }
    }

    private(set) var routes: [Route] = []

    package init() {}

    /// Adds `handler` for `method` on `path` (`/scan/segments/:index/:total`). A route added
    /// earlier wins when two match.
    package mutating func on(_ path: String, method: HTTPRequest.Method, use handler: @escaping Handler) {
        routes.append(Route(method: method, path: path, handler: handler))
    }

    package mutating func get(_ path: String, use handler: @escaping Handler) { on(path, method: .get, use: handler) }
    package mutating func head(_ path: String, use handler: @escaping Handler) { on(path, method: .head, use: handler) }
    package mutating func post(_ path: String, use handler: @escaping Handler) { on(path, method: .post, use: handler) }

    /// The response to `request`: its route's, or the JSON error for no route. A handler
    /// that throws gets a 500 with the JSON error body.
    package func respond(to request: Request, context: StoreRequestContext) async -> Response {
        let path = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        for route in routes where route.method == request.method {
            guard let parameters = route.match(path) else { continue }
            var context = context
            context.parameters = parameters
            do {
                return try await route.handler(request, context)
            } catch {
                return Self.response(.internalError, "internal error: \(error)")
            }
        }
        return Self.noRoute(request)
    }

    /// 405 for another method on a GET endpoint, 404 otherwise.
    static func noRoute(_ request: Request) -> Response {
        let path = request.uri.path
        if request.method != .get, request.method != .head, Self.isGETRoute(path) {
            var response = Self.response(
                .invalidParameter,
                "\(request.method) is not allowed on \(path); use GET or HEAD",
                status: .methodNotAllowed
            )
            response.headers[.allow] = "GET, HEAD"
            return response
        }
        return Self.response(
            .notFound,
            "no endpoint \(request.method) \(path); endpoints: GET /partitions/{p}/items, GET /scan, GET /scan/segments/{i}/{n}, GET /health, POST / (DynamoDB JSON API)"
        )
    }

    /// Whether `path` is one of the GET routes (so another method gets 405, not 404).
    static func isGETRoute(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        switch parts.count {
        case 1: return parts.first == "health" || parts.first == "scan"
        case 3: return parts.first == "partitions" && parts.last == "items"
        case 4: return parts.first == "scan" && parts.dropFirst().first == "segments"
        default: return false
        }
    }

    static func response(_ code: StoreHTTPErrorCode, _ message: String, status: HTTPResponse.Status? = nil) -> Response
    {
        Response(
            status: status ?? code.status,
            headers: StoreServer.jsonHeaders,
            body: .init(byteBuffer: ErrorBody(code: code, message: message).encoded())
        )
    }
}

/// The `:name` parts of a route's path as a request filled them.
package struct RouteParameters: Sendable {
    var values: [(name: String, value: Substring)] = []

    package init() {}

    /// The value of parameter `name`, as sent (not percent-decoded).
    package func get(_ name: String) -> String? {
        values.first { $0.name == name }.map { String($0.value) }
    }
}
