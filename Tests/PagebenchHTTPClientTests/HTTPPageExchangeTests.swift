import NIOCore
import PagebenchHTTPClient
import PagebenchPage
import Synchronization
import Testing

/// Issue 28: the one page exchange of every HTTP page source (the served store's, a target
/// file's): throttling (T3), `Retry-After`, non-page answers and P9, read in one order
/// whatever the API. A scripted codec and answers: no server, no socket, no sleeping (the
/// waits are recorded, not taken).
@Suite("HTTP page exchange")
struct HTTPPageExchangeTests {
    /// An API whose pages are `{"token": …}` bodies (empty: the last page) and whose error
    /// body `slow` is its own throttling answer.
    struct Codec: HTTPPageCodec {
        struct OwnError: Error, CustomStringConvertible {
            let description: String
        }

        func outgoing(for request: PageRequest) -> String { "/items?token=\(request.token ?? "")" }
        func describe(_ outgoing: String) -> String { "GET http://api" + outgoing }
        func page(from body: ByteBuffer, for request: PageRequest, sent outgoing: String) throws -> Page {
            let token = String(buffer: body)
            return Page(items: [], scannedCount: 0, scannedBytes: 0, nextToken: token.isEmpty ? nil : token)
        }
        func failure(status: Int, body: ByteBuffer, sent outgoing: String) -> any Error {
            if String(buffer: body) == "slow" { return PageError(.throttled, "own throttling answer", status: status) }
            return OwnError(description: "\(describe(outgoing)) answered HTTP \(status)")
        }
        func repeatedContinuation(sent outgoing: String) -> any Error {
            OwnError(description: "\(describe(outgoing)) repeated its continuation")
        }
    }

    final class Waits: Sendable {
        let recorded = Mutex<[Duration]>([])
        var all: [Duration] { recorded.withLock { $0 } }
        func record(_ duration: Duration) { recorded.withLock { $0.append(duration) } }
    }

    /// The error `answer` gives, the waits it caused, and the throttles counted.
    func outcome(
        _ answer: HTTPPageAnswer,
        token: String? = nil
    ) async -> (error: (any Error)?, waits: [Duration], throttles: Int) {
        let waits = Waits()
        let exchange = HTTPPageExchange(codec: Codec()) { waits.record($0) }
        do {
            _ = try await exchange.page(PageRequest(range: .scan, token: token)) { _ in answer }
            return (nil, waits.all, exchange.throttles)
        } catch {
            return (error, waits.all, exchange.throttles)
        }
    }

    @Test("T3: 429 and 503 are retryable throttling answers whatever the codec says; Retry-After is waited out first")
    func t3StatusThrottling() async {
        for status in [429, 503] {
            let (error, waits, throttles) = await outcome(
                HTTPPageAnswer(status: status, body: ByteBuffer(string: "busy"), retryAfterSeconds: 3)
            )
            let pageError = error as? PageError
            #expect(pageError?.kind == .throttled && pageError?.status == status, "\(String(describing: error))")
            #expect(
                pageError?.message
                    == "GET http://api/items?token= \(status == 429 ? "throttled" : "unavailable") (HTTP \(status))"
            )
            #expect(waits == [.seconds(3)])
            #expect(throttles == 1)
        }
    }

    @Test("T3: Retry-After is capped at 30 s; none, or 0, is not waited")
    func t3RetryAfterIsCapped() async {
        #expect(
            await outcome(HTTPPageAnswer(status: 429, body: ByteBuffer(), retryAfterSeconds: 3600)).waits == [
                .seconds(30)
            ]
        )
        #expect(await outcome(HTTPPageAnswer(status: 429, body: ByteBuffer(), retryAfterSeconds: 0)).waits == [])
        #expect(await outcome(HTTPPageAnswer(status: 503, body: ByteBuffer())).waits == [])
    }

    @Test("T3: the codec's own retryable reading of another status is a throttling answer too (DynamoDB's 400 types)")
    func t3CodecThrottling() async {
        let (error, waits, throttles) = await outcome(
            HTTPPageAnswer(status: 400, body: ByteBuffer(string: "slow"), retryAfterSeconds: 2)
        )
        #expect((error as? PageError)?.message == "own throttling answer")
        #expect(waits == [.seconds(2)] && throttles == 1)
    }

    @Test("T2: any other status is the codec's error, at once: no wait, no throttle")
    func t2OtherStatuses() async {
        for status in [400, 401, 404, 500, 502] {
            let (error, waits, throttles) = await outcome(
                HTTPPageAnswer(status: status, body: ByteBuffer(), retryAfterSeconds: 5)
            )
            #expect("\(String(describing: error))".contains("answered HTTP \(status)"))
            #expect(!PageError.isRetryable(error!))
            #expect(waits == [] && throttles == 0)
        }
    }

    @Test("P9: a page whose continuation is the one sent is the codec's repeated-continuation error; another is a page")
    func p9RepeatedContinuation() async throws {
        let (error, _, _) = await outcome(HTTPPageAnswer(status: 200, body: ByteBuffer(string: "t1")), token: "t1")
        #expect(error.map { "\($0)" } == "GET http://api/items?token=t1 repeated its continuation")
        let exchange = HTTPPageExchange(codec: Codec())
        let next = try await exchange.page(PageRequest(range: .scan, token: "t1")) { _ in
            HTTPPageAnswer(status: 200, body: ByteBuffer(string: "t2"))
        }
        #expect(next.nextToken == "t2")
        let first = try await exchange.page(PageRequest(range: .scan)) { _ in
            HTTPPageAnswer(status: 200, body: ByteBuffer(string: "t1"))
        }
        #expect(first.nextToken == "t1")
    }

    @Test("cancellation during a Retry-After wait passes through untouched")
    func cancellationDuringTheWait() async {
        let exchange = HTTPPageExchange(codec: Codec()) { _ in throw CancellationError() }
        await #expect(throws: CancellationError.self) {
            try await exchange.page(PageRequest(range: .scan)) { _ in
                HTTPPageAnswer(status: 429, body: ByteBuffer(), retryAfterSeconds: 1)
            }
        }
    }
}
