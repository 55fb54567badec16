import Foundation
import NIOCore
import NIOPosix
import PagebenchTLS
import PagebenchTestSupport
import Testing

/// ``TLSHandler`` over real loopback sockets: against `openssl s_server` and against itself
/// on the server side (``TLSServerContext``), with the certificate checks, the close
/// semantics and the failures a client must tell apart.
@Suite struct TLSHandlerTests {
    static func certificates() throws -> TestCertificates { try TestCertificates.shared.get() }

    /// A deterministic pattern of `count` bytes (so a reordered or dropped record shows).
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
    }

    @Test func aHandshakeWithOpenSSLsServerVerifiesItAndReadsItsPage() async throws {
        let certificates = try Self.certificates()
        let outcome = try await withOpenSSLServer(certificates) { port in
            try await tlsExchange(
                port: port,
                verification: .caFile(certificates.certificate),
                request: Array("GET / HTTP/1.0\r\n\r\n".utf8)
            )
        }
        #expect(outcome.handshakeCompleted)
        let page = String(decoding: outcome.received, as: UTF8.self)
        #expect(page.hasPrefix("HTTP/1.0 200 ok"), "\(page.prefix(200))")
        // s_server -www describes the session it negotiated.
        #expect(page.contains("TLSv1.3") || page.contains("TLSv1.2"), "\(page.prefix(2000))")
        #expect(outcome.tlsErrors.isEmpty && outcome.otherErrors.isEmpty, "\(outcome)")
    }

    @Test func aLargeResponseSpanningManyRecordsArrivesWholeAndInOrder() async throws {
        let certificates = try Self.certificates()
        let response = Self.pattern(3 << 20 + 12345)  // ~190 records of 16 KiB
        let outcome = try await withTLSServer(certificates, script: ServerScript(expectedBytes: 4, response: response))
        { port in
            try await tlsExchange(
                port: port,
                verification: .caFile(certificates.certificate),
                request: Array("ping".utf8)
            )
        }
        #expect(outcome.handshakeCompleted)
        #expect(outcome.received.count == response.count)
        #expect(outcome.received == response)
        // The server closed with close_notify: a clean end, no error.
        #expect(outcome.tlsErrors.isEmpty && outcome.otherErrors.isEmpty, "\(outcome)")
    }

    @Test func aLargeRequestSpanningManyRecordsIsEchoedWhole() async throws {
        let certificates = try Self.certificates()
        let request = Self.pattern(1 << 20 + 777)
        let outcome = try await withTLSServer(
            certificates,
            script: ServerScript(expectedBytes: request.count, response: nil)
        ) { port in
            try await tlsExchange(port: port, verification: .caFile(certificates.certificate), request: request)
        }
        #expect(outcome.received == request)
        #expect(outcome.tlsErrors.isEmpty && outcome.otherErrors.isEmpty, "\(outcome)")
    }

    @Test func aConnectionCutWithoutCloseNotifyIsReportedAsUnclean() async throws {
        let certificates = try Self.certificates()
        let response = Self.pattern(100_000)
        let outcome = try await withTLSServer(
            certificates,
            script: ServerScript(expectedBytes: 4, response: response, closeNotify: false)
        ) { port in
            try await tlsExchange(
                port: port,
                verification: .caFile(certificates.certificate),
                request: Array("ping".utf8)
            )
        }
        // Everything sent arrived, but the end cannot be told from a cut: an error says so.
        #expect(outcome.received == response)
        #expect(outcome.tlsErrors.map(\.isUncleanShutdown) == [true], "\(outcome)")
        #expect(outcome.tlsErrors.first?.message.contains("close_notify") == true)
    }

    @Test func aServerWhoseCertificateIsNotForTheHostNameIsRefused() async throws {
        let certificates = try Self.certificates()
        let outcome = try await withTLSServer(certificates, script: ServerScript(expectedBytes: 1, response: [1])) {
            port in
            try await tlsExchange(
                port: port,
                hostname: "pagebench.example",
                verification: .caFile(certificates.certificate),
                request: [0]
            )
        }
        #expect(!outcome.handshakeCompleted)
        #expect(outcome.received.isEmpty)
        let message = try #require(outcome.tlsErrors.first).message
        #expect(message.hasPrefix("certificate verify failed: hostname mismatch"), "\(message)")
        #expect(message.contains("pagebench.example"))
    }

    @Test func anIPAddressIsCheckedAgainstTheCertificatesAddresses() async throws {
        let certificates = try Self.certificates()
        let trusted = try await withTLSServer(certificates, script: ServerScript(expectedBytes: 1, response: [42])) {
            port in
            try await tlsExchange(
                port: port,
                hostname: "127.0.0.1",
                verification: .caFile(certificates.certificate),
                request: [0]
            )
        }
        #expect(trusted.received == [42])
        let refused = try await withTLSServer(certificates, script: ServerScript(expectedBytes: 1, response: [42])) {
            port in
            try await tlsExchange(
                port: port,
                hostname: "127.0.0.2",
                verification: .caFile(certificates.certificate),
                request: [0]
            )
        }
        #expect(refused.received.isEmpty)
        #expect(
            refused.tlsErrors.first?.message.hasPrefix("certificate verify failed: IP address mismatch") == true,
            "\(refused)"
        )
    }

    @Test func anUntrustedCertificateIsRefusedWithOpenSSLsReason() async throws {
        let certificates = try Self.certificates()
        let outcome = try await withTLSServer(certificates, script: ServerScript(expectedBytes: 1, response: [1])) {
            port in
            try await tlsExchange(port: port, verification: .systemTrustStore, request: [0])
        }
        #expect(outcome.received.isEmpty)
        #expect(outcome.tlsErrors.first?.message == "certificate verify failed: self-signed certificate", "\(outcome)")
    }

    @Test func noVerificationAcceptsAnyCertificateAndHostName() async throws {
        let certificates = try Self.certificates()
        let outcome = try await withTLSServer(
            certificates,
            script: ServerScript(expectedBytes: 1, response: [7, 8, 9])
        ) { port in
            try await tlsExchange(port: port, hostname: "pagebench.example", verification: .none, request: [0])
        }
        #expect(outcome.handshakeCompleted)
        #expect(outcome.received == [7, 8, 9])
        #expect(outcome.tlsErrors.isEmpty, "\(outcome)")
    }

    @Test func aPlainHTTPServerIsNamedAsSuch() async throws {
        let answer = Array("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".utf8)
        let outcome = try await withServer(tls: nil, { PlainPeer(answer: answer) }) { port in
            try await tlsExchange(port: port, verification: .none, request: [0])
        }
        #expect(!outcome.handshakeCompleted)
        #expect(outcome.received.isEmpty)
        let message = try #require(outcome.tlsErrors.first).message
        #expect(message.hasPrefix("handshake failed: the server answered in plain HTTP"), "\(message)")
    }

    @Test func aServerThatClosesDuringTheHandshakeFailsIt() async throws {
        let outcome = try await withServer(tls: nil, { PlainPeer(answer: []) }) { port in
            try await tlsExchange(port: port, verification: .none, request: [0])
        }
        #expect(!outcome.handshakeCompleted)
        #expect(
            outcome.tlsErrors.map(\.message) == [
                "handshake failed: the peer closed the connection during the handshake"
            ],
            "\(outcome)"
        )
    }

    @Test func aNonTLSAnswerFailsTheHandshakeWithOpenSSLsReason() async throws {
        let outcome = try await withServer(tls: nil, { PlainPeer(answer: Array(repeating: 0x41, count: 64)) }) { port in
            try await tlsExchange(port: port, verification: .none, request: [0])
        }
        #expect(!outcome.handshakeCompleted)
        let message = try #require(outcome.tlsErrors.first).message
        #expect(message.hasPrefix("handshake failed: ") && message.count > "handshake failed: ".count, "\(message)")
        #expect(!message.contains("plain HTTP"))
    }

    // MARK: Configuration

    @Test func aKeyThatDoesNotBelongToTheCertificateIsRefused() throws {
        let certificates = try Self.certificates()
        let error = #expect(throws: TLSError.self) {
            _ = try TLSServerContext(
                certificateChainFile: certificates.certificate,
                keyFile: certificates.otherKey,
                group: MultiThreadedEventLoopGroup.singleton
            )
        }
        #expect(error?.message.contains("does not belong to the certificate") == true, "\(String(describing: error))")
    }

    @Test func filesThatAreNotPEMAreRefusedByName() throws {
        let certificates = try Self.certificates()
        let notPEM = certificates.directory + "/not-pem.txt"
        try "not a certificate\n".write(toFile: notPEM, atomically: true, encoding: .utf8)
        let group = MultiThreadedEventLoopGroup.singleton
        let certificate = #expect(throws: TLSError.self) {
            _ = try TLSServerContext(certificateChainFile: notPEM, keyFile: certificates.key, group: group)
        }
        #expect(certificate?.message.hasPrefix("cannot load the certificate chain '\(notPEM)'") == true)
        let key = #expect(throws: TLSError.self) {
            _ = try TLSServerContext(certificateChainFile: certificates.certificate, keyFile: notPEM, group: group)
        }
        #expect(key?.message.hasPrefix("cannot load the private key '\(notPEM)'") == true, "\(String(describing: key))")
        let caFile = #expect(throws: TLSError.self) {
            _ = try TLSClientContext(verification: .caFile(notPEM), group: group)
        }
        #expect(caFile?.message.hasPrefix("cannot load the CA file '\(notPEM)'") == true)
    }
}
