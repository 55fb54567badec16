import PagebenchHTTPClient
import PagebenchPage
import PagebenchPager
import PagebenchStore
import Synchronization
import Testing

/// Issue 28: `http-bench`'s loop classifies failures as every other page loop does, by the page
/// contract's kind (`PageError.Kind(classifying:)`), and waits with the pagers' `RetryPolicy`.
/// The sources here are closures: no server, no socket; only the back-offs' real sleeps (10 ms
/// and 20 ms) pass, and nothing is timed.
@Suite("HTTP drain load classification")
struct HTTPDrainLoadClassificationTests {
    private final class Calls: Sendable {
        let count = Atomic<Int>(0)
    }

    /// A source that throws `failures[n]` for its n-th request while there are any, then
    /// answers a last page.
    private static func source(failing failures: [any Error & Sendable]) -> @Sendable (PageRequest) async throws -> Page
    {
        let calls = Calls()
        return { _ in
            let call = calls.count.add(1, ordering: .relaxed).oldValue
            if call < failures.count { throw failures[call] }
            return Page(items: [], scannedCount: 0, scannedBytes: 0, nextToken: nil)
        }
    }

    private static func run(failing failures: [any Error & Sendable]) async -> HTTPDrainLoad.Result {
        let load = HTTPDrainLoad(
            request: PageRequest(range: .scan, limit: 9),
            concurrency: 1,
            duration: .seconds(600),
            drainsPerTask: 1
        )
        return await load.run(page: source(failing: failures))
    }

    @Test("S21, T3: a retryable PageError (throttled, transient) of any source is repeated, not a failure")
    func s21t3RetryablePageErrorsAreRepeated() async {
        let result = await Self.run(failing: [
            PageError(.throttled, "throttled (HTTP 429)", status: 429),
            PageError(.transient, "unavailable", status: 503),
        ])
        #expect(result.failures == 0, "\(result.firstFailure ?? "")")
        #expect(result.retries == 2 && result.requests == 3 && result.pages == 1 && result.drains == 1, "\(result)")
        #expect(result.unanswered == 0)
    }

    @Test("T2: a transport PageError is a request without an answer, repeated after a back-off")
    func t2TransportPageErrorsAreUnanswered() async {
        let result = await Self.run(failing: [
            PageError(.transport, "connection refused"), PageError(.transport, "reset"),
        ])
        #expect(result.failures == 0, "\(result.firstFailure ?? "")")
        #expect(result.unanswered == 2 && result.retries == 2 && result.requests == 1 && result.pages == 1, "\(result)")
        #expect(result.lastUnanswered == "reset")
        #expect(!result.serverStoppedAnswering)
    }

    @Test("a task gives up after giveUpAfterUnanswered unanswered requests in a row")
    func unansweredInARowEndTheRun() async {
        let failures = Array(repeating: PageError(.transport, "refused"), count: HTTPDrainLoad.giveUpAfterUnanswered)
        let result = await Self.run(failing: failures)
        #expect(result.serverStoppedAnswering)
        #expect(result.unanswered == HTTPDrainLoad.giveUpAfterUnanswered && result.requests == 0 && result.pages == 0)
    }

    @Test(
        "T2: a non-retryable kind ends the run at once, counted as a failure",
        arguments: [PageError.Kind.refused, .malformedAnswer, .invalidToken, .tokenMismatch, .invalidRequest]
    )
    func t2NonRetryableKindsEndTheRun(kind: PageError.Kind) async {
        let result = await Self.run(failing: [PageError(kind, "no page: \(kind)")])
        #expect(result.failures == 1 && result.requests == 1 && result.retries == 0 && result.pages == 0, "\(result)")
        #expect(result.firstFailure == "no page: \(kind)")
    }

    @Test("an error that is no page failure is a failure, not a retry")
    func foreignErrorsEndTheRun() async {
        struct Foreign: Error, CustomStringConvertible { var description: String { "foreign" } }
        let result = await Self.run(failing: [Foreign()])
        #expect(result.failures == 1 && result.retries == 0 && result.firstFailure == "foreign")
    }

    @Test("the back-off is RetryPolicy's: 10 ms doubling to 1 s, no jitter")
    func backoffIsTheRetryPolicys() {
        let policy = HTTPDrainLoad.retryPolicy
        let waits = (1...9).map { policy.backoff(forRetry: $0, unit: 0.99) }
        #expect(waits == [10, 20, 40, 80, 160, 320, 640, 1000, 1000].map { Duration.milliseconds($0) })
    }

    @Test("S21: the store's own errors are repeated by their page-contract kind, whatever the source")
    func s21StoreErrorsAreRepeatedByTheirKind() async {
        let repeated = await Self.run(failing: [
            StoreError(remote: .throttled, message: "throttled"), StoreError(remote: .injectedFault, message: "fault"),
        ])
        #expect(repeated.failures == 0 && repeated.retries == 2 && repeated.drains == 1, "\(repeated)")
        let failed = await Self.run(failing: [StoreError(remote: .invalidToken, message: "bad token")])
        #expect(failed.failures == 1 && failed.retries == 0 && failed.firstFailure == "bad token", "\(failed)")
    }
}
