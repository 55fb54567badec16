import Synchronization

/// The bounds every request of a verification passes (docs/verify.md, "Safe for
/// production"): at most `rate` requests a second over all connections, at most
/// `maxRequests` in all, none started after the deadline. A request waits for its slot here;
/// past a bound it is not sent.
final class RequestGate: Sendable {
    /// Why a request was not sent.
    struct Closed: Error, Sendable {
        let reason: String
    }

    private struct State {
        var sent = 0
        var nextSlot: ContinuousClock.Instant
    }

    private let state: Mutex<State>
    private let interval: Duration
    private let maxRequests: Int
    let deadline: ContinuousClock.Instant
    private let maxSeconds: Double
    /// Why no more requests may start (an interruption), checked before each; nil: none.
    private let stopped: @Sendable () -> String?

    init(
        rate: Double, maxRequests: Int, maxSeconds: Double, start: ContinuousClock.Instant = .now,
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
    /// - Throws: ``Closed`` past `maxRequests` or the deadline, or once stopped;
    ///   `CancellationError`.
    func admit() async throws {
        if let reason = stopped() { throw Closed(reason: reason) }
        let now = ContinuousClock.now
        let slot: ContinuousClock.Instant = try state.withLock { state throws(Closed) in
            guard state.sent < maxRequests else {
                throw Closed(reason: "the request bound was reached (--max-requests \(maxRequests))")
            }
            let slot = max(now, state.nextSlot)
            guard slot < deadline else {
                throw Closed(reason: "the time bound was reached (--max-seconds \(NumberTextShort.seconds(maxSeconds)))")
            }
            state.sent += 1
            state.nextSlot = slot + interval
            return slot
        }
        if slot > now { try await Task.sleep(until: slot, clock: .continuous) }
        if let reason = stopped() { throw Closed(reason: reason) }
    }
}

/// `600`, `2.5`: a number of seconds as given.
enum NumberTextShort {
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
