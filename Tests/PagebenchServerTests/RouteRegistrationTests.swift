import HTTPTypes
import HummingbirdCore
import NIOCore
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Testing

/// A protocol front end's routes (W6) page through ``StoreServer/servePage(_:context:)``:
/// the store's own page, counted in the server's statistics like a REST request.
@Suite("Route registration")
struct RouteRegistrationTests {
    /// Answers `GET /probe/:partition` with the first page's item count and token, as text.
    struct ProbeRoutes: StoreRouteRegistration {
        func register(on router: inout StoreRouter, server: StoreServer) {
            router.get("/probe/:partition") { _, context in
                let partition = Int(context.parameters.get("partition") ?? "") ?? -1
                let text =
                    switch await server.servePage(PageRequest(range: .partition(partition), limit: 3), context: context)
                    {
                    case .page(let page): "\(page.items.count) \(page.nextToken ?? "-")"
                    case .failed(let error as StoreError): "error \(error.code)"
                    case .failed, .abandoned: "failed"
                    }
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: text)))
            }
        }
    }

    @Test("W6: an extra route's page is the store's page, and the server counts it")
    func w6ExtraRoutePagesTheStore() async throws {
        let store = try TestStores.store()
        let server = StoreServer(store: store, extraRoutes: [ProbeRoutes()])
        let expected = try await store.page(PageRequest(range: .partition(2), limit: 3))
        let text = try await withLiveServer(server) { target in
            let client = try TestHTTPClient(target)
            let response = try await client.execute(uri: "/probe/2", method: .GET)
            #expect(response.status == .ok)
            return response.text
        }
        #expect(text == "\(expected.items.count) \(expected.nextToken ?? "-")")
        #expect(server.statistics.requestsStarted == 1)
        #expect(server.statistics.requestsFinished == 1)
    }
}
