import NIOCore
import NIOPosix
import Synchronization

/// A raw TCP server on a loopback ephemeral port that answers each HTTP request with
/// whatever bytes the test scripts — including broken responses, closes and silence, which
/// a real store server never sends. It records every request line and each connection.
package final class ScriptedHTTPServer: Sendable {
    /// What to do with one request.
    package enum Action: Sendable {
        /// Write these bytes and keep the connection open.
        case respond(String)
        /// Write these bytes, then close the connection.
        case respondAndClose(String)
        /// Close without answering.
        case close
        /// Never answer (until the client goes away).
        case hang
        /// Write `head` at once, then `body` one byte per `every` (T5: a response that is
        /// never silent for long, but never complete within a deadline); stops when the
        /// client goes away.
        case drip(head: String, body: String, every: TimeAmount)
    }

    /// Decides the action for request number `request` (0-based, over the whole server) on
    /// connection number `connection`.
    package typealias Script = @Sendable (_ connection: Int, _ request: Int, _ requestLine: String) -> Action

    private struct State {
        var connections = 0
        var closedConnections = 0
        var requests = 0
        var requestLines: [String] = []
    }

    private let state = Mutex(State())
    private let script: Script
    /// Whether connection number N is closed as soon as it is accepted, before any request
    /// (as a server's idle timeout closes a connection whose first request is slow to come).
    fileprivate let closesOnAccept: @Sendable (_ connection: Int) -> Bool
    private let channel: any Channel

    /// Connections accepted so far.
    package var connectionsAccepted: Int { state.withLock { $0.connections } }
    /// Connections that have closed so far.
    package var connectionsClosed: Int { state.withLock { $0.closedConnections } }
    /// Every request line received, in order (`GET /scan?limit=1 HTTP/1.1`).
    package var requestLines: [String] { state.withLock { $0.requestLines } }
    /// `http://127.0.0.1:PORT`.
    package let target: String

    package init(
        closesOnAccept: @escaping @Sendable (_ connection: Int) -> Bool = { _ in false },
        _ script: @escaping Script
    ) async throws {
        self.script = script
        self.closesOnAccept = closesOnAccept
        let box = ServerBox()
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    guard let server = box.server.withLock({ $0 }) else { throw TestFailure("server not ready") }
                    try child.pipeline.syncOperations.addHandler(ScriptedConnectionHandler(server: server))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        target = "http://127.0.0.1:\(channel.localAddress!.port!)"
        box.server.withLock { $0 = self }
    }

    package func shutdown() async {
        try? await channel.close()
    }

    fileprivate func connectionOpened() -> Int {
        state.withLock { state in
            state.connections += 1
            return state.connections - 1
        }
    }

    fileprivate func connectionClosed() {
        state.withLock { $0.closedConnections += 1 }
    }

    fileprivate func action(connection: Int, requestLine: String) -> Action {
        let request = state.withLock { state in
            state.requestLines.append(requestLine)
            state.requests += 1
            return state.requests - 1
        }
        return script(connection, request, requestLine)
    }

    /// `HTTP/1.1 STATUS` with a JSON body and its Content-Length.
    package static func response(_ status: Int, _ body: String, headers: String = "") -> String {
        "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\(headers)\r\n\(body)"
    }
}

private final class ServerBox: Sendable {
    let server = Mutex<ScriptedHTTPServer?>(nil)
}

private final class ScriptedConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let server: ScriptedHTTPServer
    private var connection = 0
    private var pending = ""
    private var dripping: Scheduled<Void>?

    init(server: ScriptedHTTPServer) {
        self.server = server
    }

    func channelActive(context: ChannelHandlerContext) {
        connection = server.connectionOpened()
        context.fireChannelActive()
        if server.closesOnAccept(connection) { context.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        dripping?.cancel()
        dripping = nil
        server.connectionClosed()
        context.fireChannelInactive()
    }

    /// Writes the first byte of `bytes` after `interval`, then the rest the same way.
    private func drip(_ bytes: ArraySlice<UInt8>, every interval: TimeAmount, context: ChannelHandlerContext) {
        guard let byte = bytes.first else { return }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        dripping = context.eventLoop.scheduleTask(in: interval) {
            let (handler, context) = bound.value
            context.writeAndFlush(handler.wrapOutboundOut(ByteBuffer(bytes: [byte])), promise: nil)
            handler.drip(bytes.dropFirst(), every: interval, context: context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending += String(buffer: unwrapInboundIn(data))
        while let end = pending.range(of: "\r\n\r\n") {
            let head = String(pending[..<end.lowerBound])
            pending = String(pending[end.upperBound...])
            let requestLine = head.range(of: "\r\n").map { String(head[..<$0.lowerBound]) } ?? head
            switch server.action(connection: connection, requestLine: requestLine) {
            case .respond(let bytes):
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: bytes)), promise: nil)
            case .respondAndClose(let bytes):
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: bytes)), promise: nil)
                context.close(promise: nil)
                return
            case .close:
                context.close(promise: nil)
                return
            case .hang:
                break
            case .drip(let head, let body, let interval):
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: head)), promise: nil)
                drip(Array(body.utf8)[...], every: interval, context: context)
            }
        }
    }
}
