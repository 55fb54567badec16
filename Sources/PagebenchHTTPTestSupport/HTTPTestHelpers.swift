import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import ServiceLifecycle

/// Small stores: every test drains them completely in milliseconds.
package enum TestStores {
    /// 5 partitions of 40 items, 512-byte items, a 4 KiB budget so that limits and the
    /// budget both cut pages, 25 % of items matching `match`.
    package static let configuration = StoreConfiguration(
        partitions: 5,
        itemsPerPartition: .uniform(40),
        itemSize: .fixed(512),
        selectivity: 0.25,
        scanBudgetBytes: 4096,
        seed: 7
    )

    package static func store(_ configuration: StoreConfiguration = TestStores.configuration) throws -> SyntheticStore {
        try SyntheticStore(configuration: configuration)
    }

    /// Every page of a traversal in-process, following tokens (bounded: a loop would be a bug).
    package static func pages(_ store: SyntheticStore, _ request: PageRequest) async throws -> [Page] {
        try await drain(request) { try await store.page($0) }
    }

    /// Every page of a traversal through `page` (a source, a replica, …), following tokens;
    /// `page` gets the request and the page's index. Fails past `maxPages` (a loop is a bug).
    package static func drain(
        _ request: PageRequest,
        maxPages: Int = 10_000,
        page: (PageRequest, Int) async throws -> Page
    ) async throws -> [Page] {
        var pages: [Page] = []
        var current = request
        for index in 0..<maxPages {
            let next = try await page(current, index)
            pages.append(next)
            guard let token = next.nextToken else { return pages }
            current.token = token
        }
        throw TestFailure("traversal of \(request) did not end within \(maxPages) pages")
    }

    package static func drain(
        _ request: PageRequest,
        maxPages: Int = 10_000,
        page: (PageRequest) async throws -> Page
    ) async throws -> [Page] {
        try await drain(request, maxPages: maxPages) { request, _ in try await page(request) }
    }

    /// The error the in-process store throws for `request`.
    package static func error(_ store: SyntheticStore, _ request: PageRequest) async -> StoreError? {
        do {
            _ = try await store.page(request)
            return nil
        } catch {
            return error as? StoreError
        }
    }
}

package struct TestFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Runs `body` against a live `StoreServer` (its own application, routes and connection
/// monitor) listening on an ephemeral loopback port; `body` gets `http://127.0.0.1:PORT`.
/// The server shuts down gracefully afterwards, whether `body` returns or throws.
package func withLiveServer<Result: Sendable>(
    _ server: StoreServer,
    _ body: (_ target: String) async throws -> Result
) async throws -> Result {
    try await withLiveServer(server, health: nil) { target, _ in try await body(target) }
}

/// ``withLiveServer(_:_:)`` with the server's health listener (`serve --health-port`) on an
/// ephemeral loopback port too; `body` gets both targets.
package func withLiveServerAndHealthPort<Result: Sendable>(
    _ server: StoreServer,
    _ body: (_ target: String, _ health: String) async throws -> Result
) async throws -> Result {
    guard let health = try await server.bindHealthListener(port: 0) else {
        throw TestFailure("the server has no health listener")
    }
    return try await withLiveServer(server, health: health) { target, health in
        try await body(target, health ?? "")
    }
}

private func withLiveServer<Result: Sendable>(
    _ server: StoreServer,
    health: HealthListener?,
    _ body: (_ target: String, _ health: String?) async throws -> Result
) async throws -> Result {
    let (ports, listening) = AsyncStream<Int>.makeStream()
    let app: any Service
    do {
        app = try server.makeService(port: 0) { port in
            listening.yield(port)
            listening.finish()
        }
    } catch {
        await health?.close()
        throw error
    }
    let serviceGroup = ServiceGroup(
        services: [app] + (health.map { [$0] } ?? []),
        logger: Logger(label: "pagebench.tests")
    )
    let healthTarget = health.map { "http://127.0.0.1:\($0.port)" }
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await serviceGroup.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            await serviceGroup.triggerGracefulShutdown()
            try await group.waitForAll()
            throw TestFailure("the live server reported no port")
        }
        let result: Result
        do {
            result = try await body("http://127.0.0.1:\(port)", healthTarget)
        } catch {
            await serviceGroup.triggerGracefulShutdown()
            try? await group.waitForAll()
            throw error
        }
        await serviceGroup.triggerGracefulShutdown()
        try await group.waitForAll()
        return result
    }
}

