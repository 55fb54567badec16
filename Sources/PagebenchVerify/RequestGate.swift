import Synchronization

/// The bounds every request of a verification passes (docs/verify.md, "Safe for
/// production"): at most `rate` requests a second over all connections, at most
/// `maxRequests` in all, none started after the deadline. A request waits for its slot here;
/// past a bound it is not sent. Requests admitted as a burst of `n` (V7's drains at once)
/// share one slot and the next slot comes `n` intervals later: they are sent together, so that
/// they are in flight at once, and the rate over time is the same.
final class RequestGate: Sendable {
    /// Why a request was not sent.
    struct Closed: Error, Sendable {
        let reason: String
    }

    struct State {
        var sent = 0
        var nextSlot: ContinuousClock.Instant
        /// The slot the current burst's requests share, and how many more may share it.
        var burstSlot: ContinuousClock.Instant?
        var burstLeft = 0
    }

    private let state: Mutex<State>
    private let interval: Duration
    private let maxRequests: Int
    let deadline: ContinuousClock.Instant
    private let maxSeconds: Double
    /// Why no more requests may start (an interruption), checked before each; nil: none.
    private let stopped: @Sendable () -> String?

    init(
        rate: Double,
        maxRequests: Int,
        maxSeconds: Double,
        start: ContinuousClock.Instant = .now,
        stopped: @escaping @Sendable () -> String? = { nil }
    ) {
        self.stopped = stopped
        interval = .nanoseconds(Int64((1e9 / rate).rounded()))
        self.maxRequests = maxRequests
        self.maxSeconds = maxSeconds
        deadline = start + .nanoseconds(Int64(maxSeconds * 1e9))
        state = Mutex(State(nextSlot: start))
    }

    /// Requests admitted so far.
    var sent: Int { state.withLock { $0.sent } }

    /// Waits for the next slot of the rate and counts the request.
    ///
    /// - Parameter burst: requests that share one slot (V7's drains at once), 1 or more.
    /// - Throws: ``Closed`` past `maxRequests` or the deadline, or once stopped;
    ///   `CancellationError`.
    func admit(burst: Int = 1) async throws {
        if let reason = stopped() { throw Closed(reason: reason) }
        let now = ContinuousClock.now
        let slot = try state.withLock { state throws(Closed) in try reserve(&state, now: now, burst: burst) }
        if slot > now { try await Task.sleep(until: slot, clock: .continuous) }
        if let reason = stopped() { throw Closed(reason: reason) }
    }

    /// The slot of a request asked for at `now`, counted in `state`: the current burst's slot
    /// while it has room, else the next slot of the rate (a burst of `n` moves the one after
    /// it `n` intervals on).
    func reserve(
        _ state: inout State,
        now: ContinuousClock.Instant,
        burst: Int
    ) throws(Closed) -> ContinuousClock.Instant {
        guard state.sent < maxRequests else {
            throw Closed(reason: "the request bound was reached (--max-requests \(maxRequests))")
        }
        let slot: ContinuousClock.Instant
        if burst > 1, state.burstLeft > 0, let shared = state.burstSlot {
            slot = max(now, shared)
        } else {
            slot = max(now, state.nextSlot)
        }
        guard slot < deadline else {
            throw Closed(reason: "the time bound was reached (--max-seconds \(NumberTextShort.seconds(maxSeconds)))")
        }
        state.sent += 1
        if burst > 1, state.burstLeft > 0, state.burstSlot != nil {
            state.burstLeft -= 1
        } else {
            state.nextSlot = slot + interval * max(1, burst)
            state.burstSlot = burst > 1 ? slot : nil
            state.burstLeft = max(0, burst - 1)
        }
        return slot
    }

    /// A fresh state starting at `start` (for ``reserve(_:now:burst:)`` in tests).
    func state(startingAt start: ContinuousClock.Instant) -> State { State(nextSlot: start) }
}

/// `600`, `2.5`: a number of seconds as given.
enum NumberTextShort {
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
