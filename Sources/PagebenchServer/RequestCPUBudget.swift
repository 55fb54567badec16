import PagebenchBase
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The CPU time one request may use (W7, ``RequestBounds/maximumCPUTime``), charged by the
/// synchronous phases of the request and checked cooperatively inside them.
///
/// A synchronous phase runs on one thread from start to end, so the thread's CPU clock
/// (`CLOCK_THREAD_CPUTIME_ID`) measures exactly what the phase costs, however loaded the
/// machine is: a busy machine slows a request down but does not make it fail. Waiting
/// (for the store, its service time, the network) costs no CPU and is never charged.
package final class RequestCPUBudget: Sendable {
    /// Nil: unbounded.
    package let limit: Duration?
    private let spentNanoseconds = Atomic<Int64>(0)

    package init(limit: Duration?) {
        self.limit = limit
    }

    /// CPU time charged so far.
    package var spent: Duration { .nanoseconds(spentNanoseconds.load(ordering: .relaxed)) }

    /// A synchronous phase being charged: ``isExhausted`` answers for the phase so far.
    package struct Phase: Sendable {
        fileprivate let budget: RequestCPUBudget
        fileprivate let startNanoseconds: Int64
        /// What the phase is, for the error (`"validation"`).
        package let name: String

        /// Whether the request has used up its budget, this phase included.
        package var isExhausted: Bool {
            guard let limit = budget.limit else { return false }
            let spent =
                budget.spentNanoseconds.load(ordering: .relaxed)
                + (RequestCPUBudget.threadNanoseconds() - startNanoseconds)
            return Duration.nanoseconds(spent) >= limit
        }
    }

    /// Runs the synchronous `body`, charging the thread CPU time it takes; `body` may check
    /// ``Phase/isExhausted`` as often as it likes (a check reads the thread's CPU clock).
    package func charge<T, E: Error>(_ name: String, _ body: (Phase) throws(E) -> T) throws(E) -> T {
        let phase = Phase(budget: self, startNanoseconds: Self.threadNanoseconds(), name: name)
        defer { spentNanoseconds.add(Self.threadNanoseconds() - phase.startNanoseconds, ordering: .relaxed) }
        return try body(phase)
    }

    /// Whether the CPU charged so far has used up the budget.
    package var isExhausted: Bool {
        guard let limit else { return false }
        return spent >= limit
    }

    /// The calling thread's CPU time, in nanoseconds.
    static func threadNanoseconds() -> Int64 {
        var spec = timespec()
        // CLOCK_THREAD_CPUTIME_ID cannot fail for the calling thread.
        _ = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// The limit in seconds (0 when unbounded).
    package var limitSeconds: Double {
        limit?.totalSeconds ?? 0
    }

    /// What a client reads when its request used up the budget in `phase`.
    package func exhaustedMessage(in phase: String) -> String {
        "the request used more than its CPU time of \(limitSeconds) s in \(phase) (serve --max-request-cpu)"
    }
}
