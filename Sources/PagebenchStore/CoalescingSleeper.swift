import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Waits out many concurrent injected service times (S20) on one shared timer.
///
/// `Task.sleep` arms one runtime timer per call. With hundreds of pagers each sleeping a
/// few milliseconds per page, the store asks for ~100 k timers a second, and on 2 cores the
/// runtime's timer and thread wake-up path (~15 µs of CPU each, half of it in the kernel)
/// saturates the machine: the load generator then measures its own queueing, not the
/// pager. This sleeper keeps waiters in buckets of `resolution` and lets one driver task
/// (``run()``) wake every due bucket per tick, so the timer cost is per tick, not per
/// request.
///
/// - Delays are rounded **up** to the next tick: a sleep lasts at least its duration and at
///   most one `resolution` (plus scheduling delay) longer.
/// - Cancellation does not wait for a tick: the cancelled caller is resumed at once with
///   `CancellationError`, as S20 and P13 require.
/// - Without a running driver (before ``run()`` starts or after it returns) a sleep falls
///   back to `Task.sleep`, so a store using this sleeper never hangs.
public final class CoalescingSleeper: Sendable {
    /// The tick length in nanoseconds.
    public let resolutionNanoseconds: UInt64

    private let state = Mutex(State())

    /// Creates a sleeper whose ticks last `resolution` (at least 10 µs).
    public init(resolution: Duration = .microseconds(250)) {
        let (seconds, attoseconds) = resolution.components
        let nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        resolutionNanoseconds = max(10_000, nanoseconds)
    }

    /// Sleeps for at least `duration`; throws `CancellationError` at once when the calling
    /// task is cancelled.
    public func sleep(for duration: Duration) async throws {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        guard nanoseconds > 0 else {
            try Task.checkCancellation()
            return
        }
        let deadline = Self.now() &+ nanoseconds
        let tick = (deadline + resolutionNanoseconds - 1) / resolutionNanoseconds
        let id = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            return state.nextID
        }
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
            let now = Self.now()
            if now < deadline { try await Task.sleep(nanoseconds: deadline - now) }
        }
        // A cancellation that raced a tick's wake-up was recorded for an id that is gone.
        state.withLock { _ = $0.cancelledBeforeRegistration.remove(id) }
    }

    /// Drives the ticks until the calling task is cancelled, then hands every remaining
    /// waiter back to `Task.sleep`. Run it as a child task of whatever uses the store.
    public func run() async {
        let resolution = resolutionNanoseconds
        state.withLock {
            $0.driverRunning = true
            $0.lastFiredTick = Self.now() / resolution
        }
        defer {
            let remaining = state.withLock { state -> [CheckedContinuation<Wake, any Error>] in
                state.driverRunning = false
                state.buckets.removeAll()
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
            let now = Self.now()
            let nextTick = now / resolutionNanoseconds + 1
            do {
                try await Task.sleep(nanoseconds: nextTick * resolutionNanoseconds - now)
            } catch {
                break
            }
            fireDueBuckets(upTo: Self.now() / resolutionNanoseconds)
        }
    }

    /// Whether a driver is running (tests wait for it instead of sleeping).
    var isDriving: Bool { state.withLock { $0.driverRunning } }

    /// How many sleeps wait on the driver now.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    private func fireDueBuckets(upTo currentTick: UInt64) {
        let due = state.withLock { state -> [CheckedContinuation<Wake, any Error>] in
            var due: [CheckedContinuation<Wake, any Error>] = []
            guard currentTick > state.lastFiredTick else { return due }
            for tick in (state.lastFiredTick + 1)...currentTick {
                guard let ids = state.buckets.removeValue(forKey: tick) else { continue }
                for id in ids {
                    if let waiter = state.waiters.removeValue(forKey: id) { due.append(waiter) }
                }
            }
            state.lastFiredTick = currentTick
            return due
        }
        for waiter in due { waiter.resume(returning: .fired) }
    }

    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    private enum Wake: Sendable { case fired, driverStopped }

    private enum RegisterAction {
        case cancelled
        case fallback
        case registered(wakeDriver: CheckedContinuation<Void, Never>?)
    }

    private struct State: ~Copyable {
        var nextID: UInt64 = 0
        var driverRunning = false
        var driverCancelled = false
        /// Every bucket up to this tick has been woken; new waiters go after it.
        var lastFiredTick: UInt64 = 0
        var parkedDriver: CheckedContinuation<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Wake, any Error>] = [:]
        var buckets: [UInt64: [UInt64]] = [:]
        var cancelledBeforeRegistration: Set<UInt64> = []
    }
}
