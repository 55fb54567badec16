import Synchronization

/// The shared state of one phase (warm-up or measured): which drain is next, when open-loop
/// drains are meant to start, and when the final cancel-everything was requested.
///
/// Workers touch it once per drain (a claim), never per page.
final class PhaseControl: Sendable {
    struct Claim: Sendable {
        var index: Int
        /// Open loop: the monotonic instant the drain is meant to start.
        var intendedStart: UInt64?
    }

    private struct State {
        var next = 0
        /// Open loop: the intended start of drain `next`, nanoseconds after the phase start.
        var arrivalOffset = 0.0
        var stopped = false
    }

    let planner: DrainPlanner
    let isWarmup: Bool
    let start: UInt64
    private let drainLimit: Int?
    private let arrivalLimitNanoseconds: Double?
    private let state = Mutex(State())
    /// Monotonic instant at which the final cancel-everything was requested; 0 before.
    let cancelRequestedAt = Atomic<UInt64>(0)

    init(planner: DrainPlanner, isWarmup: Bool, start: UInt64, drainLimit: Int?, durationNanoseconds: Double?) {
        self.planner = planner
        self.isWarmup = isWarmup
        self.start = start
        self.drainLimit = drainLimit
        self.arrivalLimitNanoseconds = durationNanoseconds
    }

    /// The next drain to run, or nil when the phase has no more.
    func claim() -> Claim? {
        let isOpen: Bool
        if case .open = planner.workload.load { isOpen = true } else { isOpen = false }
        return state.withLock { state -> Claim? in
            guard !state.stopped else { return nil }
            if let drainLimit, state.next >= drainLimit { return nil }
            let index = state.next
            var intended: UInt64?
            if isOpen {
                if let limit = arrivalLimitNanoseconds, state.arrivalOffset >= limit { return nil }
                intended = start &+ UInt64(state.arrivalOffset)
                state.arrivalOffset += planner.arrivalGapNanoseconds(index + 1)
            }
            state.next += 1
            return Claim(index: index, intendedStart: intended)
        }
    }

    /// Stops handing out drains (a duration-bound phase that lets drains in flight finish).
    func stop() {
        state.withLock { $0.stopped = true }
    }
}
