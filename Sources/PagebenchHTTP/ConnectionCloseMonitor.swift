import NIOCore
import Synchronization

/// Lets a request handler wait, cancellably, until its client's connection closes, so a
/// request whose client went away stops waiting out its injected service time (S20).
///
/// `EventLoopFuture.get()` cannot be cancelled, and registering one `closeFuture`
/// callback per request would pile up callbacks on a keep-alive connection for as long
/// as it lives. So the monitor keeps one ``Watcher`` per open connection, created on the
/// connection's first waiting request and dropped when it closes; the watcher resumes
/// every waiter at close, and a waiter whose task is cancelled leaves at once.
final class ConnectionCloseMonitor: Sendable {
    private let watchers = Mutex<[ObjectIdentifier: Watcher]>([:])

    /// Open connections with a watcher (for tests: must drop to zero once connections close).
    var watchedConnections: Int { watchers.withLock { $0.count } }

    /// Returns when `channel` has closed or the calling task is cancelled.
    func waitForClose(of channel: any Channel) async {
        let key = ObjectIdentifier(channel)
        let (watcher, isNew) = watchers.withLock { watchers -> (Watcher, Bool) in
            if let watcher = watchers[key] { return (watcher, false) }
            let watcher = Watcher()
            watchers[key] = watcher
            return (watcher, true)
        }
        if isNew {
            // Registered outside the lock: a closed channel runs the callback at once.
            channel.closeFuture.whenComplete { [self] _ in
                watchers.withLock { _ = $0.removeValue(forKey: key) }
                watcher.close()
            }
        }
        await watcher.wait()
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
