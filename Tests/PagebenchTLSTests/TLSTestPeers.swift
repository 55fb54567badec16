import Foundation
import NIOCore
import NIOPosix
import NIOTLS
import PagebenchTLS
import PagebenchTestSupport
import Synchronization

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What a TLS client connection saw, from connect to close.
struct ClientOutcome: Sendable {
    var received: [UInt8] = []
    var handshakeCompleted = false
    /// The TLS errors fired, in order.
    var tlsErrors: [TLSError] = []
    /// Any other error fired.
    var otherErrors: [String] = []
}

/// Records what a client connection receives until it closes.
final class ClientRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var outcome = ClientOutcome()
    private let done: EventLoopPromise<ClientOutcome>

    init(done: EventLoopPromise<ClientOutcome>) { self.done = done }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        outcome.received += Array(buffer: unwrapInboundIn(data))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent { outcome.handshakeCompleted = true }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? TLSError {
            outcome.tlsErrors.append(error)
        } else {
            outcome.otherErrors.append("\(error)")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.succeed(outcome)
    }
}

/// Connects to 127.0.0.1:`port` with TLS for `hostname`, writes `request` (if any) and waits
/// until the connection closes (a watchdog closes it after 120 s, which only bounds a hang).
func tlsExchange(
    port: Int,
    hostname: String = "localhost",
    verification: TLSClientContext.Verification,
    request: [UInt8] = []
) async throws -> ClientOutcome {
    let group = MultiThreadedEventLoopGroup.singleton
    let context = try TLSClientContext(verification: verification, group: group)
    let done = group.any().makePromise(of: ClientOutcome.self)
    let channel = try await ClientBootstrap(group: group)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    context.makeHandler(serverHostname: hostname, on: channel.eventLoop)
                )
                try channel.pipeline.syncOperations.addHandler(ClientRecorder(done: done))
            }
        }
        .connect(host: "127.0.0.1", port: port).get()
    let watchdog = channel.eventLoop.scheduleTask(in: .seconds(120)) { channel.close(promise: nil) }
    if !request.isEmpty {
        channel.writeAndFlush(ByteBuffer(bytes: request), promise: nil)
    }
    let outcome = try await done.futureResult.get()
    watchdog.cancel()
    return outcome
}

/// How a test server answers a connection once `expectedBytes` of plaintext arrived.
struct ServerScript: Sendable {
    /// Plaintext to wait for before answering.
    var expectedBytes: Int
    /// The answer; nil echoes what arrived.
    var response: [UInt8]?
    /// Whether the server closes with close_notify (through TLS) or cuts the TCP connection
    /// without it.
    var closeNotify: Bool = true
}

/// Closes the connection from the front of the pipeline, below TLS: no close_notify.
final class RawCloser: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }
    func closeWithoutTLS() { context?.close(promise: nil) }
}

/// The application behind a test server's TLS handler: gathers plaintext, answers per its
/// script, closes.
final class ScriptedPeer: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let script: ServerScript
    private let rawCloser: RawCloser
    private var received: [UInt8] = []
    private var answered = false

    init(script: ServerScript, rawCloser: RawCloser) {
        self.script = script
        self.rawCloser = rawCloser
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += Array(buffer: unwrapInboundIn(data))
        guard !answered, received.count >= script.expectedBytes else { return }
        answered = true
        let written = context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: script.response ?? received)))
        let closeNotify = script.closeNotify
        let rawCloser = self.rawCloser
        written.assumeIsolated().whenComplete { _ in
            if closeNotify { context.close(promise: nil) } else { rawCloser.closeWithoutTLS() }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// A server on 127.0.0.1 for the duration of `body`: TLS with `certificates` when given
/// (our own TLSHandler, server side), each connection handled by `makeHandler`.
func withServer<Result>(
    tls certificates: TestCertificates?,
    _ makeHandler: @escaping @Sendable () -> any ChannelHandler,
    _ body: (_ port: Int) async throws -> Result
) async throws -> Result {
    try await withScriptedServer(tls: certificates, script: nil, raw: makeHandler, body)
}

/// A TLS server on 127.0.0.1 answering each connection with `script`, for the duration of `body`.
func withTLSServer<Result>(
    _ certificates: TestCertificates,
    script: ServerScript,
    _ body: (_ port: Int) async throws -> Result
) async throws -> Result {
    try await withScriptedServer(tls: (certificates.certificate, certificates.key), script: script, raw: nil, body)
}

/// A TLS server on 127.0.0.1 presenting the PEM `chain` with `key`, answering each connection
/// with `script`, for the duration of `body`.
func withTLSServer<Result>(
    chain: String,
    key: String,
    script: ServerScript,
    _ body: (_ port: Int) async throws -> Result
) async throws -> Result {
    try await withScriptedServer(tls: (chain, key), script: script, raw: nil, body)
}

private func withScriptedServer<Result>(
    tls certificates: TestCertificates?,
    script: ServerScript?,
    raw: (@Sendable () -> any ChannelHandler)?,
    _ body: (_ port: Int) async throws -> Result
) async throws -> Result {
    try await withScriptedServer(tls: certificates.map { ($0.certificate, $0.key) }, script: script, raw: raw, body)
}

private func withScriptedServer<Result>(
    tls files: (chain: String, key: String)?,
    script: ServerScript?,
    raw: (@Sendable () -> any ChannelHandler)?,
    _ body: (_ port: Int) async throws -> Result
) async throws -> Result {
    let group = MultiThreadedEventLoopGroup.singleton
    let context = try files.map { try TLSServerContext(certificateChainFile: $0.chain, keyFile: $0.key, group: group) }
    let server = try await ServerBootstrap(group: group)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let pipeline = channel.pipeline.syncOperations
                let rawCloser = RawCloser()
                try pipeline.addHandler(rawCloser)
                if let context { try pipeline.addHandler(context.makeHandler(on: channel.eventLoop)) }
                if let script { try pipeline.addHandler(ScriptedPeer(script: script, rawCloser: rawCloser)) }
                if let raw { try pipeline.addHandler(raw()) }
            }
        }
        .bind(host: "127.0.0.1", port: 0).get()
    do {
        let result = try await body(server.localAddress!.port!)
        try await server.close()
        return result
    } catch {
        try? await server.close()
        throw error
    }
}

/// A plain TCP peer: answers the first bytes it reads with `answer` (or nothing) and closes.
final class PlainPeer: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let answer: [UInt8]

    init(answer: [UInt8]) { self.answer = answer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answer.isEmpty else {
            context.close(promise: nil)
            return
        }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

/// `openssl s_server` on 127.0.0.1 (a free port) with `-www`: answers `GET /` with an HTML
/// page about the session and closes. Stopped when `body` returns.
func withOpenSSLServer<Result>(
    _ certificates: TestCertificates,
    _ body: (_ port: Int) async throws -> Result
) async throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
        "stdbuf", "-oL", "openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", certificates.certificate, "-key",
        certificates.key, "-www", "-naccept", "1",
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = Pipe()
    try process.run()
    defer {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
    let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(60), execute: watchdog)
    defer { watchdog.cancel() }
    // "ACCEPT 127.0.0.1:PORT" once it listens.
    var text = ""
    var port: Int?
    while port == nil {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        text += String(decoding: chunk, as: UTF8.self)
        if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }) {
            port = line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
    }
    guard let port else { throw TestFailure("openssl s_server did not start: \(text)") }
    return try await body(port)
}
