import AsyncHTTPClient
import Foundation
import NIOCore
public import PagebenchStore

/// A store on the other side of HTTP (`pagebench serve`, or replicas behind a load
/// balancer), paged exactly like ``PagebenchStore/SyntheticStore/page(_:)``.
///
/// One shared `HTTPClient` with a pool of HTTP/1.1 keep-alive connections (at most
/// ``Configuration/connections`` to the target) serves every task that pages through the
/// source. Errors come back as the store throws them in-process: a `StoreError` with the
/// server's code and message (so `throttled` and `injectedFault` stay retryable, S21);
/// other failures as ``HTTPSourceError``; `CancellationError` untouched (a cancelled
/// request closes its connection, so the server stops waiting out its service time).
///
/// Call ``shutdown()`` when done (or use ``withSource(target:configuration:isolation:_:)``);
/// the client's connections and threads are not released otherwise.
public final class HTTPStoreSource: Sendable {
    /// How the source connects.
    public struct Configuration: Sendable, Hashable {
        /// The most connections to the target at once (the pool's soft limit); requests
        /// beyond it wait for a free connection.
        public var connections: Int
        /// How long a request may wait for the server's next bytes (a read timeout) before it
        /// fails as `transport`. Not a total deadline: a per-request deadline timer cost 10 %
        /// of the client's CPU per request (measured against wrk, `results/http-vs-wrk.md`).
        public var requestTimeout: Duration
        /// Ask the server to include each item's payload bytes (`payload=true`); the
        /// source does not decode them, but they cross the wire.
        public var requestPayload: Bool
        /// The largest response body accepted, in bytes.
        public var maximumResponseBytes: Int

        public init(
            connections: Int = 8, requestTimeout: Duration = .seconds(30), requestPayload: Bool = false,
            maximumResponseBytes: Int = 64 << 20
        ) {
            self.connections = connections
            self.requestTimeout = requestTimeout
            self.requestPayload = requestPayload
            self.maximumResponseBytes = maximumResponseBytes
        }
    }

    /// The base URL, without a trailing slash: `http://127.0.0.1:8080`.
    public let target: String
    public let configuration: Configuration
    private let client: HTTPClient
    private let counter = HTTPStatusCounter()

