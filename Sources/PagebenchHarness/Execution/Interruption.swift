import Synchronization

/// A request to stop a run early (docs/contract.md H6): `pagebench run` makes one when SIGINT or
/// SIGTERM arrives. The phase in progress cancels its pagers (timed as cancellations) and
/// ends marked partial; no later phase starts; the rows measured so far are written.
///
/// Tasks wait for it with ``wait()``, which also returns when the waiting task is cancelled,
/// so a phase's task group can race its pagers against it and end the waiter when they finish.
public final class Interruption: Sendable {
    private struct State {
        var signal: Int32?
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waiters cancelled before they registered their continuation.
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Mutex(State())
    /// Set with the request: what pagers read at their checkpoints (one load, no lock).
    private let requested = Atomic<Bool>(false)

    public init() {}

    /// Whether a stop was requested, without taking the lock (pagers read it at checkpoints).
    var isRequestedFlag: Bool { requested.load(ordering: .acquiring) }

    /// The signal that requested the stop (`SIGINT` = 2, `SIGTERM` = 15), once one did.
    public var signal: Int32? { state.withLock { $0.signal } }

    /// Whether a stop was requested.
    public var isRequested: Bool { signal != nil }

    /// Requests the stop (the first request's signal is kept) and wakes every waiter.
    public func request(signal: Int32) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if state.signal == nil { state.signal = signal }
            requested.store(true, ordering: .releasing)
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once a stop is requested, or at once when the calling task is cancelled.
    public func wait() async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.signal != nil || state.cancelledEarly.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return waiter
            }
            waiter?.resume()
        }
    }
}
