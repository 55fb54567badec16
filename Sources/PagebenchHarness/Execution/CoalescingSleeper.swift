import PagebenchBase
import Synchronization

/// Waits out many concurrent injected service times (S20) on one shared timer.
///
/// `Task.sleep` arms one runtime timer per call. With hundreds of pagers each sleeping a
/// few milliseconds per page, the runtime's timer and wake-up path saturates a small
/// machine, and the load generator then measures its own queueing, not the pager (figures:
/// `results/design-measurements.md`). This sleeper keeps waiters in buckets of `resolution` and lets one driver task
/// (``run()``) wake every due bucket per tick, so the timer cost is per tick, not per
/// request.
///
/// Wake-ups are handed to the executor a few at a time (at most ``maxQueuedWakeUps``
/// resumed waiters not yet running; each waiter, once it runs, resumes the next due one).
/// With a fixed service time, hundreds of pagers fall into step, and one tick can find
/// hundreds of waiters due at once; resuming them all puts milliseconds of work into the
/// executor's FIFO queue ahead of anything resumed afterwards, such as a cancelled pager.
/// Due waiters now wait here instead, in deadline order, and a cancelled one leaves this
/// queue at once, so it queues behind at most a few wake-ups. The total work is the same.
///
/// - Delays are rounded **up** to the next tick: a sleep lasts at least its duration and at
///   most one `resolution` (plus scheduling delay, which includes waiting for the wake-ups
///   due before it) longer.
/// - Cancellation does not wait for a tick: the cancelled caller is resumed at once with
///   `CancellationError`, as S20 and P13 require.
/// - Without a running driver (before ``run()`` starts or after it returns) a sleep falls
///   back to `Task.sleep`, so a store using this sleeper never hangs.
public final class CoalescingSleeper: Sendable {
    /// The tick length in nanoseconds.
    public let resolutionNanoseconds: UInt64

    /// How many waiters this sleeper has resumed that have not started running yet, at most.
    public let maxQueuedWakeUps: Int

    private let state = Mutex(State())
    private let nextID = Atomic<UInt64>(0)

    /// Creates a sleeper whose ticks last `resolution` (at least 10 µs) and which keeps at
    /// most `maxQueuedWakeUps` (at least 1) woken waiters queued for the executor at once.
    public init(resolution: Duration = .microseconds(250), maxQueuedWakeUps: Int = 8) {
        self.maxQueuedWakeUps = max(1, maxQueuedWakeUps)
        resolutionNanoseconds = max(10_000, UInt64(max(0, resolution.clampedNanoseconds)))
    }

