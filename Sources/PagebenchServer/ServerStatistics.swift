import Synchronization

/// Counters of a running ``StoreServer``, readable while it serves (and in tests).
/// Lock-free: every request updates them.
package final class ServerStatistics: Sendable {
    private let started = Atomic<Int>(0)
    private let finished = Atomic<Int>(0)
    private let abandoned = Atomic<Int>(0)

    package init() {}

    /// Page requests that reached the store (every list endpoint call with valid parameters).
    package var requestsStarted: Int { started.load(ordering: .relaxed) }
    /// Page requests whose response was produced (success or error), abandoned ones included.
    package var requestsFinished: Int { finished.load(ordering: .relaxed) }
    /// Page requests stopped because their client closed the connection while the store
    /// was waiting out the service time (S20): work the server did not waste.
    package var requestsAbandoned: Int { abandoned.load(ordering: .relaxed) }
    /// Page requests in progress now.
    package var requestsInFlight: Int { requestsStarted - requestsFinished }

    func recordStart() { started.add(1, ordering: .relaxed) }
    func recordFinish() { finished.add(1, ordering: .relaxed) }
    func recordAbandoned() { abandoned.add(1, ordering: .relaxed) }
}
