import Foundation
import NIOCore
import PagebenchHTTPClient
import PagebenchServer
import PagebenchTestSupport
import PagebenchWire
import Testing

/// The lean client's HTTPS (PagebenchTLS on the system's OpenSSL) against `pagebench serve
/// --tls-cert` in a child process: a page of half a megabyte, many TLS records, arrives
/// byte-identical to the same page over plain HTTP; keep-alive connections carry many
/// requests.
@Suite(.serialized) struct HTTPSServeTests {
    static let store = [
        "--partitions", "1", "--items-per-partition", "40", "--item-size", "fixed:16384", "--seed", "11",
    ]

    static func get(
        _ baseURL: String,
        _ path: String,
        caFile: String? = nil,
        times: Int = 1
    ) async throws -> [HTTPRequestClient.Response] {
        // The timeout only bounds a hang: a debug build on a loaded machine is slow to serve.
        let client = try HTTPRequestClient(
            baseURL: baseURL,
            configuration: .init(connections: 1, requestTimeout: .seconds(600), caFile: caFile)
        )
        do {
            var responses: [HTTPRequestClient.Response] = []
            for _ in 0..<times { responses.append(try await client.send(.init(method: "GET", pathAndQuery: path))) }
            await client.shutdown()
            return responses
        } catch {
            await client.shutdown()
            throw error
        }
    }

    @Test func aLargePageOverHTTPSIsByteIdenticalToPlainHTTP() async throws {
        let certificates = try TestCertificates.shared.get()
        let (certificate, key) = (certificates.certificate, certificates.key)
        let https = try ChildServer.serve(
            Self.store + ["--budget-bytes", "100000000", "--tls-cert", certificate, "--tls-key", key]
        )
        defer { https.stop() }
        let plain = try ChildServer.serve(Self.store + ["--budget-bytes", "100000000"])
        defer { plain.stop() }
        let path = "/partitions/0/items?limit=24&payload=true"
        let overTLS = try await Self.get(https.url, path, caFile: certificate, times: 3)
        let overTCP = try await Self.get(plain.url, path)
        #expect(overTCP[0].status == 200)
        #expect(overTCP[0].body.readableBytes > 512 << 10, "24 items of 16 KiB in base64: 32 TLS records or more")
        for response in overTLS {
            #expect(response.status == 200)
            #expect(response.body == overTCP[0].body)
        }
    }
}
