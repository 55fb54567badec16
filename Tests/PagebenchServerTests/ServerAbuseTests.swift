import Foundation
import HTTPTypes
import HummingbirdCore
import NIOHTTP1
import PagebenchHTTPTestSupport
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 12, "The server under abuse": methods, unparsable requests and clients that never
/// finish a request head get an answer or a closed connection, never a held one.
@Suite("Server under abuse")
struct ServerAbuseTests {
    /// Sends `bytes` on a new connection to `target` (pausing `pause` seconds between
    /// chunks) and reads until the server closes it; nil if it was still open after 20 s.
    static func rawExchange(_ target: String, chunks: [String], pause: Double = 0) throws -> String? {
        let client = try TestHTTPClient(target)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(client.port).bigEndian)
        address.sin_addr.s_addr = inet_addr(client.host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw TestFailure("connect() failed") }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        for chunk in chunks {
            _ = chunk.utf8CString.withUnsafeBufferPointer {
                send(descriptor, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL))
            }
            if pause > 0 { usleep(UInt32(pause * 1_000_000)) }
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return String(decoding: received, as: UTF8.self) }  // closed by the server
            if count < 0 { return errno == ECONNRESET ? String(decoding: received, as: UTF8.self) : nil }
            received += buffer[0..<count]
        }
    }

    @Test("HEAD on a GET route answers as GET without the body")
    func headIsGETWithoutBody() async throws {
        let response = try await withLiveServer(StoreServer(store: try TestStores.store())) { target in
            try await TestHTTPClient(target).execute(uri: "/health", method: .HEAD)
        }
        #expect(response.status == .ok)
        #expect(response.body.readableBytes == 0)
        #expect(Int(response.headers[.contentLength] ?? "") ?? 0 > 0)
    }

    @Test("another method on a GET route is 405 with Allow and the JSON error body; an unknown path stays 404")
    func otherMethodsAre405() async throws {
        let (delete, post, unknown) = try await withLiveServer(StoreServer(store: try TestStores.store())) { target in
            let client = try TestHTTPClient(target)
            return (
                try await client.execute(uri: "/scan", method: .DELETE),
                try await client.execute(uri: "/partitions/1/items", method: .POST),
                try await client.execute(uri: "/nothing", method: .DELETE)
            )
        }
        for response in [delete, post] {
            #expect(response.status == .methodNotAllowed)
            #expect(response.headers[.allow] == "GET, HEAD")
            #expect(try response.errorBody().message.contains("use GET or HEAD"))
        }
        #expect(unknown.status == .notFound)
    }

    @Test("an unparsable request gets 400 with the JSON error body, and the connection closes")
    func parseErrorsGetTheJSONBody() async throws {
        let answer = try await withLiveServer(StoreServer(store: try TestStores.store())) { target in
            try Self.rawExchange(target, chunks: ["BLAH BLAH\r\n\r\n"])
        }
        let text = try #require(answer, "the server held the connection open")
        #expect(text.hasPrefix("HTTP/1.1 400"))
        #expect(text.contains("application/json"))
        #expect(text.contains("\"code\":\"invalidParameter\"") && text.contains("malformed HTTP request"))
    }

    @Test("a client that trickles a request head and never finishes it is disconnected after the idle timeout")
    func slowlorisIsClosed() async throws {
        var configuration = StoreServer.Configuration()
        configuration.idleTimeout = .milliseconds(300)
        let answer = try await withLiveServer(StoreServer(store: try TestStores.store(), configuration: configuration))
        { target in
            // Eight header fragments 100 ms apart, then silence: the head is never complete.
            try Self.rawExchange(
                target,
                chunks: ["GET /health HTTP/1.1\r\n"] + (0..<8).map { "X-Slow-\($0): y\r\n" },
                pause: 0.1
            )
        }
        let text = try #require(answer, "the server held an incomplete request head open")
        #expect(!text.contains("200 OK"))
    }

    @Test("a payload of an item too large to serve is a 400 naming the limit, not a crash")
    func oversizedPayloadIsRefused() async throws {
        let store = try SyntheticStore(
            configuration: StoreConfiguration(
                partitions: 1,
                itemsPerPartition: .uniform(2),
                itemSize: .fixed((64 << 20) + 1)
            )
        )
        let (refused, plain) = try await withLiveServer(StoreServer(store: store)) { target in
            let client = try TestHTTPClient(target)
            return (
                try await client.execute(uri: "/partitions/0/items?limit=1&payload=true"),
                try await client.execute(uri: "/partitions/0/items?limit=1")
            )
        }
        #expect(refused.status == .badRequest)
        #expect(try refused.errorBody().message.contains("payloads are served for items of at most"))
        #expect(plain.status == .ok)
    }
}
