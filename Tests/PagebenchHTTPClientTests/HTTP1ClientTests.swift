import NIOCore
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchStore
import Synchronization
import Testing

@testable import PagebenchHTTPClient
@testable import PagebenchServer
@testable import PagebenchWire

/// The HTTP/1.1 client under ``HTTPStoreSource`` against a scripted server
/// (``ScriptedHTTPServer``): keep-alive reuse, servers that close, break or stall
/// connections, error statuses, malformed responses, cancellation.
@Suite("HTTP/1.1 client")
struct HTTP1ClientTests {
    static let item = Item(partition: 1, sortKey: 2, sizeBytes: 3, category: 0, fingerprint: 0xFEED)

    /// A page body with one item and `token`.
    static func pageBody(token: String?) -> String {
        String(
            buffer: PageBody.encode(
                Page(items: [item], scannedCount: 1, scannedBytes: 3, nextToken: token),
                includePayload: false
            )
        )
    }

    static let okPage = ScriptedHTTPServer.response(200, pageBody(token: "abc"))

    /// Runs `body` with a scripted server and a source for it (`prefix` appended to its URL).
    func withScripted<Result: Sendable>(
        prefix: String = "",
        configuration: HTTPStoreSource.Configuration = .init(connections: 2),
        _ script: @escaping ScriptedHTTPServer.Script,
        _ body: (ScriptedHTTPServer, HTTPStoreSource) async throws -> Result
    ) async throws -> Result {
        let server = try await ScriptedHTTPServer(script)
        do {
            let result = try await HTTPStoreSource.withSource(
                target: server.target + prefix,
                configuration: configuration
            ) {
                try await body(server, $0)
            }
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    @Test("keep-alive: sequential requests share one connection; the path prefix and query reach the server")
    func keepAliveReuse() async throws {
        let (lines, connections, counts, pages) = try await withScripted(prefix: "/v2/") { _, _, _ in
            .respond(Self.okPage)
        } _: {
            server,
            source in
            var pages: [Page] = []
            for _ in 0..<5 { pages.append(try await source.page(PageRequest(range: .scan, limit: 7))) }
            return (server.requestLines, server.connectionsAccepted, source.statusCounts, pages)
        }
        #expect(connections == 1)
        #expect(lines.count == 5)
        #expect(
            lines.allSatisfy { $0.hasPrefix("GET /v2/scan?") && $0.contains("limit=7") && $0.hasSuffix(" HTTP/1.1") },
            "\(lines)"
        )
        #expect(pages.allSatisfy { $0.items == [Self.item] && $0.nextToken == "abc" })
        #expect(counts == HTTPStatusCounts(byStatus: [200: 5]))
    }

    @Test("a pool of 1 connection serves 6 concurrent requests one after another")
    func waitersShareTheConnection() async throws {
        let (connections, counts) = try await withScripted(configuration: .init(connections: 1)) { _, _, _ in
            .respond(Self.okPage)
        } _: { server, source in
            try await withThrowingTaskGroup(of: Page.self) { group in
                for _ in 0..<6 { group.addTask { try await source.page(PageRequest()) } }
                for try await _ in group {}
            }
            return (server.connectionsAccepted, source.statusCounts)
        }
        #expect(connections == 1)
        #expect(counts == HTTPStatusCounts(byStatus: [200: 6]))
    }

    @Test("the server closes after a response: the next request opens a new connection")
    func serverClosesAfterResponse() async throws {
        let (connections, counts) = try await withScripted { _, _, _ in
            .respondAndClose(Self.okPage)
        } _: { server, source in
            for _ in 0..<3 { _ = try await source.page(PageRequest()) }
            return (server.connectionsAccepted, source.statusCounts)
        }
        #expect(connections == 3)
        #expect(counts == HTTPStatusCounts(byStatus: [200: 3]))
    }

    @Test("a reused keep-alive connection closed without an answer: the GET is repeated once on a new connection")
    func staleConnectionIsRetried() async throws {
        let (lines, connections, counts) = try await withScripted(configuration: .init(connections: 1)) {
            connection,
            request,
            _ in
            // Connection 0 answers its first request, then closes on the second (as a server
            // closing an idle connection does, racing the request).
            connection == 0 && request == 1 ? .close : .respond(Self.okPage)
        } _: { server, source in
            _ = try await source.page(PageRequest())
            _ = try await source.page(PageRequest())
            return (server.requestLines.count, server.connectionsAccepted, source.statusCounts)
        }
        #expect(lines == 3)
        #expect(connections == 2)
        #expect(counts == HTTPStatusCounts(byStatus: [200: 2]))
    }

    @Test("a fresh connection closed without an answer is a retryable transport failure, not repeated")
    func closedWithoutAnswer() async throws {
        let (error, lines, counts) = try await withScripted { _, _, _ in
            .close
        } _: { server, source in
            let error = await #expect(throws: HTTPSourceError.self) { try await source.page(PageRequest()) }
            return (error, server.requestLines.count, source.statusCounts)
        }
        #expect(lines == 1)
        #expect(error?.code == .transport)
        #expect(error?.pageErrorKind == .transport)
        #expect(error?.message.contains("closed the connection before answering") == true)
        #expect(counts == HTTPStatusCounts(byStatus: [:], transportFailures: 1))
    }

    @Test(
        "a fresh connection the server closed before the request was sent on it: the request goes on a new connection"
    )
    func closedBeforeSendingIsRepeated() async throws {
        // The server closes connection 0 on accept, as its idle timeout does when the task
        // that opened the connection waits long for a thread before it sends (seen in CI:
        // `pagebench serve`'s 60 s idle timeout under a saturated test process). The send
        // below waits until the client has seen that close, so the request is never written.
        let server = try await ScriptedHTTPServer(closesOnAccept: { $0 == 0 }) { _, _, _ in .respond(Self.okPage) }
        let pool = HTTP1ConnectionPool(
            endpoint: .init(
                host: "127.0.0.1",
                port: Int(server.target.split(separator: ":").last!)!,
                hostHeader: "127.0.0.1"
            ),
            capacity: 1,
            group: .singleton,
            connectTimeout: .seconds(10),
            requestTimeout: .seconds(600),
            maximumBodyBytes: 1 << 20
        )
        let counter = HTTPStatusCounter()
        let attempts = Mutex<[HTTP1ConnectionError?]>([])
        let response = try await pool.request(counting: counter) {
            (connection, deadline) throws(HTTP1ConnectionError) in
            while connection.isReusable && attempts.withLock({ $0.isEmpty }) {
                try? await Task.sleep(for: .milliseconds(5))
            }
            do throws(HTTP1ConnectionError) {
                let response = try await connection.get("/scan", deadline: deadline)
                attempts.withLock { $0.append(nil) }
                return response
            } catch {
                attempts.withLock { $0.append(error) }
                throw error
            }
        }
        await pool.shutdown()
        await server.shutdown()
        let errors = attempts.withLock { $0.map { $0.map { "\($0)" } } }
        #expect(errors == ["the server closed the connection before the request was sent on it", nil])
        #expect(response.status == 200)
        #expect(server.requestLines.count == 1)
        #expect(server.connectionsAccepted == 2)
        #expect(counter.snapshot == HTTPStatusCounts(byStatus: [200: 1]))
    }

    @Test("the server closes mid-body: a transport failure naming it; the next request works on a new connection")
    func closedMidBody() async throws {
        let (error, page, counts) = try await withScripted { connection, _, _ in
            connection == 0
                ? .respondAndClose("HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"items\":[") : .respond(Self.okPage)
        } _: { _, source in
            let error = await #expect(throws: HTTPSourceError.self) { try await source.page(PageRequest()) }
            let page = try await source.page(PageRequest())
            return (error, page, source.statusCounts)
        }
        #expect(error?.code == .transport)
        #expect(error?.message.contains("part way through the response") == true)
        #expect(page.nextToken == "abc")
        #expect(counts == HTTPStatusCounts(byStatus: [200: 1], transportFailures: 1))
    }

    @Test("non-2xx: a store error body maps to the store's error, anything else keeps the server's body in the message")
    func errorStatuses() async throws {
        let throttled = ErrorBody(code: StoreHTTPErrorCode.store(.throttled), message: "slow down").encoded()
        let notFound = ErrorBody(code: "notFound", message: "no endpoint GET /x", retryable: false).encoded()
        let responses = [
            ScriptedHTTPServer.response(429, String(buffer: throttled), headers: "Retry-After: 1\r\n"),
            ScriptedHTTPServer.response(404, String(buffer: notFound)),
            ScriptedHTTPServer.response(502, "<html>bad gateway</html>"),
            ScriptedHTTPServer.response(503, ""),
        ]
        let (errors, counts) = try await withScripted(configuration: .init(connections: 1)) { _, request, _ in
            .respond(responses[request])
        } _: { _, source in
            var errors: [any Error] = []
            for _ in responses {
                do {
                    _ = try await source.page(PageRequest())
                } catch {
                    errors.append(error)
                }
            }
            return (errors.map { "\($0)" }, source.statusCounts)
        }
        try #require(errors.count == 4)
        #expect(errors[0].contains("slow down"))
        #expect(errors[1].contains("HTTP 404 notFound: no endpoint GET /x"))
        #expect(errors[2].contains("HTTP 502") && errors[2].contains("<html>bad gateway</html>"))
        #expect(errors[3].contains("HTTP 503"))
        #expect(counts == HTTPStatusCounts(byStatus: [429: 1, 404: 1, 502: 1, 503: 1]))
    }

    @Test(
        "S21, T3: the served store's throttling answers are thrown at once, Retry-After or not (the retry policy paces them, as in-process); a proxy's 503 is a retryable throttle"
    )
    func s21t3ServedThrottlingIsPacedByTheRetryPolicyNotRetryAfter() async throws {
        let throttled = ErrorBody(code: StoreHTTPErrorCode.store(.throttled), message: "slow down").encoded()
        let responses = [
            ScriptedHTTPServer.response(429, String(buffer: throttled), headers: "Retry-After: 7\r\n"),
            ScriptedHTTPServer.response(429, String(buffer: throttled), headers: "Retry-After: 120\r\n"),
            ScriptedHTTPServer.response(503, "<html>proxy</html>"),
            ScriptedHTTPServer.response(404, "<html>no</html>", headers: "Retry-After: 9\r\n"),
            Self.okPage,
        ]
        let server = try await ScriptedHTTPServer { _, request, _ in .respond(responses[request]) }
        let waits = HTTPPageExchangeTests.Waits()
        let source = try HTTPStoreSource(target: server.target, configuration: .init(connections: 1)) {
            waits.record($0)
        }
        var errors: [any Error] = []
        for _ in 0..<4 {
            do {
                _ = try await source.page(PageRequest())
            } catch {
                errors.append(error)
            }
        }
        let page = try await source.page(PageRequest())
        let throttles = source.throttles
        try await source.shutdown()
        await server.shutdown()
        try #require(errors.count == 4)
        // The store's own body: its StoreError; a proxy's 503: a retryable throttled PageError.
        #expect((errors[0] as? StoreError)?.code == .throttled)
        let proxy = errors[2] as? PageError
        #expect(proxy?.kind == .throttled)
        #expect(proxy?.status == 503)
        #expect(!PageError.isRetryable(errors[3]))
        #expect(waits.all == [])
        #expect(throttles == 3)
        #expect(page.nextToken == "abc")
    }

    @Test(
        "malformed responses are refused with NIOHTTP1's reason, counted as transport failures",
        arguments: [
            ("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", "invalid HTTP status code"),
            ("SPDY/3 200 OK\r\n\r\n", "invalid constant string"),
            ("HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n", "invalid character in content-length header"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}EXTRA", "bytes after the response"),
        ]
    )
    func malformed(response: String, reason: String) async throws {
        let (error, counts) = try await withScripted { _, _, _ in
            .respond(response)
        } _: { _, source in
            (await #expect(throws: HTTPSourceError.self) { try await source.page(PageRequest()) }, source.statusCounts)
        }
        if reason == "bytes after the response" {
            // The response itself was complete (an empty object is not a page body).
            #expect(error?.code == .unexpectedResponse)
            #expect(counts[200] == 1)
        } else {
            #expect(error?.code == .unexpectedResponse)
            #expect(error?.message.contains("malformed HTTP response") == true)
            #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
            #expect(counts == HTTPStatusCounts(byStatus: [:], transportFailures: 1))
        }
    }

    @Test("a chunked response and a body delimited by the connection's end are read whole")
    func chunkedAndUntilClose() async throws {
        let body = Self.pageBody(token: nil)
        let split = body.utf8.count / 2
        let first = String(body.utf8.prefix(split))!
        let second = String(body.utf8.dropFirst(split))!
        let chunked =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + String(first.utf8.count, radix: 16) + ";ext=1\r\n" + first + "\r\n"
            + String(second.utf8.count, radix: 16) + "\r\n" + second + "\r\n0\r\nX-Trailer: y\r\n\r\n"
        let untilClose = "HTTP/1.0 200 OK\r\n\r\n" + body
        let pages = try await withScripted { _, request, _ in
            request == 0 ? .respond(chunked) : .respondAndClose(untilClose)
        } _: { _, source in
            [try await source.page(PageRequest()), try await source.page(PageRequest())]
        }
        #expect(pages.map(\.items) == [[Self.item], [Self.item]])
        #expect(pages.map(\.nextToken) == [nil, nil])
    }

    /// One connection, and a read timeout no loaded test machine reaches: the hanging
    /// request must end by its cancellation, never by the timeout (all suites start at once,
    /// and a test task may wait tens of seconds for a thread of the cooperative pool).
    static let oneConnectionNoReadTimeout = HTTPStoreSource.Configuration(connections: 1, requestTimeout: .seconds(600))

    @Test("P11 S20: cancelling a request in flight throws CancellationError, closes its connection, frees its slot")
    func cancellation() async throws {
        let (outcome, closed, next) = try await withScripted(configuration: Self.oneConnectionNoReadTimeout) {
            _,
            request,
            _ in
            request == 0 ? .hang : .respond(Self.okPage)
        } _: { server, source in
            let task = Task { try await source.page(PageRequest()) }
            // The hanging request must reach the server before the cancel: a cancel that
            // comes first stops it in the client, and the next request would be request 0.
            try #require(try await eventually { server.requestLines.count == 1 })
            task.cancel()
            let outcome: String
            do {
                _ = try await task.value
                outcome = "returned a page"
            } catch is CancellationError {
                outcome = "cancelled"
            } catch {
                outcome = "threw \(error)"
            }
            let closed = try await eventually { server.connectionsClosed == 1 }
            // The pool's only slot is free again: the next request gets a new connection.
            let next = try await source.page(PageRequest())
            return (outcome, closed, next)
        }
        #expect(outcome == "cancelled")
        #expect(closed)
        #expect(next.nextToken == "abc")
    }

    @Test("a task cancelled while waiting for a connection leaves the pool usable")
    func cancelledWhileWaiting() async throws {
        let outcome = try await withScripted(configuration: Self.oneConnectionNoReadTimeout) { _, request, _ in
            request == 0 ? .hang : .respond(Self.okPage)
        } _: { server, source in
            let holder = Task { try await source.page(PageRequest()) }
            // The hanging request must reach the server before the cancel: a cancel that
            // comes first stops it in the client, and the next request would be request 0.
            try #require(try await eventually { server.requestLines.count == 1 })
            let waiter = Task { try await source.page(PageRequest()) }
            waiter.cancel()
            let waiterResult = await waiter.result
            holder.cancel()
            _ = await holder.result
            let next = try await source.page(PageRequest())
            return (waiterResult, next)
        }
        #expect(throws: CancellationError.self) { try outcome.0.get() }
        #expect(outcome.1.nextToken == "abc")
    }

    @Test("no bytes within the request timeout: a retryable transport failure naming the timeout")
    func requestTimeout() async throws {
        let error = try await withScripted(configuration: .init(connections: 1, requestTimeout: .milliseconds(100))) {
            _,
            _,
            _ in
            .hang
        } _: { _, source in
            await #expect(throws: HTTPSourceError.self) { try await source.page(PageRequest()) }
        }
        #expect(error?.code == .transport)
        #expect(error?.message.contains("no complete response within 0.1 seconds") == true, "\(error?.message ?? "")")
    }

    /// T5 (issue 24): a body that drips one byte every 50 ms never left a 100 ms gap, so a
    /// timeout between bytes never fired (a 2 s one waited out a 45 s body). The timeout is
    /// a deadline for the whole response: the request fails at it, long before the 600
    /// bytes (30 s) have dripped. Nothing is timed: the drip only has to outlast the deadline.
    @Test("T5: a body that drips a byte at a time fails at the request's deadline, for both clients")
    func t5ADrippingBodyFailsAtTheDeadline() async throws {
        let page = Self.pageBody(token: "abc")
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(page.utf8.count + 600)\r\n\r\n"
        let drip = ScriptedHTTPServer.Action.drip(
            head: head,
            body: page + String(repeating: " ", count: 600),
            every: .milliseconds(50)
        )
        let storeError = try await withScripted(configuration: .init(connections: 1, requestTimeout: .seconds(1))) {
            _,
            _,
            _ in
            drip
        } _: { _, source in
            await #expect(throws: HTTPSourceError.self) { try await source.page(PageRequest()) }
        }
        #expect(storeError?.code == .transport)
        #expect(
            storeError?.message.contains("no complete response within 1.0 seconds") == true,
            "\(storeError?.message ?? "")"
        )

        let server = try await ScriptedHTTPServer { _, _, _ in drip }
        let client = try HTTPRequestClient(
            baseURL: server.target,
            configuration: .init(connections: 1, requestTimeout: .seconds(1))
        )
        let clientError = await #expect(throws: HTTPSourceError.self) {
            try await client.send(.init(method: "GET", pathAndQuery: "/items"))
        }
        await client.shutdown()
        await server.shutdown()
        #expect(
            clientError?.message.contains("no complete response within 1.0 seconds") == true,
            "\(clientError?.message ?? "")"
        )
        #expect(client.statusCounts == HTTPStatusCounts(byStatus: [:], transportFailures: 1))
    }

    /// T5: the deadline runs from connecting to the last byte; the wait for a free
    /// connection of a full pool is the client's own queue and does not count. Each of 4
    /// concurrent requests on a pool of 1 connection takes about 2 s (a body dripped over 4
    /// half-seconds), so the last waits about 6 s for the connection, past its 5 s timeout:
    /// it used to fail at once when it got the connection. Nothing is timed: each request
    /// alone only has to fit in 5 s.
    @Test("T5: waiting for a free pooled connection does not count against a request's deadline")
    func t5PoolQueueTimeIsNotTheTargets() async throws {
        let page = Self.pageBody(token: "abc")
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(page.utf8.count + 4)\r\n\r\n"
        let drip = ScriptedHTTPServer.Action.drip(head: head + page, body: "    ", every: .milliseconds(500))
        let counts = try await withScripted(configuration: .init(connections: 1, requestTimeout: .seconds(5))) {
            _,
            _,
            _ in
            drip
        } _: { _, source in
            try await withThrowingTaskGroup(of: Page.self) { group in
                for _ in 0..<4 { group.addTask { try await source.page(PageRequest()) } }
                for try await _ in group {}
            }
            return source.statusCounts
        }
        #expect(counts == HTTPStatusCounts(byStatus: [200: 4]))
    }

    /// T5: a request whose deadline has already passed when its connection would be opened
    /// (its task was not run for that long) fails naming the timeout and by how much, instead
    /// of a connect timeout of "1 ns"; no connection is attempted and its slot is given back,
    /// so the next request connects.
    @Test("T5: a deadline that passed before connecting fails plainly and gives the slot back")
    func t5ADeadlinePassedBeforeConnectingGivesTheSlotBack() async throws {
        let server = try await ScriptedHTTPServer { _, _, _ in .respond(Self.okPage) }
        let pool = HTTP1ConnectionPool(
            endpoint: .init(
                host: "127.0.0.1",
                port: Int(server.target.split(separator: ":").last!)!,
                hostHeader: "127.0.0.1"
            ),
            capacity: 1,
            group: .singleton,
            connectTimeout: .seconds(10),
            requestTimeout: .seconds(30),
            maximumBodyBytes: 1 << 20
        )
        let error = await #expect(throws: HTTP1ConnectionPool.DeadlinePassed.self) {
            _ = try await pool.lease(deadline: .now() - .seconds(2))
        }
        #expect(
            error?.description.contains("the request timeout (30.0 seconds) passed before connecting began, by 2.")
                == true,
            "\(String(describing: error))"
        )
        #expect(server.connectionsAccepted == 0)
        let response = try await pool.request(counting: HTTPStatusCounter()) {
            (connection, deadline) throws(HTTP1ConnectionError) in
            try await connection.get("/scan", deadline: deadline)
        }
        #expect(response.status == 200)
        await pool.shutdown()
        await server.shutdown()
    }

    @Test("a body over maximumResponseBytes is refused before it is read")
    func bodyTooLarge() async throws {
        let error = try await withScripted(configuration: .init(connections: 1, maximumResponseBytes: 10)) { _, _, _ in
            .respond(Self.okPage)
        } _: { _, source in
            await #expect(throws: HTTPSourceError.self) { try await source.page(PageRequest()) }
        }
        #expect(error?.message.contains("larger than the 10 bytes accepted") == true)
    }
}
