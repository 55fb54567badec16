import Synchronization

/// A controllable `sleep` for `RetryPolicy`: records every requested duration and either
/// returns at once or holds each sleeper until the test releases it or its task is
/// cancelled. Tests use it instead of real time.
package final class ManualSleeper: Sendable {
    private struct State {
        var holds: Bool
        var durations: [Duration] = []
        var lastID: UInt64 = 0
        var sleeping: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var cancelledEarly: Set<UInt64> = []
        var arrivalWaiters = CancellableWaiters<Void, Void>()
        var arrivals = 0
        var arrivalsTaken = 0
    }

    private let state: Mutex<State>

    /// - Parameter holds: whether sleepers wait for `releaseAll()` (else they return at once).
    package init(holds: Bool = false) {
        state = Mutex(State(holds: holds))
    }

    /// Every duration asked for, in order.
    package var durations: [Duration] { state.withLock { $0.durations } }

    /// The sleep function to put into a `RetryPolicy`.
    package var sleep: @Sendable (Duration) async throws -> Void {
        { [self] duration in try await self.sleep(for: duration) }
    }

    package func sleep(for duration: Duration) async throws {
        let (id, holds) = state.withLock { state in
            state.durations.append(duration)
            state.lastID &+= 1
            return (state.lastID, state.holds)
        }
        guard holds else {
            try Task.checkCancellation()
            return
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil {
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    state.sleeping[id] = continuation
                    state.arrivals += 1
                    if let waiter = state.arrivalWaiters.removeFirst() {
                        state.arrivalsTaken += 1
                        waiter.resume()
                    }
                }
            }
        } onCancel: {
            state.withLock { state in
                if let continuation = state.sleeping.removeValue(forKey: id) {
                    continuation.resume(throwing: CancellationError())
                } else {
                    state.cancelledEarly.insert(id)
                }
            }
        }
    }

    /// Waits until one more sleeper than previously awaited is asleep. Throws
    /// `CancellationError` if the waiting task is cancelled first (a test past its time limit
    /// ends instead of waiting forever).
    package func nextSleeper() async throws {
        let waiter = state.withLock { $0.arrivalWaiters.makeID() }
        try await CancellableWaiters<Void, Void>.wait { continuation in
            state.withLock { state in
                guard state.arrivals > state.arrivalsTaken else {
                    return state.arrivalWaiters.keep(continuation, id: waiter, condition: ())
                }
                state.arrivalsTaken += 1
                continuation.resume()
                return nil
            }
        } cancel: {
            state.withLock { $0.arrivalWaiters.cancel(id: waiter) }
        }
    }

    /// Wakes every sleeper.
    package func releaseAll() {
        let sleeping = state.withLock { state in
            defer { state.sleeping = [:] }
            return Array(state.sleeping.values)
        }
        for continuation in sleeping { continuation.resume() }
    }
}
