import Synchronization

/// A clock that moves only when a test moves it: `sleep(until:)` holds its task until
/// ``advance(to:)`` passes the deadline (or the task is cancelled), and ``waitForSleepers(_:)``
/// lets the test wait until the code under test has done its work and gone back to sleep.
/// Tests step through a staged run's instants with it instead of sleeping and hoping.
package final class ManualClock: Clock, Sendable {
    package typealias Duration = Swift.Duration

    /// An instant: the time since the clock was made.
    package struct Instant: InstantProtocol {
        package var offset: Duration

        package init(offset: Duration) {
            self.offset = offset
        }

        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [UInt64: (deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = [:]
        /// Tasks in ``waitForSleepers(_:)``, each with the count of sleepers it waits for.
        var waiters = CancellableWaiters<Int, Void>()

        /// The waiters whose count of sleepers is reached, removed.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, any Error>] {
            var ready: [CheckedContinuation<Void, any Error>] = []
            while let waiter = waiters.removeFirst(where: { [count = sleepers.count] in count >= $0 }) {
                ready.append(waiter)
            }
            return ready
        }
    }

    private let state = Mutex(State())

    package init() {}

    package var now: Instant { state.withLock { $0.now } }
    package var minimumResolution: Duration { .nanoseconds(1) }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Now {
                    case wait([CheckedContinuation<Void, any Error>])
                    case resume, cancel
                }
                let now = state.withLock { state -> Now in
                    // Under the lock the cancellation handler takes: seen here or it finds the sleeper.
                    if Task.isCancelled { return .cancel }
                    if deadline <= state.now { return .resume }
                    state.sleepers[id] = (deadline, continuation)
                    return .wait(state.satisfiedWaiters())
                }
                switch now {
                case .cancel: continuation.resume(throwing: CancellationError())
                case .resume: continuation.resume()
                case .wait(let ready): for waiter in ready { waiter.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock to `instant` (never back) and wakes every sleeper whose deadline has come.
    package func advance(to instant: Instant) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            if instant > state.now { state.now = instant }
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Moves the clock on by `duration`.
    package func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Returns once at least `count` tasks sleep on the clock: the woken ones did their work
    /// and went back to sleep. Throws `CancellationError` if the waiting task is cancelled
    /// first (a test past its time limit ends instead of waiting forever).
    package func waitForSleepers(_ count: Int) async throws {
        let waiter = state.withLock { $0.waiters.makeID() }
        try await CancellableWaiters<Int, Void>.wait { continuation in
            state.withLock { state in
                guard state.sleepers.count < count else {
                    continuation.resume()
                    return nil
                }
                return state.waiters.keep(continuation, id: waiter, condition: count)
            }
        } cancel: {
            state.withLock { $0.waiters.cancel(id: waiter) }
        }
    }
}
