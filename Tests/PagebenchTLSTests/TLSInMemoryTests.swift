import COpenSSL
import NIOCore
import NIOEmbedded
import PagebenchTestSupport
import Testing

@testable import PagebenchTLS

/// ``TLSHandler`` client and server on two `EmbeddedChannel`s, their bytes passed by hand:
/// renegotiation (refused by default; a write made while one is in progress waits for it)
/// and the server's handshake timeout, on the embedded loop's own clock.
@Suite struct TLSInMemoryTests {
    /// A client and a server connected through the test, TLS 1.2 (renegotiation exists there only).
    struct Pair {
        let client: TLSHandler
        let server: TLSHandler
        let clientChannel: EmbeddedChannel
        let serverChannel: EmbeddedChannel

        init(clientRenegotiates: Bool = true, serverRenegotiates: Bool) throws {
            let certificates = try TestCertificates.shared.get()
            let clientContext = try OpenSSLContext.client(.caFile(certificates.certificate))
            _ = pagebench_SSL_CTX_set_max_proto_version(clientContext.pointer, TLS1_2_VERSION)
            if clientRenegotiates { pagebench_SSL_CTX_allow_renegotiation(clientContext.pointer) }
            let serverContext = try OpenSSLContext.server(
                certificateChainFile: certificates.certificate,
                keyFile: certificates.key
            )
            if serverRenegotiates { pagebench_SSL_CTX_allow_renegotiation(serverContext.pointer) }
            client = try TLSHandler(
                context: clientContext,
                role: .client(serverHostname: "localhost"),
                verifiesPeer: true
            )
            server = try TLSHandler(
                context: serverContext,
                role: .server,
                verifiesPeer: false,
                handshakeTimeout: .seconds(10)
            )
            clientChannel = EmbeddedChannel(handler: client)
            serverChannel = EmbeddedChannel(handler: server)
            let address = try SocketAddress(ipAddress: "127.0.0.1", port: 1)
            try serverChannel.connect(to: address).wait()
            try clientChannel.connect(to: address).wait()
        }

        /// Passes what each side sent to the other until neither sends more (bounded).
        func exchange() throws {
            for _ in 0..<50 {
                var moved = false
                while let bytes = try clientChannel.readOutbound(as: ByteBuffer.self) {
                    moved = true
                    try serverChannel.writeInbound(bytes)
                }
                while let bytes = try serverChannel.readOutbound(as: ByteBuffer.self) {
                    moved = true
                    try clientChannel.writeInbound(bytes)
                }
                if !moved { return }
            }
            throw TestFailure("the two sides did not stop exchanging bytes")
        }

        /// The plaintext the server received so far.
        func serverReceived() throws -> [UInt8] {
            var received: [UInt8] = []
            while let bytes = try serverChannel.readInbound(as: ByteBuffer.self) { received += Array(buffer: bytes) }
            return received
        }
    }

    @Test func aWriteMadeDuringARenegotiationWaitsForItInsteadOfFailing() throws {
        let pair = try Pair(serverRenegotiates: true)
        try pair.exchange()
        #expect(pair.clientChannel.isActive)
        // The client starts a renegotiation; its next write cannot be encrypted until the
        // server's handshake records arrive (SSL_write wants a read).
        #expect(SSL_renegotiate(pair.client.ssl) == 1)
        let written = pair.clientChannel.writeAndFlush(ByteBuffer(string: "after renegotiation"))
        try pair.exchange()
        #expect(try pair.serverReceived() == Array("after renegotiation".utf8))
        try written.wait()
        #expect(SSL_renegotiate_pending(pair.client.ssl) == 0)
        #expect(pair.clientChannel.isActive && pair.serverChannel.isActive)
    }

    /// OpenSSL 3's servers refuse a client's renegotiation without being told; the context's
    /// SSL_OP_NO_RENEGOTIATION keeps it so whatever OpenSSL's defaults become.
    @Test func aRenegotiationIsRefusedByDefault() throws {
        let pair = try Pair(serverRenegotiates: false)
        try pair.exchange()
        #expect(SSL_renegotiate(pair.client.ssl) == 1)
        pair.clientChannel.writeAndFlush(ByteBuffer(string: "after renegotiation"), promise: nil)
        // The server answers the renegotiation's hello with the no_renegotiation alert, which
        // fails the client's connection.
        let error = #expect(throws: TLSError.self) { try pair.exchange() }
        #expect(error?.message.contains("no renegotiation") == true, "\(String(describing: error))")
        #expect(try pair.serverReceived().isEmpty)
        #expect(!pair.clientChannel.isActive)
    }

    /// The client half of SSL_OP_NO_RENEGOTIATION: a server's hello request is refused.
    @Test func aClientRefusesAServersRenegotiationByDefault() throws {
        let pair = try Pair(clientRenegotiates: false, serverRenegotiates: true)
        try pair.exchange()
        #expect(SSL_renegotiate(pair.server.ssl) == 1)
        // The server's hello request goes out with its next write.
        pair.serverChannel.writeAndFlush(ByteBuffer(string: "x"), promise: nil)
        // The client answers the hello request with the no_renegotiation alert, which fails
        // the server's renegotiation.
        let error = #expect(throws: TLSError.self) { try pair.exchange() }
        #expect(error?.message.contains("no renegotiation") == true, "\(String(describing: error))")
    }

    @Test func theServerClosesAConnectionWhoseHandshakeDoesNotCompleteInTime() throws {
        let certificates = try TestCertificates.shared.get()
        let context = try OpenSSLContext.server(
            certificateChainFile: certificates.certificate,
            keyFile: certificates.key
        )
        let handler = try TLSHandler(
            context: context,
            role: .server,
            verifiesPeer: false,
            handshakeTimeout: .seconds(10)
        )
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        // The client sends the start of a hello and nothing more.
        try channel.writeInbound(ByteBuffer(bytes: [0x16, 0x03, 0x01, 0x00, 0x40, 0x01]))
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        let error = #expect(throws: TLSError.self) {
            channel.embeddedEventLoop.advanceTime(by: .seconds(2))
            try channel.throwIfErrorCaught()
        }
        #expect(error?.message == "handshake failed: no handshake within 10 s")
        #expect(!channel.isActive)
    }

    @Test func aCompletedHandshakeIsNotTimedOut() throws {
        let pair = try Pair(serverRenegotiates: false)
        try pair.exchange()
        pair.serverChannel.embeddedEventLoop.advanceTime(by: .seconds(3600))
        try pair.serverChannel.throwIfErrorCaught()
        #expect(pair.serverChannel.isActive)
    }
}
