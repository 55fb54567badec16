import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import PagebenchHTTPClient
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Testing

/// ``HTTPStoreSource`` against a live server on a loopback ephemeral port.
@Suite("HTTP store source")
struct HTTPStoreSourceTests {
    @Test(
        "S8 S10: draining through the source gives the in-process pages; statuses are counted",
        arguments: HTTPStoreSource.Client.allCases.filter(\.isAvailable)
    )
    func drainMatchesInProcess(client: HTTPStoreSource.Client) async throws {
        let store = try TestStores.store()
        let requests = [
            PageRequest(range: .scan, limit: 9, filter: .matching),
            PageRequest(range: .partition(3), reverse: true, limit: 4),
            PageRequest(range: .segment(index: 0, total: 4), filter: .sizeAtLeast(1)),
        ]
        var expected: [[Page]] = []
        for request in requests { expected.append(try await TestStores.pages(store, request)) }
        let pageCount = expected.map(\.count).reduce(0, +)
        let (received, counts, health) = try await withLiveServer(StoreServer(store: store)) { target in
            try await HTTPStoreSource.withSource(
                target: target + "/",
                configuration: .init(connections: 2, client: client)
            ) { source in
                var received: [[Page]] = []
                for request in requests {
                    received.append(try await TestStores.drain(request, maxPages: 1000) { try await source.page($0) })
                }
                return (received, source.statusCounts, try await source.health())
            }
        }
        #expect(received == expected)
        #expect(counts == HTTPStatusCounts(byStatus: [200: pageCount]))  // taken before the health request
        #expect(health.configurationHash == store.configurationHash)
    }

    @Test(
        "S17 S18 S1 S14 S15 S21: the source throws the store's own errors, with the same code and message",
        arguments: HTTPStoreSource.Client.allCases.filter(\.isAvailable)
    )
    func errorsMapBack(client: HTTPStoreSource.Client) async throws {
        let store = try TestStores.store()
        let token = try #require(try await store.page(PageRequest(limit: 5)).nextToken)
        let requests = [
            PageRequest(limit: 0),
            PageRequest(token: "zzzz"),
            PageRequest(limit: 6, token: token),
            PageRequest(range: .partition(9)),
            PageRequest(range: .segment(index: 2, total: 1)),
        ]
        var expected: [StoreError] = []
        for request in requests { expected.append(try #require(await TestStores.error(store, request))) }
        let (errors, counts) = try await withLiveServer(StoreServer(store: store)) { target in
            try await HTTPStoreSource.withSource(target: target, configuration: .init(client: client)) { source in
                var errors: [StoreError?] = []
                for request in requests {
                    do {
                        _ = try await source.page(request)
                        errors.append(nil)
                    } catch {
                        errors.append(error as? StoreError)
                    }
                }
                return (errors, source.statusCounts)
            }
        }
        #expect(errors == expected.map { $0 })
        #expect(counts == HTTPStatusCounts(byStatus: [400: 3, 409: 1, 404: 1]))
    }

    @Test("S21: 429 and 503 come back as retryable throttled and injectedFault")
    func s21RetryableFailures() async throws {
        for (rate, code, status) in [
            (\StoreConfiguration.throttleRate, StoreError.Code.throttled, 429), (\.faultRate, .injectedFault, 503),
        ] {
            var configuration = StoreConfiguration(partitions: 2, itemsPerPartition: .uniform(10))
            configuration[keyPath: rate] = 1
            let (error, counts) = try await withLiveServer(StoreServer(store: try TestStores.store(configuration))) {
                target in
                try await HTTPStoreSource.withSource(target: target) { source in
                    let error = await #expect(throws: StoreError.self) { try await source.page(PageRequest()) }
                    return (error, source.statusCounts)
                }
            }
            #expect(error?.code == code)
            #expect(error?.isRetryable == true)
            #expect(counts[status] == 1)
        }
    }

    @Test("HTTP-only failures: a route that does not exist is `rejected` naming the server's code")
    func rejected() async throws {
        let error = try await withLiveServer(StoreServer(store: try TestStores.store())) { target in
            try await HTTPStoreSource.withSource(target: target + "/v2") { source in
                await #expect(throws: HTTPSourceError.self) { try await source.page(PageRequest()) }
            }
        }
        #expect(error?.code == .rejected)
        #expect(error?.status == 404)
        #expect(error?.serverCode == "notFound")
        #expect(error?.message.contains("no endpoint GET /v2/scan") == true)
    }

    @Test("nobody listening: a transport failure, counted, retryable")
    func transportFailure() async throws {
        // Bind and release an ephemeral port: nothing listens on it afterwards.
        let port = try await withLiveServer(StoreServer(store: try TestStores.store())) { target in
            Int(target.split(separator: ":").last!)!
        }
        let (error, counts) = try await HTTPStoreSource.withSource(target: "http://localhost:\(port)") { source in
            let error = await #expect(throws: HTTPSourceError.self) { try await source.page(PageRequest()) }
            return (error, source.statusCounts)
        }
        #expect(error?.code == .transport)
        #expect(error?.pageErrorKind == .transport)
        #expect(error?.message.contains("is `pagebench serve` running there and reachable?") == true)
        #expect(counts == HTTPStatusCounts(byStatus: [:], transportFailures: 1))
    }

    @Test(
        "targets that are not http://host[:port][/prefix] are rejected with the expected form",
        arguments: ["127.0.0.1:8080", "https://localhost:8080", "http://", "http://localhost:8080/?x=1", "ftp://x"]
    )
    func invalidTargets(target: String) {
        #expect {
            _ = try HTTPStoreSource(target: target)
        } throws: { error in
            let error = error as? HTTPSourceError
            return error?.code == .invalidTarget && error?.message.contains("e.g. http://127.0.0.1:8080") == true
        }
    }

    @Test("a page body whose counts contradict its items is refused, not trusted")
    func malformedPage() throws {
        let store = try TestStores.store()
        var page = try #require(try? store.listing(in: .partition(0), filter: nil, reverse: false)).prefix(2).map(
            \.item
        )
        page.removeLast()
        let body = PageBody.encode(
            Page(items: page, scannedCount: 2, scannedBytes: 1024, nextToken: nil),
            includePayload: false
        )
        var text = String(buffer: body)
        text = text.replacingOccurrences(of: "\"returned\":1", with: "\"returned\":2")
        #expect(throws: HTTPSourceError.self) { try PageBody.decode(ByteBuffer(string: text)) }
        #expect(throws: HTTPSourceError.self) { try PageBody.decode(ByteBuffer(string: "<html>")) }
    }
}
