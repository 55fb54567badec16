import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import PagebenchHTTP
import PagebenchStore

/// Small stores: every test drains them completely in milliseconds.
enum TestStores {
    /// 5 partitions of 40 items, 512-byte items, a 4 KiB budget so that limits and the
    /// budget both cut pages, 25 % of items matching `match`.
    static let configuration = StoreConfiguration(
        partitions: 5, itemsPerPartition: .uniform(40), itemSize: .fixed(512), selectivity: 0.25,
        scanBudgetBytes: 4096, seed: 7)

    static func store(_ configuration: StoreConfiguration = TestStores.configuration) throws -> SyntheticStore {
        try SyntheticStore(configuration: configuration)
    }

    /// Every page of a traversal in-process, following tokens (bounded: a loop would be a bug).
    static func pages(_ store: SyntheticStore, _ request: PageRequest) async throws -> [Page] {
        try await drain(request) { try await store.page($0) }
    }

    /// Every page of a traversal through `page` (a source, a replica, …), following tokens;
    /// `page` gets the request and the page's index. Fails past `maxPages` (a loop is a bug).
    static func drain(
        _ request: PageRequest, maxPages: Int = 10_000, page: (PageRequest, Int) async throws -> Page
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

    static func drain(
        _ request: PageRequest, maxPages: Int = 10_000, page: (PageRequest) async throws -> Page
    ) async throws -> [Page] {
        try await drain(request, maxPages: maxPages) { request, _ in try await page(request) }
    }

    /// The error the in-process store throws for `request`.
    static func error(_ store: SyntheticStore, _ request: PageRequest) async -> StoreError? {
        do {
            _ = try await store.page(request)
            return nil
        } catch {
            return error as? StoreError
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension TestResponse {
    /// The body as text.
    var text: String { String(buffer: body) }
    /// The error body, or a failure naming what arrived instead.
    func errorBody() throws -> ErrorBody {
        guard let body = ErrorBody.decode(body) else { throw TestFailure("not an error body: \(text)") }
        return body
    }
}

/// Runs `body` against a live `StoreServer` on an ephemeral loopback port.
func withLiveServer<Result: Sendable>(
    _ server: StoreServer,
    _ body: @escaping @Sendable (_ target: String) async throws -> Result
) async throws -> Result {
    let app = server.makeApplication()
    return try await app.test(.live) { client in
        guard let port = client.port else { throw TestFailure("the live test server reported no port") }
        // The live framework binds "localhost" (IPv4 or IPv6, whichever resolves first).
        return try await body("http://localhost:\(port)")
    }
}

/// Polls `condition` every 10 ms until it holds or `limit` passes — for events the test
/// cannot await directly (a server counter changing). Returns whether it held.
func eventually(within limit: Duration = .seconds(20), _ condition: () -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: limit)
    while clock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
