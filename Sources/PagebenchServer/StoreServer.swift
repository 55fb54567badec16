import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import PagebenchPage
import PagebenchStore
import PagebenchWire
import ServiceLifecycle

/// The synthetic store served over HTTP/1.1 (HummingbirdCore's server): the list endpoints of
/// ``PageQuery``, `GET /health`, and JSON errors carrying the in-process error codes
/// (``StoreHTTPErrorCode``).
///
/// Stateless: a page depends only on the configuration and the request (S8), and tokens
/// are MAC'd with a key derived from the configuration, so any number of replicas started
/// with the same configuration serve one logical store — any replica continues any other
/// replica's token. Each request draws the configured service time and injected failures
/// (S20, S21) through ``SyntheticStore/page(_:)``; a request whose client closes the
/// connection stops waiting at once.
package struct StoreServer: Sendable {
    /// Where and how to serve.
    package struct Configuration: Sendable, Hashable {
        /// The address to bind; loopback unless told otherwise.
        package var host: String
        /// The TCP port; 0 picks a free ephemeral port (see `onListening`).
        package var port: Int
        /// Whether items carry their payload when a request does not say (`payload=`).
        package var includePayloadByDefault: Bool
        /// The `Retry-After` header of a 429 (throttled) response, in whole seconds (S21).
        package var retryAfterSeconds: Int
        /// A connection with no request in progress is closed after this long without a
        /// complete request head — idle keep-alive connections, and clients that trickle a
        /// head byte by byte (slowloris), which never complete one. Nil: never.
        package var idleTimeout: Duration?
        /// What one request may ask of the server: body and response size, CPU time (W7).
        package var bounds: RequestBounds
        /// The port of the separate health listener (``HealthListener``, `serve
        /// --health-port`; 0: a free port), on ``host``; nil: none, `/health` only on ``port``.
        package var healthPort: Int?

        package init(
            host: String = "127.0.0.1",
            port: Int = 8080,
            includePayloadByDefault: Bool = false,
            retryAfterSeconds: Int = 1,
            idleTimeout: Duration? = .seconds(60),
            bounds: RequestBounds = RequestBounds(),
            healthPort: Int? = nil
        ) {
            self.host = host
            self.port = port
            self.includePayloadByDefault = includePayloadByDefault
            self.retryAfterSeconds = retryAfterSeconds
            self.idleTimeout = idleTimeout
            self.bounds = bounds
            self.healthPort = healthPort
        }
    }

    /// The store every request pages.
    package let store: SyntheticStore
    package let configuration: Configuration
    /// Live request counters.
    package let statistics: ServerStatistics
    let closeMonitor = ConnectionCloseMonitor()
    /// The `Date` header of every response.
    let dates = HTTPDateCache()
    /// Whether the store has a service time worth abandoning when a client leaves.
    private let watchesConnections: Bool
    /// Protocol front ends' routes, added after the REST routes (see ``StoreRouteRegistration``).
    private let extraRoutes: [any StoreRouteRegistration]

    package init(
        store: SyntheticStore,
        configuration: Configuration = Configuration(),
        extraRoutes: [any StoreRouteRegistration] = []
    ) {
        self.store = store
        self.configuration = configuration
        self.extraRoutes = extraRoutes
        statistics = ServerStatistics()
        let service = store.configuration.serviceTime
        watchesConnections = service.base != .none || service.nanosecondsPerScannedByte != 0
    }

    /// `handler` on GET and HEAD (HEAD is GET without the body, RFC 9110; the HTTP encoder
    /// drops the body of a HEAD response).
    private func getAndHead(_ router: inout StoreRouter, _ path: String, _ handler: @escaping StoreRouter.Handler) {
        router.get(path, use: handler)
        router.head(path, use: handler)
    }

    /// The routes: REST, then the protocol front ends' (``StoreRouteRegistration``).
    package func buildRouter() -> StoreRouter {
        var router = StoreRouter()
        let health = healthBody()
        getAndHead(&router, "/health") { _, _ in
            Response(status: .ok, headers: Self.jsonHeaders, body: .init(byteBuffer: health))
        }
        getAndHead(&router, "/scan") { request, context in
            await respond(range: .scan, to: request, context: context)
        }
        getAndHead(&router, "/scan/segments/:index/:total") { request, context in
            let index: Int
            let total: Int
            do throws(QueryParameterError) {
                index = try PageQuery.pathNumber("index", context.parameters.get("index"))
                total = try PageQuery.pathNumber("total", context.parameters.get("total"))
            } catch {
                return errorResponse(.invalidParameter, error.message)
            }
            return await respond(range: .segment(index: index, total: total), to: request, context: context)
        }
        getAndHead(&router, "/partitions/:partition/items") { request, context in
            let partition: Int
            do throws(QueryParameterError) {
                partition = try PageQuery.pathNumber("partition", context.parameters.get("partition"))
            } catch {
                return errorResponse(.invalidParameter, error.message)
            }
            return await respond(range: .partition(partition), to: request, context: context)
        }
        for routes in extraRoutes { routes.register(on: &router, server: self) }
        return router
    }

    /// The server as a service (run it in a `ServiceGroup`); `onListening` receives the
    /// bound port once the server accepts connections. `port` overrides
    /// ``Configuration/port`` (0: an ephemeral port).
    package func makeService(
        logger: Logger? = nil,
        port: Int? = nil,
        onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) throws -> any Service {
        try makeService(
            logger: logger,
            server: .framedHTTP1(configuration: http1Configuration),
            port: port,
            onListening: onListening
        )
    }

    /// HTTP/1.1 with the handlers that notice clients leaving and answer unparsable requests
    /// with the JSON error body, and the idle timeout.
    ///
    /// `/health` is answered by the router, like every request: a handler that answered it on
    /// the event loop (77ca635) made it no faster under 10,000 busy connections (the event loops
    /// are as busy as the pool; results/crowd.md), and the requests it answered were invisible
    /// to HummingbirdCore's idle timeout (it sits after such a handler), so a keep-alive
    /// connection asking only for `/health` would have been closed as idle. Probes that must
    /// not wait ask ``HealthListener``.
    var http1Configuration: HTTP1Channel.Configuration {
        .init(
            additionalChannelHandlers: [closeMonitor.makeHandler(), ParseErrorResponder()],
            idleTimeout: configuration.idleTimeout.map { TimeAmount($0) }
        )
    }

    /// The server on `server` (plain HTTP/1.1, or HTTPS around it): each request is answered
    /// by the router, with the `Date` and `Server` headers every response carries.
    ///
    /// The listener is ``StoreListener`` (the listen backlog ``listenBacklog``, accepting sized
    /// for a crowd), not HummingbirdCore's `Server`: a crowd's connections arrive at once, and
    /// with its queue of 256 a run of 10,000 pagers had 2,684 connections the client counted as
    /// established that the server never accepted (their final ACK dropped with the accept
    /// queue full), each a request timed out; with a longer queue, its loop still took 10
    /// connections a round of the cooperative pool, and up to 3,363 of 10,000 waited in the
    /// kernel's queue for a whole 25 s phase (issue 38).
    func makeService(
        logger: Logger?,
        server: ConnectionSetup,
        port: Int? = nil,
        onListening: @escaping @Sendable (_ port: Int) async -> Void
    ) throws -> any Service {
        var quiet = Logger(label: "pagebench.serve")
        quiet.logLevel = .warning
        let router = buildRouter()
        let serverName = serverName
        let dates = dates
        let childChannel = server.make { request, writer, channel in
            var response = await router.respond(to: request, context: StoreRequestContext(channel: channel))
            response.headers[.date] = dates.now()
            response.headers[.server] = serverName
            try await writer.write(response: response.head, body: response.body)
        }
        return listener(
            childChannel,
            port: port ?? configuration.port,
            logger: logger ?? quiet,
            onListening: onListening
        )
    }

    private func listener<ChildChannel: ServerChildChannel>(
        _ childChannel: ChildChannel,
        port: Int,
        logger: Logger,
        onListening: @escaping @Sendable (_ port: Int) async -> Void
    ) -> any Service {
        StoreListener(
            childChannel: childChannel,
            host: configuration.host,
            port: port,
            group: MultiThreadedEventLoopGroup.singleton,
            logger: logger,
            onListening: onListening
        )
    }

    /// The `Server` header of every response.
    var serverName: String { "pagebench/\(store.configurationHash)" }

    /// Binds the health listener of ``Configuration/healthPort`` (`port` overrides it; 0: a
    /// free port) on its own thread; nil without one. Run it as a service beside the store's.
    package func bindHealthListener(port: Int? = nil) async throws -> HealthListener? {
        guard let healthPort = port ?? configuration.healthPort else { return nil }
        return try await HealthListener.bind(
            host: configuration.host,
            port: healthPort,
            body: healthBody(),
            serverName: serverName,
            idleTimeout: configuration.idleTimeout
        )
    }

    /// The listen backlog asked for: as long a queue of connections not yet accepted as the
    /// kernel allows (Linux caps it at `net.core.somaxconn`, 4,096 by default).
    package static var listenBacklog: Int { 65_535 }

    /// Serves until SIGINT or SIGTERM, then shuts down gracefully: the listeners close,
    /// requests in flight finish, and this returns (swift-service-lifecycle). The health
    /// listener (``Configuration/healthPort``), if any, is bound first: `onListening`
    /// receives both ports once both accept connections.
    package func run(
        logger: Logger? = nil,
        tls: TLSFiles? = nil,
        onListening: @escaping @Sendable (_ port: Int, _ healthPort: Int?) async -> Void = { _, _ in }
    ) async throws {
        let health = try await bindHealthListener()
        let healthPort = health?.port
        let listening: @Sendable (Int) async -> Void = { port in await onListening(port, healthPort) }
        let service: any Service
        do {
            service =
                if let tls {
                    try makeService(
                        logger: logger,
                        server: .tls(http1: http1Configuration, context: try tls.context()),
                        onListening: listening
                    )
                } else {
                    try makeService(logger: logger, onListening: listening)
                }
        } catch {
            await health?.close()
            throw error
        }
        var quiet = Logger(label: "pagebench.serve")
        quiet.logLevel = .warning
        let group = ServiceGroup(
            configuration: .init(
                services: [service] + (health.map { [$0] } ?? []),
                gracefulShutdownSignals: [.sigint, .sigterm],
                logger: logger ?? quiet
            )
        )
        do {
            try await group.run()
        } catch {
            await health?.close()
            throw error
        }
    }

    // MARK: - Requests

    static let jsonHeaders: HTTPFields = [.contentType: "application/json"]

    /// The largest item whose payload is served (base64 in a JSON body): 64 MiB.
    package static let maximumPayloadBytes = 64 << 20

    func healthBody() -> ByteBuffer {
        var json = JSONWriter(capacity: 128)
        json.raw("{\"status\":\"ok\",\"configurationHash\":")
        json.string(store.configurationHash)
        json.raw(",\"partitions\":")
        json.integer(store.configuration.partitions)
        json.raw(",\"items\":")
        json.integer(store.totalItems)
        // The configuration itself, so that a client with another one can say which fields differ.
        json.raw(",\"canonical\":")
        json.string(store.configuration.canonicalText)
        json.raw("}")
        return json.buffer
    }

    private func respond(range: ScanRange, to request: Request, context: StoreRequestContext) async -> Response {
        let query: PageQuery
        do {
            query = try PageQuery(range: range, parameters: request.uri.queryParameters)
        } catch {
            return errorResponse(.invalidParameter, error.message)
        }
        statistics.recordStart()
        defer { statistics.recordFinish() }
        let outcome = await page(query.request, channel: context.channel)
        switch outcome {
        case .page(let page):
            let includePayload = query.includePayload ?? configuration.includePayloadByDefault
            if includePayload, let large = page.items.first(where: { $0.sizeBytes > Self.maximumPayloadBytes }) {
                return errorResponse(
                    .invalidParameter,
                    "item \(large.partition)/\(large.sortKey) is \(large.sizeBytes) bytes; payloads are served for items of at most "
                        + "\(Self.maximumPayloadBytes) bytes (64 MiB): ask with payload=false"
                )
            }
            let body = PageBody.encode(page, includePayload: includePayload)
            let limit = configuration.bounds.maximumResponseBytes
            guard body.readableBytes <= limit else {
                return errorResponse(
                    .invalidParameter,
                    "the page's body would be \(body.readableBytes) bytes, more than this server sends (\(limit), serve "
                        + "--max-response-bytes): ask with a smaller limit\(includePayload ? " or payload=false" : "")"
                )
            }
            return Response(status: .ok, headers: Self.jsonHeaders, body: .init(byteBuffer: body))
        case .failed(let error as StoreError):
            return errorResponse(.store(error.code), error.message)
        case .failed(let error):
            return errorResponse(.internalError, "the store failed unexpectedly: \(error)")
        case .abandoned:
            statistics.recordAbandoned()
            return errorResponse(.internalError, "the client closed the connection before the page was ready")
        }
    }

    private typealias Outcome = StorePageOutcome

    /// Pages the store for a protocol front end, counted in ``statistics`` like a REST request.
    package func servePage(_ request: PageRequest, context: StoreRequestContext) async -> StorePageOutcome {
        statistics.recordStart()
        defer { statistics.recordFinish() }
        let outcome = await page(request, channel: context.channel)
        if case .abandoned = outcome { statistics.recordAbandoned() }
        return outcome
    }

    /// Pages the store; with a service time, races it against the client's connection closing.
    private func page(_ request: PageRequest, channel: any Channel) async -> Outcome {
        guard watchesConnections else {
            do {
                return .page(try await store.page(request))
            } catch {
                return .failed(error)
            }
        }
        return await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do {
                    return .page(try await store.page(request))
                } catch {
                    return .failed(error)
                }
            }
            group.addTask {
                await closeMonitor.waitForClientClose(of: channel)
                return .abandoned
            }
            let first = await group.next() ?? .abandoned
            group.cancelAll()
            return first
        }
    }

    func errorResponse(_ code: StoreHTTPErrorCode, _ message: String) -> Response {
        var headers = Self.jsonHeaders
        if code == .store(.throttled) { headers[.retryAfter] = String(configuration.retryAfterSeconds) }
        return Response(
            status: code.status,
            headers: headers,
            body: .init(byteBuffer: ErrorBody(code: code, message: message).encoded())
        )
    }
}
