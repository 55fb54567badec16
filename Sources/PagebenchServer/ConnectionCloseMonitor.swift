import NIOCore
import Synchronization

/// Lets a request handler wait, cancellably, until its client gives up on the connection,
/// so that a request whose client went away stops waiting out its injected service time
/// (S20).
///
/// Hummingbird allows remote half-closure, so a client that closes its socket does not
/// close the server's channel (and `closeFuture` does not fire) until the response is
/// written. What the server does see at once is the end of the client's input:
/// ``ConnectionCloseHandler``, one per connection in the channel pipeline, reports it
/// here. The monitor keeps one ``Watcher`` per open connection (no per-request callbacks
/// pile up on a keep-alive connection); the watcher resumes every waiter when the client
/// leaves, and a waiter whose task is cancelled leaves at once.
///
/// A client that half-closes on purpose after sending its request (legal in HTTP/1.1,
/// rare in practice) is treated as gone.
final class ConnectionCloseMonitor: Sendable {
    private let watchers = Mutex<[ObjectIdentifier: Watcher]>([:])

    /// A handler for one new connection's pipeline.
    func makeHandler() -> ConnectionCloseHandler {
        ConnectionCloseHandler(monitor: self)
    }

    /// Returns when the client of `channel` has closed its side or the calling task is
    /// cancelled. On a connection without a ``ConnectionCloseHandler`` (an in-process test
    /// router) it returns only on cancellation.
    func waitForClientClose(of channel: any Channel) async {
        let watcher = watchers.withLock { $0[ObjectIdentifier(channel)] } ?? Watcher()
        await watcher.wait()
    }

    fileprivate func connectionOpened(_ channel: any Channel) {
        watchers.withLock { $0[ObjectIdentifier(channel)] = Watcher() }
    }

    fileprivate func clientClosed(_ channel: any Channel) {
        // Kept until the channel closes: a request that starts waiting later sees it closed.
        watchers.withLock { $0[ObjectIdentifier(channel)] }?.close()
    }

    fileprivate func connectionClosed(_ channel: any Channel) {
        watchers.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }?.close()
    }

    /// The waiters of one connection.
    final class Watcher: Sendable {
        private struct State {
            var closed = false
            var nextID: UInt64 = 0
            var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
            /// Waiters cancelled before they registered their continuation.
            var cancelledEarly: Set<UInt64> = []
        }

        private let state = Mutex(State())

        func wait() async {
            let id = state.withLock { state -> UInt64 in
                state.nextID += 1
                return state.nextID
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.closed || state.cancelledEarly.remove(id) != nil { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    if let continuation = state.waiters.removeValue(forKey: id) { return continuation }
                    if !state.closed { state.cancelledEarly.insert(id) }
                    return nil
                }
                continuation?.resume()
            }
        }

        func close() {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.closed = true
                defer { state.waiters.removeAll() }
                return Array(state.waiters.values)
            }
            for continuation in waiters { continuation.resume() }
        }
    }
}

/// Tells the ``ConnectionCloseMonitor`` when a connection opens, when its client's input
/// ends (half-closure, `ChannelEvent.inputClosed`) and when it closes. Passes everything on
/// unchanged.
final class ConnectionCloseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let monitor: ConnectionCloseMonitor

    init(monitor: ConnectionCloseMonitor) {
        self.monitor = monitor
    }

    func handlerAdded(context: ChannelHandlerContext) {
        monitor.connectionOpened(context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        monitor.connectionClosed(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        monitor.connectionClosed(context.channel)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event {
            monitor.clientClosed(context.channel)
        }
        context.fireUserInboundEventTriggered(event)
    }
}

@available(*, unavailable)
extension ConnectionCloseHandler: Sendable {}
