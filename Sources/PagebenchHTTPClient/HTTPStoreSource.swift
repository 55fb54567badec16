import Foundation
import NIOCore
import NIOPosix
import PagebenchBase
import PagebenchPage
import PagebenchStore
import PagebenchWire

#if AsyncHTTPClientSupport
import AsyncHTTPClient
import NIOHTTP1
#endif

/// A store on the other side of HTTP (`pagebench serve`, or replicas behind a load
/// balancer), paged exactly like ``PagebenchStore/SyntheticStore/page(_:)``.
///
/// A lean HTTP/1.1 client on SwiftNIO: a pool of at most ``Configuration/connections``
/// keep-alive connections (``HTTP1ConnectionPool``), each used by one request at a time;
/// a request is one write (NIOHTTP1's encoder) and one task resumption with the whole
/// response, read and decoded on the connection's event loop (NIOHTTP1's
/// `HTTPResponseDecoder`), its body decoded straight from the bytes read. A task running on an event loop of the
/// source (``taskExecutor(_:)``) pays no thread hop at all. A keep-alive connection the
/// server closed while idle is replaced and the GET repeated once.
///
/// A page is one ``HTTPPageExchange`` (the steps every HTTP page source shares) of the
/// served store's REST form (``ServedStoreCodec``). Errors come back as the store throws them
/// in-process: a `StoreError` with the server's code and message (so `throttled` and
/// `injectedFault` stay retryable, S21, paced by the retry policy alone as in-process: no
/// `Retry-After` wait, ``ServedStoreCodec/honoursRetryAfter``); a 429 or
/// 503 without the store's error body (a proxy's) as a retryable `PageError` `throttled`;
/// other failures as ``HTTPSourceError``; `CancellationError` untouched (a cancelled
/// request closes its connection, so the server stops waiting out its service time).
///
/// ``Configuration/client`` can swap the lean client for async-http-client
/// (swift-server/async-http-client) in a build with the `AsyncHTTPClientSupport` package
/// trait: same requests, errors and status counts, more client CPU per small page
/// (`results/http-vs-wrk.md`).
///
/// Call ``shutdown()`` when done (or use ``withSource(target:configuration:isolation:_:)``);
/// idle connections stay open otherwise.
package final class HTTPStoreSource: Sendable {
    /// How the source connects.
    package struct Configuration: Sendable, Hashable {
        /// The most connections to the target at once; requests beyond it wait for a free
        /// connection.
        package var connections: Int
        /// How long a request may take, from its start to the last byte of the response
        /// (connecting included), before it fails as `transport` (T5). The lean client checks
        /// it with one timer per connection, moved only when a deadline comes before it (a
        /// timer per request cost 10 % of the client's CPU, `results/http-vs-wrk.md`);
        /// async-http-client applies it as a read timeout (between bytes).
        package var requestTimeout: Duration
        /// Ask the server to include each item's payload bytes (`payload=true`); the
        /// source does not decode them, but they cross the wire.
        package var requestPayload: Bool
        /// The largest response body accepted, in bytes.
        package var maximumResponseBytes: Int
        /// Which HTTP client sends the requests.
        package var client: Client
        /// How long opening a connection may take before the request fails as `transport`. A
        /// server whose accept queue is full drops the connection's SYN, and the kernel
        /// retries it after 1 s, 3 s, 7 s…; cancelling the request ends the wait at once.
        package var connectTimeout: Duration

        package init(
            connections: Int = 8,
            requestTimeout: Duration = .seconds(30),
            requestPayload: Bool = false,
            maximumResponseBytes: Int = 64 << 20,
            client: Client = .lean,
            connectTimeout: Duration = .seconds(10)
        ) {
            self.connections = connections
            self.requestTimeout = requestTimeout
            self.requestPayload = requestPayload
            self.maximumResponseBytes = maximumResponseBytes
            self.client = client
            self.connectTimeout = connectTimeout
        }
    }

    /// The HTTP client behind a source.
    package enum Client: String, Sendable, Hashable, CaseIterable {
        /// Our own HTTP/1.1 keep-alive client on SwiftNIO (``HTTP1ConnectionPool``).
        case lean
        /// swift-server/async-http-client with its connection pool (HTTP/1.1 only, no
        /// redirects, no decompression). Only in a build with the `AsyncHTTPClientSupport`
        /// package trait (``isAvailable``); otherwise creating a source with it throws.
        case asyncHTTPClient = "async-http-client"

        /// Whether this build can send requests with the client.
        package var isAvailable: Bool {
            switch self {
            case .lean: true
            case .asyncHTTPClient: Self.asyncHTTPClientBuilt
            }
        }

        #if AsyncHTTPClientSupport
        private static let asyncHTTPClientBuilt = true
        #else
        private static let asyncHTTPClientBuilt = false
        #endif

        /// How to get a build that has the async-http-client client.
        package static let asyncHTTPClientBuildHint =
            "this pagebench was built without async-http-client; rebuild with `swift build --traits AsyncHTTPClientSupport` (add `-c release` for a release build)"
    }

    /// What sends the requests.
    private enum Transport: Sendable {
        case lean(HTTP1ConnectionPool)
        #if AsyncHTTPClientSupport
        case asyncHTTPClient(HTTPClient)
        #endif
    }

    /// The base URL, without a trailing slash: `http://127.0.0.1:8080`.
    package let target: String
    package let configuration: Configuration
    /// The target's path prefix (`""` or `/v2`), put before every request path.
    private let pathPrefix: String
    private let transport: Transport
    private let executors: [EventLoopTaskExecutor]
    private let counter = HTTPStatusCounter()
    /// A page's request, its answer and the steps between them.
    private let exchange: HTTPPageExchange<ServedStoreCodec>

    /// Creates a source for the server at `target` (`http://host:port`, optionally with a
    /// path prefix when a proxy serves the store under one). Connects lazily.
    ///
    /// - Parameter sleep: waits out a `Retry-After` (never for the served store's codec; the
    ///   exchange's rule, T3); tests inject one that records the waits.
    /// - Throws: ``HTTPSourceError`` (`invalidTarget`) for anything else.
    package init(
        target: String,
        configuration: Configuration = Configuration(),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) throws(HTTPSourceError) {
        let url = try HTTPBaseURL(
            target,
            schemes: ["http"],
            schemeHint: "only http:// is supported (the store serves plain HTTP/1.1)"
        )
        guard configuration.connections >= 1 else {
            throw .invalidTarget(target, "connections must be at least 1, got \(configuration.connections)")
        }
        guard configuration.connectTimeout > .zero else {
            throw .invalidTarget(target, "connectTimeout must be positive, got \(configuration.connectTimeout)")
        }
        guard configuration.maximumResponseBytes >= 1 else {
            throw .invalidTarget(
                target,
                "maximumResponseBytes must be at least 1, got \(configuration.maximumResponseBytes)"
            )
        }
        let (hostName, port, authority) = (url.host, url.port, url.authority)
        self.target = url.text
        self.configuration = configuration
        pathPrefix = url.pathPrefix
        exchange = HTTPPageExchange(
            codec: ServedStoreCodec(target: url.text, includePayload: configuration.requestPayload ? true : nil),
            sleep: sleep
        )
        let group = MultiThreadedEventLoopGroup.singleton
        switch configuration.client {
        case .lean:
            transport = .lean(
                HTTP1ConnectionPool(
                    endpoint: .init(host: hostName, port: port, hostHeader: String(authority), onlyPlainGets: true),
                    capacity: configuration.connections,
                    group: group,
                    connectTimeout: .nanoseconds(configuration.connectTimeout.clampedNanoseconds),
                    requestTimeout: configuration.requestTimeout,
                    maximumBodyBytes: configuration.maximumResponseBytes
                )
            )
        case .asyncHTTPClient:
            #if AsyncHTTPClientSupport
            transport = .asyncHTTPClient(Self.makeAsyncHTTPClient(configuration, group: group))
            #else
            throw .invalidTarget(target, Client.asyncHTTPClientBuildHint)
            #endif
        }
        executors = group.makeIterator().map { EventLoopTaskExecutor(eventLoop: $0) }
    }

    /// Runs `body` with a source and shuts it down afterwards, whether `body` returns or throws.
    package static func withSource<Result>(
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
    package func shutdown() async throws {
        switch transport {
        case .lean(let pool): await pool.shutdown()
        #if AsyncHTTPClientSupport
        case .asyncHTTPClient(let client): try await client.shutdown()
        #endif
        }
    }

    /// Responses received so far, by HTTP status, and requests that got none.
    package var statusCounts: HTTPStatusCounts { counter.snapshot }

    /// An executor on one of the source's event loops (`index` modulo their number). Tasks
    /// that page with it as their executor preference run on the thread that does their
    /// connection's I/O, which saves two thread hops per request.
    package func taskExecutor(_ index: Int) -> EventLoopTaskExecutor {
        executors[index % executors.count]
    }

    /// Fetches one page: `GET {target}{path}?{query}` (``PageQuery``), one ``HTTPPageExchange``.
    ///
    /// - Throws: `CancellationError`; `StoreError` for every error the store reports
    ///   (the same code and message as in-process); a `PageError` `throttled` for a 429 or 503
    ///   without the store's body, `malformedAnswer` for a page that hands back the token it
    ///   was sent (P9); ``HTTPSourceError`` otherwise. All are page-contract failures
    ///   (`PageFailure`) with a ``PagebenchPage/PageError/Kind``.
    package func page(_ request: PageRequest) async throws -> Page {
        try await exchange.page(request) { pathAndQuery in try await get(pathAndQuery) }
    }

    /// Throttling answers received so far (T3: 429, 503, the store's `throttled` and
    /// `injectedFault`), retried or not.
    package var throttles: Int { exchange.throttles }

    /// `GET /health`: the server's configuration hash, partitions and items. Replicas that
    /// continue each other's tokens report the same hash.
    package func health() async throws -> StoreHealth {
        let response = try await get("/health")
        guard response.status == 200 else {
            throw ServedStoreCodec.failure(status: response.status, url: target + "/health", body: response.body)
        }
        guard let health = try? JSONDecoder().decode(StoreHealth.self, from: Data(response.body.readableBytesView))
        else {
            throw HTTPSourceError.malformedResponse("the health body is not valid health JSON", body: response.body)
        }
        return health
    }

    /// One GET on a pooled connection. A reused keep-alive connection that turns out to be
    /// closed by the server before it answered is replaced and the GET (idempotent)
    /// repeated once. Cancelling the calling task closes the connection in use.
    private nonisolated(nonsending) func get(_ pathAndQuery: String) async throws -> HTTPPageAnswer {
        switch transport {
        case .lean(let pool): try await get(pathAndQuery, pool: pool)
        #if AsyncHTTPClientSupport
        case .asyncHTTPClient(let client): try await get(pathAndQuery, client: client)
        #endif
        }
    }

    private nonisolated(nonsending) func get(
        _ pathAndQuery: String,
        pool: HTTP1ConnectionPool
    ) async throws -> HTTPPageAnswer {
        let requestTarget = pathPrefix + pathAndQuery
        do {
            let response = try await pool.request(counting: counter) {
                (connection, deadline) throws(HTTP1ConnectionError) in
                try await connection.get(requestTarget, deadline: deadline)
            }
            return HTTPPageAnswer(
                status: response.status,
                body: response.body,
                retryAfterSeconds: response.retryAfterSeconds
            )
        } catch let failure as HTTP1ConnectionPool.RequestFailure {
            throw failure.sourceError(
                "GET " + target + pathAndQuery,
                noAnswerHint: "is `pagebench serve` running there and reachable?",
                malformedHint: "is the target a `pagebench serve` (or a proxy in front of one)?"
            )
        }
    }

    #if AsyncHTTPClientSupport
    /// One GET through async-http-client, its whole body accumulated on the event loop
    /// (one task resumption per request). Cancelling the calling task cancels the request.
    private func get(_ pathAndQuery: String, client: HTTPClient) async throws -> HTTPPageAnswer {
        let url = target + pathAndQuery
        do {
            let request = try HTTPClient.Request(url: url, method: .GET)
            let task = client.execute(
                request: request,
                delegate: ResponseAccumulator(request: request, maxBodySize: configuration.maximumResponseBytes)
            )
            let response = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
            try Task.checkCancellation()
            let status = Int(response.status.code)
            counter.record(status: status)
            return HTTPPageAnswer(
                status: status,
                body: response.body ?? ByteBuffer(),
                retryAfterSeconds: response.headers.first(name: "retry-after").flatMap { Int($0) }
            )
        } catch {
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            counter.recordTransportFailure()
            throw HTTPSourceError.transport(url, error)
        }
    }

    private static func makeAsyncHTTPClient(_ configuration: Configuration, group: any EventLoopGroup) -> HTTPClient {
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(
                connect: .nanoseconds(configuration.connectTimeout.clampedNanoseconds),
                read: .nanoseconds(max(1, configuration.requestTimeout.clampedNanoseconds))
            ),
            connectionPool: .init(
                idleTimeout: .seconds(60),
                concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.connections
            ),
            decompression: .disabled
        )
        clientConfiguration.httpVersion = .http1Only
        // A refused connection fails the request at once (counted as a transport failure)
        // instead of being retried silently until the connect timeout: the caller's retry
        // policy decides, and a dead replica shows in the counts.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: group, configuration: clientConfiguration)
    }
    #endif

    /// A connection failure in words: NIO's connection error lists every address tried, and a
    /// system call's error is named as a person would (`connection refused`, not NIO's
    /// `connection reset (error set): Connection refused) (errno: 111)`).
    static func describe(_ error: any Error) -> any Error {
        if let error = error as? IOError, let words = Self.words(errno: error.errnoCode) {
            return ConnectFailure(description: words)
        }
        guard let error = error as? NIOConnectionError else { return error }
        let attempts = error.connectionErrors.map { "\($0.target): \($0.error)" }
        let reason = attempts.isEmpty ? "\(error)" : attempts.joined(separator: "; ")
        return ConnectFailure(description: "cannot connect to \(error.host):\(error.port) (\(reason))")
    }

    /// Plain words for the errors a connection meets; nil for any other errno.
    static func words(errno: CInt) -> String? {
        switch errno {
        case ECONNREFUSED: "connection refused (nothing listens at that address and port)"
        case ECONNRESET: "connection reset by the peer"
        case ETIMEDOUT: "connection timed out"
        case EHOSTUNREACH: "host unreachable"
        case ENETUNREACH: "network unreachable"
        case EPIPE: "connection closed by the peer while sending"
        case EADDRNOTAVAIL: "address not available"
        default: nil
        }
    }

    private struct ConnectFailure: Error, CustomStringConvertible {
        let description: String
    }
}
