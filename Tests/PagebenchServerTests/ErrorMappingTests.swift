import Foundation
import HTTPTypes
import HummingbirdCore
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Testing

/// Errors over HTTP: the status of ``StoreHTTPErrorCode`` and a JSON body carrying the
/// in-process code and message.
@Suite("Server error mapping")
struct ErrorMappingTests {
    private struct Case: Sendable, CustomStringConvertible {
        var name: String
        var request: PageRequest
        var status: HTTPResponse.Status
        var code: StoreError.Code
        var description: String { name }
    }

    /// A token the store issued for the scan with limit 5.
    private static func scanToken(_ store: SyntheticStore) async throws -> String {
        try #require(try await store.page(PageRequest(limit: 5)).nextToken)
    }

    @Test("S1 S14 S15 S17 S18: store errors keep their code and message; 400 / 404 / 409")
    func storeErrors() async throws {
        let store = try TestStores.store()
        let token = try await Self.scanToken(store)
        var tampered = Array(token)
        tampered[10] = tampered[10] == "A" ? "B" : "A"
        let cases: [Case] = [
            Case(name: "S1 limit 0", request: PageRequest(limit: 0), status: .badRequest, code: .invalidLimit),
            Case(
                name: "S17 garbage",
                request: PageRequest(token: "not-a-token"),
                status: .badRequest,
                code: .invalidToken
            ),
            Case(
                name: "S17 tampered",
                request: PageRequest(limit: 5, token: String(tampered)),
                status: .badRequest,
                code: .invalidToken
            ),
            Case(
                name: "S18 limit changed",
                request: PageRequest(limit: 6, token: token),
                status: .conflict,
                code: .tokenMismatch
            ),
            Case(
                name: "S18 reverse changed",
                request: PageRequest(reverse: true, limit: 5, token: token),
                status: .conflict,
                code: .tokenMismatch
            ),
            Case(
                name: "S19 token on a partition",
                request: PageRequest(range: .partition(1), limit: 5, token: token),
                status: .conflict,
                code: .tokenMismatch
            ),
            Case(
                name: "S15 index = total",
                request: PageRequest(range: .segment(index: 3, total: 3)),
                status: .badRequest,
                code: .invalidSegment
            ),
            Case(
                name: "S15 total 0",
                request: PageRequest(range: .segment(index: 0, total: 0)),
                status: .badRequest,
                code: .invalidSegment
            ),
            Case(
                name: "S14 unknown partition",
                request: PageRequest(range: .partition(5)),
                status: .notFound,
                code: .unknownPartition
            ),
            Case(
                name: "S14 negative partition",
                request: PageRequest(range: .partition(-1)),
                status: .notFound,
                code: .unknownPartition
            ),
        ]
        let server = StoreServer(store: store)
        try await withLiveServer(server) { target in
            let client = try TestHTTPClient(target)
            for testCase in cases {
                let inProcess = try #require(await TestStores.error(store, testCase.request), "\(testCase)")
                #expect(inProcess.code == testCase.code, "\(testCase)")
                let response = try await client.execute(
                    uri: PageQuery(request: testCase.request).pathAndQuery,
                    method: .GET
                )
                #expect(response.status == testCase.status, "\(testCase): \(response.text)")
                let body = try response.errorBody()
                #expect(
                    body == ErrorBody(code: testCase.code.rawValue, message: inProcess.message, retryable: false),
                    "\(testCase)"
                )
            }
        }
    }

    @Test("S21: throttled is 429 with Retry-After, an injected fault 503; both retryable")
    func s21InjectedFailures() async throws {
        let throttling = StoreServer(
            store: try TestStores.store(
                StoreConfiguration(partitions: 2, itemsPerPartition: .uniform(10), throttleRate: 1)
            ),
            configuration: .init(retryAfterSeconds: 3)
        )
        let throttled = try await withLiveServer(throttling) { target in
            let client = try TestHTTPClient(target)
            return try await client.execute(uri: "/scan", method: .GET)
        }
        #expect(throttled.status == .tooManyRequests)
        #expect(throttled.headers[.retryAfter] == "3")
        let throttledBody = try throttled.errorBody()
        #expect(throttledBody.code == "throttled")
        #expect(throttledBody.retryable)
        #expect(throttledBody.message.contains("throttled (injected, S21)"))

        let faulty = StoreServer(
            store: try TestStores.store(
                StoreConfiguration(partitions: 2, itemsPerPartition: .uniform(10), faultRate: 1)
            )
        )
        let fault = try await withLiveServer(faulty) { target in
            let client = try TestHTTPClient(target)
            return try await client.execute(uri: "/partitions/1/items?limit=2", method: .GET)
        }
        #expect(fault.status == .serviceUnavailable)
        #expect(fault.headers[.retryAfter] == nil)
        let faultBody = try fault.errorBody()
        #expect(faultBody.code == "injectedFault")
        #expect(faultBody.retryable)
    }

    @Test(
        "bad query parameters and path segments are 400 invalidParameter with a clear message",
        arguments: [
            ("/scan?limit=abc", "query parameter limit='abc' is not a whole number; use e.g. limit=100"),
            ("/scan?reverse=yes", "query parameter reverse='yes' must be true, false, 1 or 0"),
            ("/scan?filter=match&filter=match", "query parameter 'filter' is given more than once; give it once"),
            (
                "/scan?cursor=x",
                "unknown query parameter 'cursor'; accepted: limit, filter, reverse, nextToken, payload"
            ),
            ("/partitions/one/items", "path segment partition 'one' is not a whole number"),
            ("/scan/segments/0/many", "path segment total 'many' is not a whole number"),
            ("/scan/segments/x/2", "path segment index 'x' is not a whole number"),
        ]
    )
    func badParameters(uri: String, message: String) async throws {
        let server = StoreServer(store: try TestStores.store())
        let response = try await withLiveServer(server) { target in
            let client = try TestHTTPClient(target)
            return try await client.execute(uri: uri, method: .GET)
        }
        #expect(response.status == .badRequest)
        #expect(try response.errorBody() == ErrorBody(code: .invalidParameter, message: message))
        #expect(server.statistics.requestsStarted == 0, "a rejected request never reaches the store")
    }

    /// (Another method on a known route is 405: ServerAbuseTests.)
    @Test("unknown routes are 404 notFound listing the endpoints, whatever the method")
    func unknownRoute() async throws {
        let server = StoreServer(store: try TestStores.store())
        let responses = try await withLiveServer(server) { target in
            let client = try TestHTTPClient(target)
            return [
                try await client.execute(uri: "/items", method: .GET),
                try await client.execute(uri: "/partitions/1", method: .GET),
                try await client.execute(uri: "/scans", method: .POST),
            ]
        }
        for response in responses {
            #expect(response.status == .notFound)
            let body = try response.errorBody()
            #expect(body.code == "notFound")
            #expect(
                body.message.contains(
                    "endpoints: GET /partitions/{p}/items, GET /scan, GET /scan/segments/{i}/{n}, GET /health"
                )
            )
        }
    }

    @Test("every code maps to its documented status; only 429 and 503 are retryable")
    func statusTable() {
        let expected: [StoreError.Code: Int] = [
            .invalidLimit: 400, .invalidToken: 400, .invalidSegment: 400, .invalidConfiguration: 400,
            .unknownPartition: 404, .tokenMismatch: 409, .throttled: 429, .injectedFault: 503,
        ]
        for code in StoreError.Code.allCases {
            let httpCode = StoreHTTPErrorCode.store(code)
            #expect(httpCode.status.code == expected[code], "\(code)")
            #expect(httpCode.pageErrorKind.isRetryable == (code == .throttled || code == .injectedFault))
            #expect(StoreHTTPErrorCode(name: httpCode.name) == httpCode)
        }
        #expect(StoreHTTPErrorCode.invalidParameter.status.code == 400)
        #expect(StoreHTTPErrorCode.notFound.status.code == 404)
        #expect(StoreHTTPErrorCode.internalError.status.code == 500)
        #expect(StoreHTTPErrorCode(name: "somethingNew") == nil)
    }
}
