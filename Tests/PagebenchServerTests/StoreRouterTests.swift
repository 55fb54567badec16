import HTTPTypes
import HummingbirdCore
import NIOCore
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchStore
import PagebenchWire
import Testing

@testable import PagebenchServer

/// ``StoreRouter``: the server's own routing on HummingbirdCore (issue 28's lighter build),
/// with the behaviour Hummingbird's router had: empty path parts ignored, `:name`
/// parameters, the JSON 404/405 bodies, a handler's failure as a JSON 500, and the `Date`
/// and `Server` headers on every response.
@Suite("Store router")
struct StoreRouterTests {
    /// `GET /fail` throws; `GET /echo/:word` answers with the parameter.
    struct ProbeRoutes: StoreRouteRegistration {
        struct Failure: Error, CustomStringConvertible {
            var description: String { "the probe failed on purpose" }
        }

        func register(on router: inout StoreRouter, server: StoreServer) {
            router.get("/fail") { _, _ in throw Failure() }
            router.get("/echo/:word") { _, context in
                Response(
                    status: .ok,
                    body: .init(byteBuffer: ByteBuffer(string: context.parameters.get("word") ?? "-"))
                )
            }
        }
    }

    @Test("paths match with empty parts ignored; parameters come as sent")
    func pathsAndParameters() async throws {
        let store = try TestStores.store()
        let server = StoreServer(store: store, extraRoutes: [ProbeRoutes()])
        let (slash, double, echo, badIndex) = try await withLiveServer(server) { target in
            let client = try TestHTTPClient(target)
            return (
                try await client.execute(uri: "/health/"),
                try await client.execute(uri: "//scan?limit=1"),
                try await client.execute(uri: "/echo/h%C3%A9"),
                try await client.execute(uri: "/scan/segments/x/4")
            )
        }
        #expect(slash.status == .ok)
        #expect(double.status == .ok)
        #expect(echo.text == "h%C3%A9")
        #expect(badIndex.status == .badRequest)
        #expect(try badIndex.errorBody().code == "invalidParameter")
    }

    @Test("no route: 404 naming the endpoints; a handler that throws: 500 with the JSON error body")
    func noRouteAndFailures() async throws {
        let server = StoreServer(store: try TestStores.store(), extraRoutes: [ProbeRoutes()])
        let (missing, wrongMethodOnFrontEnd, failed) = try await withLiveServer(server) { target in
            let client = try TestHTTPClient(target)
            return (
                try await client.execute(uri: "/nothing"),
                try await client.execute(uri: "/echo/x", method: .POST),
                try await client.execute(uri: "/fail")
            )
        }
        #expect(missing.status == .notFound)
        let body = try missing.errorBody()
        #expect(body.code == "notFound")
        #expect(body.message.hasPrefix("no endpoint GET /nothing; endpoints: GET /partitions/{p}/items"))
        #expect(wrongMethodOnFrontEnd.status == .notFound)
        #expect(failed.status == .internalServerError)
        #expect(try failed.errorBody().message == "internal error: the probe failed on purpose")
    }

    @Test("every response carries Date (IMF-fixdate) and Server (the configuration hash)")
    func dateAndServerHeaders() async throws {
        let store = try TestStores.store()
        let (ok, missing) = try await withLiveServer(StoreServer(store: store)) { target in
            let client = try TestHTTPClient(target)
            return (try await client.execute(uri: "/health"), try await client.execute(uri: "/nothing"))
        }
        for response in [ok, missing] {
            #expect(response.headers[.server] == "pagebench/\(store.configurationHash)")
            let date = try #require(response.headers[.date])
            #expect(date.count == 29 && date.hasSuffix(" GMT"), "\(date)")
        }
    }

    @Test("IMF-fixdate: weekday, two-digit day, month name, four-digit year, 24-hour time, GMT")
    func imfFixdate() {
        #expect(HTTPDateCache.format(1_763_778_583) == "Sat, 22 Nov 2025 02:29:43 GMT")
        #expect(HTTPDateCache.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDateCache.format(951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
    }
}
