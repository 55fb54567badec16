import NIOCore
import PagebenchTLS
import Testing

/// What a ``TLSHandler`` client decides about a server's certificate path, over loopback
/// sockets: a chain through an intermediate, a chain missing it, dates outside the
/// certificate's validity, and wildcard names (a partial wildcard is refused, as curl and
/// browsers refuse it). The certificates are made by ``TestAuthority`` with openssl.
@Suite struct CertificatePathTests {
    static func authority() throws -> TestAuthority { try TestAuthority.shared.get() }

    /// Connects to a server presenting `leaf`, trusting the test root only.
    static func connect(to leaf: TestAuthority.Leaf, hostname: String = "localhost") async throws -> ClientOutcome {
        let authority = try authority()
        return try await withTLSServer(
            chain: leaf.chain,
            key: leaf.key,
            script: ServerScript(expectedBytes: 1, response: [42])
        ) { port in
            try await tlsExchange(port: port, hostname: hostname, verification: .caFile(authority.root), request: [0])
        }
    }

    @Test func aChainThroughAnIntermediateIsVerifiedToTheTrustedRoot() async throws {
        let outcome = try await Self.connect(to: Self.authority().throughIntermediate)
        #expect(outcome.handshakeCompleted)
        #expect(outcome.received == [42])
        #expect(outcome.tlsErrors.isEmpty, "\(outcome)")
    }

    @Test func aChainMissingItsIntermediateIsRefused() async throws {
        let outcome = try await Self.connect(to: Self.authority().missingIntermediate)
        #expect(!outcome.handshakeCompleted && outcome.received.isEmpty)
        #expect(
            outcome.tlsErrors.first?.message == "certificate verify failed: unable to get local issuer certificate",
            "\(outcome)"
        )
    }

    @Test func anExpiredCertificateIsRefused() async throws {
        let outcome = try await Self.connect(to: Self.authority().expired)
        #expect(!outcome.handshakeCompleted && outcome.received.isEmpty)
        #expect(outcome.tlsErrors.first?.message == "certificate verify failed: certificate has expired", "\(outcome)")
    }

    @Test func aCertificateNotYetValidIsRefused() async throws {
        let outcome = try await Self.connect(to: Self.authority().notYetValid)
        #expect(!outcome.handshakeCompleted && outcome.received.isEmpty)
        #expect(
            outcome.tlsErrors.first?.message == "certificate verify failed: certificate is not yet valid",
            "\(outcome)"
        )
    }

    @Test func aWildcardCoversOneWholeLabel() async throws {
        let wildcard: TestAuthority.Leaf = try Self.authority().wildcard
        let covered = try await Self.connect(to: wildcard, hostname: "www.example.com")
        #expect(covered.handshakeCompleted && covered.received == [42], "\(covered)")
        let twoLabels = try await Self.connect(to: wildcard, hostname: "a.b.example.com")
        #expect(twoLabels.received.isEmpty)
        #expect(
            twoLabels.tlsErrors.first?.message.hasPrefix("certificate verify failed: hostname mismatch") == true,
            "\(twoLabels)"
        )
    }

    @Test func aPartialWildcardIsRefused() async throws {
        let outcome = try await Self.connect(to: Self.authority().partialWildcard, hostname: "www.example.com")
        #expect(!outcome.handshakeCompleted && outcome.received.isEmpty)
        #expect(
            outcome.tlsErrors.first?.message
                == "certificate verify failed: hostname mismatch (the certificate is not valid for 'www.example.com')",
            "\(outcome)"
        )
    }
}
