import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Testing

/// Every endpoint through a live server and a plain HTTP client, compared page by page
/// with the in-process store.
@Suite("Server endpoints")
struct ServerRoundTripTests {
    static let requests: [PageRequest] = [
        PageRequest(range: .scan, limit: 7),
        PageRequest(range: .scan, reverse: true, limit: 13, filter: .matching),
        PageRequest(range: .partition(2), limit: 3),
        PageRequest(range: .partition(4), reverse: true, filter: .categoryNotEquals(0)),
        PageRequest(range: .segment(index: 1, total: 3), limit: 11, filter: .matching),
        PageRequest(range: .segment(index: 2, total: 3)),
        PageRequest(range: .segment(index: 6, total: 300)),  // an empty segment (S15)
    ]

    @Test("S8 S10 S13-S15: draining any endpoint over HTTP gives the in-process pages", arguments: requests)
    func drainMatchesInProcess(request: PageRequest) async throws {
        let store = try TestStores.store()
        let expected = try await TestStores.pages(store, request)
        let server = StoreServer(store: store)
        let received = try await withLiveServer(server) { target in
            let client = try TestHTTPClient(target)
            var pages: [Page] = []
            var current = request
            for _ in 0..<expected.count + 1 {
                let response = try await client.execute(uri: PageQuery(request: current).pathAndQuery, method: .GET)
                #expect(response.status == .ok, "\(response.text)")
                #expect(response.headers[.contentType] == "application/json")
                let page = try PageBody.decode(response.body)
                pages.append(page)
                guard let token = page.nextToken else { break }
                current.token = token
            }
            return pages
        }
        #expect(received == expected)
        #expect(server.statistics.requestsStarted == expected.count)
        #expect(server.statistics.requestsInFlight == 0)
    }

    @Test("the page body carries items, nextToken, returned, scanned, scannedBytes")
    func bodyFields() async throws {
        let store = try TestStores.store()
        let request = PageRequest(range: .partition(1), limit: 2)
        let page = try await store.page(request)
        let body = try await withLiveServer(StoreServer(store: store)) { target in
            let client = try TestHTTPClient(target)
            return try await client.execute(uri: "/partitions/1/items?limit=2", method: .GET).text
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["items", "nextToken", "returned", "scanned", "scannedBytes"])
        #expect(object["nextToken"] as? String == page.nextToken)
        #expect(object["returned"] as? Int == 2)
        #expect(object["scanned"] as? Int == 2)
        #expect(object["scannedBytes"] as? Int == 1024)
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(items.map { $0["sortKey"] as? Int } == [0, 1])
        #expect(items.map { $0["partition"] as? Int } == [1, 1])
        #expect(
            items.first?["fingerprint"] as? String
                == String(page.items[0].storeAttributes.fingerprint, radix: 16).leftPadded(to: 16)
        )
        #expect(items.first?["payload"] == nil)
    }

    @Test("payload=true sends each item's payload bytes; the server's default can turn it on")
    func payload() async throws {
        let store = try TestStores.store()
        let page = try await store.page(PageRequest(range: .partition(0), limit: 3))
        let decodeFirstPayload: @Sendable (TestHTTPResponse) throws -> [UInt8] = { response in
            let object = try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any]
            let items = object?["items"] as? [[String: Any]]
            let text = try #require(items?.first?["payload"] as? String)
            return Array(try #require(Data(base64Encoded: text)))
        }
        let explicit = try await withLiveServer(StoreServer(store: store)) { target in
            let client = try TestHTTPClient(target)
            return try decodeFirstPayload(
                try await client.execute(uri: "/partitions/0/items?limit=3&payload=true", method: .GET)
            )
        }
        #expect(explicit == page.items[0].payload?.bytes)
        #expect(explicit.count == 512)
        let server = StoreServer(store: store, configuration: .init(includePayloadByDefault: true))
        let (byDefault, optedOut) = try await withLiveServer(server) { target in
            let client = try TestHTTPClient(target)
            let byDefault = try decodeFirstPayload(
                try await client.execute(uri: "/partitions/0/items?limit=3", method: .GET)
            )
            let optedOut = try await client.execute(uri: "/partitions/0/items?limit=3&payload=0", method: .GET)
            return (byDefault, optedOut.text.contains("\"payload\""))
        }
        #expect(byDefault == page.items[0].payload?.bytes)
        #expect(!optedOut)
    }

    @Test("GET /health names the configuration hash, partitions and items")
    func health() async throws {
        let store = try TestStores.store()
        let text = try await withLiveServer(StoreServer(store: store)) { target in
            let client = try TestHTTPClient(target)
            let response = try await client.execute(uri: "/health", method: .GET)
            #expect(response.status == .ok)
            return response.text
        }
        let health = try JSONDecoder().decode(StoreHealth.self, from: Data(text.utf8))
        #expect(
            health
                == StoreHealth(
                    status: "ok",
                    configurationHash: store.configurationHash,
                    partitions: 5,
                    items: 200,
                    canonical: store.configuration.canonicalText
                )
        )
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