    /// Creates a source for the server at `target` (`http://host:port`, optionally with a
    /// path prefix when a proxy serves the store under one).
    ///
    /// - Throws: ``HTTPSourceError`` (`invalidTarget`) for anything else.
    public init(target: String, configuration: Configuration = Configuration()) throws(HTTPSourceError) {
        var base = target
        while base.hasSuffix("/") { base.removeLast() }
        guard base.hasPrefix("http://") else {
            throw .invalidTarget(target, "only http:// is supported (the store serves plain HTTP/1.1)")
        }
        guard let url = URL(string: base), let host = url.host, !host.isEmpty, url.query == nil else {
            throw .invalidTarget(target, "it is not a URL with a host and no query")
        }
        guard configuration.connections >= 1 else {
            throw .invalidTarget(target, "connections must be at least 1, got \(configuration.connections)")
        }
        self.target = base
        self.configuration = configuration
        let nanoseconds = configuration.requestTimeout.components.seconds * 1_000_000_000
            + configuration.requestTimeout.components.attoseconds / 1_000_000_000
        let readTimeout = TimeAmount.nanoseconds(max(1, nanoseconds))
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: readTimeout),
            connectionPool: .init(
                idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.connections),
            decompression: .disabled)
        clientConfiguration.httpVersion = .http1Only
        // A refused connection fails the request at once (counted as a transport failure)
        // instead of being retried silently until the connect timeout: the caller's retry
        // policy decides, and a dead replica shows in the counts.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
    }

    /// Runs `body` with a source and shuts it down afterwards, whether `body` returns or throws.
    public static func withSource<Result>(
        target: String,
        configuration: Configuration = Configuration(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (HTTPStoreSource) async throws -> Result
    ) async throws -> Result {
        let source = try HTTPStoreSource(target: target, configuration: configuration)
        let result: Result
        do {
            result = try await body(source)
        } catch {
            try? await source.shutdown()
            throw error
        }
        try await source.shutdown()
        return result
    }

    /// Closes the pool's connections; the source must not be used afterwards.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// Responses received so far, by HTTP status, and requests that got none.
    public var statusCounts: HTTPStatusCounts { counter.snapshot }

    /// Fetches one page: `GET {target}{path}?{query}` (``PageQuery``).
    ///
    /// - Throws: `CancellationError`; `StoreError` for every error the store reports
    ///   (the same code and message as in-process); ``HTTPSourceError`` otherwise.
    public func page(_ request: PageRequest) async throws -> Page {
        let query = PageQuery(request: request, includePayload: configuration.requestPayload ? true : nil)
        let (status, body) = try await get(query.pathAndQuery)
        guard status == 200 else { throw Self.failure(status: status, url: target + query.pathAndQuery, body: body) }
        return try PageBody.decode(body)
    }

    /// `GET /health`: the server's configuration hash, partitions and items. Replicas that
    /// continue each other's tokens report the same hash.
    public func health() async throws -> StoreHealth {
        let (status, body) = try await get("/health")
        guard status == 200 else { throw Self.failure(status: status, url: target + "/health", body: body) }
        guard let health = try? JSONDecoder().decode(StoreHealth.self, from: Data(body.readableBytesView)) else {
            throw HTTPSourceError.malformedResponse("the health body is not valid health JSON", body: body)
        }
        return health
    }

    /// One GET, its body collected on the event loop.
    ///
    /// Uses the delegate API rather than `execute(_:timeout:)` + `body.collect`: the whole
    /// response is accumulated on the connection's event loop and the awaiting task
    /// resumes once, instead of once for the head and again for each body chunk — the
    /// thread hops were most of the client's latency per request (measured:
    /// `results/http-vs-wrk.md`). Cancelling the calling task cancels the request, which
    /// closes its connection.
    private func get(_ pathAndQuery: String) async throws -> (status: Int, body: ByteBuffer) {
        let url = target + pathAndQuery
        do {
            let request = try HTTPClient.Request(url: url, method: .GET)
            let task = client.execute(
                request: request,
                delegate: ResponseAccumulator(request: request, maxBodySize: configuration.maximumResponseBytes))
            let response = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
            try Task.checkCancellation()
            let status = Int(response.status.code)
            counter.record(status: status)
            return (status, response.body ?? ByteBuffer())
        } catch {
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            counter.recordTransportFailure()
            throw HTTPSourceError.transport(url, error)
        }
    }

    /// The error a non-200 response stands for.
    static func failure(status: Int, url: String, body: ByteBuffer) -> any Error {
        if let errorBody = ErrorBody.decode(body), let code = StoreHTTPErrorCode(name: errorBody.code) {
            switch code {
            case .store(let storeCode):
                return StoreError(remote: storeCode, message: errorBody.message)
            case .invalidParameter, .notFound, .internalError:
                return HTTPSourceError.rejected(status: status, serverCode: errorBody.code, message: errorBody.message)
            }
        }
        // Not our body (a proxy's page, say): the status alone still says "retry" for 429/503.
        switch status {
        case 429:
            return StoreError(remote: .throttled, message: "GET \(url) throttled (HTTP 429); retry after a back-off")
        case 503:
            return StoreError(remote: .injectedFault, message: "GET \(url) unavailable (HTTP 503); retry")
        default:
            return HTTPSourceError.unexpectedStatus(status, url: url, body: body)
        }
    }
}

/// The body of `GET /health`.
public struct StoreHealth: Sendable, Hashable, Codable {
    /// `ok`.
    public var status: String
    /// ``PagebenchStore/StoreConfiguration/configurationHash`` of the server's store.
    public var configurationHash: String
    public var partitions: Int
    /// Items in the whole store.
    public var items: Int

    public init(status: String, configurationHash: String, partitions: Int, items: Int) {
        self.status = status
        self.configurationHash = configurationHash
        self.partitions = partitions
        self.items = items
    }
}