/// A response as ``TestHTTPClient`` received it.
package struct TestHTTPResponse: Sendable {
    package var status: HTTPResponse.Status
    package var headers: HTTPFields
    package var body: ByteBuffer

    /// The body as text.
    package var text: String { String(buffer: body) }
    /// The error body, or a failure naming what arrived instead.
    package func errorBody() throws -> ErrorBody {
        guard let body = ErrorBody.decode(body) else { throw TestFailure("not an error body: \(text)") }
        return body
    }
}

/// A plain HTTP/1.1 client for tests of the server's responses (status, headers, body) with
/// any method: one connection per request (`Connection: close`), NIOHTTP1's encoder and
/// decoder. The store source's own client only sends GETs and keeps no headers.
package struct TestHTTPClient: Sendable {
    package let host: String
    package let port: Int

    /// A client for `target` (`http://host:port`, as ``withLiveServer(_:_:)`` passes it).
    package init(_ target: String) throws {
        let authority = target.dropFirst("http://".count)
        guard target.hasPrefix("http://"), let colon = authority.lastIndex(of: ":"),
            let port = Int(authority[authority.index(after: colon)...])
        else { throw TestFailure("not an http://host:port target: \(target)") }
        host = String(authority[..<colon])
        self.port = port
    }

    package func execute(
        uri: String,
        method: HTTPMethod = .GET,
        headers: [(String, String)] = [],
        body: String? = nil
    ) async throws -> TestHTTPResponse {
        try await send(uri: uri, method: method, headers: headers, body: body).get()
    }

    /// The request of ``execute(uri:method:headers:body:)`` as a future, on `eventLoop`: for a
    /// test that must not need the cooperative pool to send it or see its answer.
    package func send(
        uri: String,
        method: HTTPMethod = .GET,
        headers: [(String, String)] = [],
        body: String? = nil,
        on eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()
    ) -> EventLoopFuture<TestHTTPResponse> {
        let promise = eventLoop.makePromise(of: TestHTTPResponse.self)
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: uri)
        head.headers.add(name: "Host", value: "\(host):\(port)")
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let body { head.headers.add(name: "Content-Length", value: String(body.utf8.count)) }
        let request = head
        let requestBody = body.map { ByteBuffer(string: $0) }
        ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        ResponseCollector(request: request, body: requestBody, promise: promise)
                    )
                }
            }
            .connect(host: host, port: port)
            .whenComplete { result in
                switch result {
                case .success(let channel): promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
                case .failure(let error): promise.fail(error)
                }
            }
        return promise.futureResult
    }
}

/// Sends one request once the connection is up and gathers its response.
private final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let request: HTTPRequestHead
    private let body: ByteBuffer?
    private let promise: EventLoopPromise<TestHTTPResponse>
    private var response: TestHTTPResponse?

    init(request: HTTPRequestHead, body: ByteBuffer?, promise: EventLoopPromise<TestHTTPResponse>) {
        self.request = request
        self.body = body
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(request)), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            var fields = HTTPFields()
            for (name, value) in head.headers {
                if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
            }
            response = TestHTTPResponse(
                status: HTTPResponse.Status(code: Int(head.status.code)),
                headers: fields,
                body: ByteBuffer()
            )
        case .body(var bytes):
            response?.body.writeBuffer(&bytes)
        case .end:
            if let response { promise.succeed(response) }
            response = nil
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(TestFailure("the connection closed before a whole response"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }
}

/// Polls `condition` every 10 ms until it holds or `limit` passes — for events the test
/// cannot await directly (a server counter changing). Returns whether it held. The bound is
/// generous on purpose: it costs time only when the condition never holds, and every suite
/// starts at once on a 2-thread cooperative pool, so a task the condition waits for may not
/// run for tens of seconds (a 20 s bound once let a test cancel a request that had not
/// been sent yet).
package func eventually(within limit: Duration = .seconds(180), _ condition: () -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: limit)
    while clock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