    /// Sleeps for at least `duration`; throws `CancellationError` at once when the calling
    /// task is cancelled.
    public func sleep(for duration: Duration) async throws {
        // At most Int64.max (292 years): the deadline and its tick below cannot overflow.
        let nanoseconds = UInt64(max(0, duration.clampedNanoseconds))
        guard nanoseconds > 0 else {
            try Task.checkCancellation()
            return
        }
        let deadline = MonotonicTime.nanoseconds() &+ nanoseconds
        let tick = (deadline + resolutionNanoseconds - 1) / resolutionNanoseconds
        let id = nextID.add(1, ordering: .relaxed).newValue
        let outcome: Wake = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Wake, any Error>) in
                let action = state.withLock { state -> RegisterAction in
                    if state.cancelledBeforeRegistration.remove(id) != nil { return .cancelled }
                    guard state.driverRunning else { return .fallback }
                    state.waiters[id] = continuation
                    state.buckets[max(tick, state.lastFiredTick + 1), default: []].append(id)
                    let driver = state.parkedDriver
                    state.parkedDriver = nil
                    return .registered(wakeDriver: driver)
                }
                switch action {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .fallback: continuation.resume(returning: .driverStopped)
                case .registered(let driver): driver?.resume()
                }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Wake, any Error>? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                state.cancelledBeforeRegistration.insert(id)
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
        if outcome == .driverStopped {
            // No driver: wait out whatever is left on the runtime's own timer.
            let now = MonotonicTime.nanoseconds()
            if now < deadline { try await Task.sleep(nanoseconds: deadline - now) }
        }
        // This waiter is running: it no longer counts as queued, so wake the next due one(s).
        // A cancellation that raced the wake-up was recorded for an id that is gone.
        let next = state.withLock { state -> [CheckedContinuation<Wake, any Error>] in
            _ = state.cancelledBeforeRegistration.remove(id)
            guard outcome == .fired else { return [] }
            state.queuedWakeUps -= 1
            return state.takeDue(upTo: maxQueuedWakeUps)
        }
        for waiter in next { waiter.resume(returning: .fired) }
    }

    /// Drives the ticks until the calling task is cancelled, then hands every remaining
    /// waiter back to `Task.sleep`. Run it as a child task of whatever uses the store.
    public func run() async {
        let resolution = resolutionNanoseconds
        state.withLock {
            $0.driverRunning = true
            $0.lastFiredTick = MonotonicTime.nanoseconds() / resolution
        }
        defer {
            let remaining = state.withLock { state -> [CheckedContinuation<Wake, any Error>] in
                state.driverRunning = false
                state.buckets.removeAll()
                state.due.removeAll()
                state.dueHead = 0
                defer { state.waiters.removeAll() }
                return Array(state.waiters.values)
            }
            for waiter in remaining { waiter.resume(returning: .driverStopped) }
        }
        while !Task.isCancelled {
            // Park while nobody waits, so an idle store costs no timer wake-ups.
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let park = state.withLock { state -> Bool in
                        guard state.waiters.isEmpty, !state.driverCancelled else { return false }
                        state.parkedDriver = continuation
                        return true
                    }
                    if !park { continuation.resume() }
                }
            } onCancel: {
                let parked = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.driverCancelled = true
                    defer { state.parkedDriver = nil }
                    return state.parkedDriver
                }
                parked?.resume()
            }
            if Task.isCancelled { break }
            let now = MonotonicTime.nanoseconds()
            let nextTick = now / resolutionNanoseconds + 1
            do {
                try await Task.sleep(nanoseconds: nextTick * resolutionNanoseconds - now)
            } catch {
                break
            }
            fireDueBuckets(upTo: MonotonicTime.nanoseconds() / resolutionNanoseconds)
        }
    }

    /// Whether a driver is running (tests wait for it instead of sleeping).
    var isDriving: Bool { state.withLock { $0.driverRunning } }

    /// How many sleeps wait on the driver now.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    private func fireDueBuckets(upTo currentTick: UInt64) {
        let due = state.withLock { state -> [CheckedContinuation<Wake, any Error>] in
            if currentTick > state.lastFiredTick {
                for tick in (state.lastFiredTick + 1)...currentTick {
                    guard let ids = state.buckets.removeValue(forKey: tick) else { continue }
                    state.due.append(contentsOf: ids)
                }
                state.lastFiredTick = currentTick
            }
            return state.takeDue(upTo: maxQueuedWakeUps)
        }
        for waiter in due { waiter.resume(returning: .fired) }
    }

    private enum Wake: Sendable { case fired, driverStopped }

    private enum RegisterAction {
        case cancelled
        case fallback
        case registered(wakeDriver: CheckedContinuation<Void, Never>?)
    }

    private struct State: ~Copyable {
        var driverRunning = false
        var driverCancelled = false
        /// Every bucket up to this tick has been woken; new waiters go after it.
        var lastFiredTick: UInt64 = 0
        var parkedDriver: CheckedContinuation<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Wake, any Error>] = [:]
        var buckets: [UInt64: [UInt64]] = [:]
        var cancelledBeforeRegistration: Set<UInt64> = []
        /// Waiters whose tick has passed, in deadline order, not yet resumed (ids of
        /// cancelled ones are skipped when they come up).
        var due: [UInt64] = []
        /// Where ``due`` starts: entries before it have been taken.
        var dueHead = 0
        /// Waiters resumed with `.fired` that have not started running yet.
        var queuedWakeUps = 0

        /// Takes due waiters until `limit` woken waiters are queued; the caller resumes them.
        mutating func takeDue(upTo limit: Int) -> [CheckedContinuation<Wake, any Error>] {
            var taken: [CheckedContinuation<Wake, any Error>] = []
            while queuedWakeUps < limit, dueHead < due.count {
                let id = due[dueHead]
                dueHead += 1
                if let waiter = waiters.removeValue(forKey: id) {
                    taken.append(waiter)
                    queuedWakeUps += 1
                }
            }
            if dueHead == due.count {
                due.removeAll(keepingCapacity: true)
                dueHead = 0
            } else if dueHead >= 4096, dueHead * 2 >= due.count {
                due.removeFirst(dueHead)
                dueHead = 0
            }
            return taken
        }
    }
}
