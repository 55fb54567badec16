import Synchronization

/// Cumulative work counters of one pager, readable at any time without waiting for the
/// pager (atomics; one relaxed increment per request or page). They survive `reset()`:
/// a request cancelled by a reset still counts as work done.
public final class PagerCounters: Sendable {
    @usableFromInline let requestsStorage = Atomic<Int>(0)
    @usableFromInline let retriesStorage = Atomic<Int>(0)
    @usableFromInline let pagesStorage = Atomic<Int>(0)

    public init() {}

    /// Source requests started, retries included. Unit: requests; smaller is better.
    public var requests: Int { requestsStorage.load(ordering: .relaxed) }
    /// Requests repeated because of a retryable source error. Unit: requests.
    public var retries: Int { retriesStorage.load(ordering: .relaxed) }
    /// Pages received from the source and accepted (held or yielded). Unit: pages.
    public var pages: Int { pagesStorage.load(ordering: .relaxed) }

    // wrappingAdd is one `lock xadd`; `add` checks for overflow and compiles to a
    // load + compare-exchange loop (measured on x86_64). An Int counter of requests
    // cannot overflow in practice.
    @inlinable func countRequest() { requestsStorage.wrappingAdd(1, ordering: .relaxed) }
    @inlinable func countRetry() { retriesStorage.wrappingAdd(1, ordering: .relaxed) }
    @inlinable func countPage() { pagesStorage.wrappingAdd(1, ordering: .relaxed) }
}
