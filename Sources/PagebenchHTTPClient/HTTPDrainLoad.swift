import PagebenchBase
import PagebenchPage
import PagebenchPager

/// A closed-loop HTTP load for measuring the client against `wrk`: `connections` tasks,
/// each with its own connection's worth of work, drain a range by following `nextToken`
/// for a fixed duration, then start the range again — exactly what
/// `Benchmarks/wrk/follow-token.lua` makes each wrk connection do.
///
/// Harness-independent on purpose: `pagebench run --target URL` gives the full metrics;
/// this only counts requests, pages, items and statuses, so that its own cost stays
/// close to wrk's. It pages any HTTP page source (``HTTPStoreSource``, a target file's
/// source) and classifies their failures as everything else does, by the page contract's
/// kind (``PagebenchPage/PageError/Kind/init(classifying:)``), retrying with the pagers'
/// ``PagebenchPager/RetryPolicy`` (``retryPolicy``).
package struct HTTPDrainLoad: Sendable {
    /// The request every drain starts with (its token is ignored).
    package var request: PageRequest
    /// Concurrent drains; give the source at least as many connections.
    package var concurrency: Int
    /// How long to run.
    package var duration: Duration
    /// Each task stops after this many complete drains (nil: only the duration bounds it).
    package var drainsPerTask: Int?
    /// When set, each drain reads one partition, chosen uniformly among this many
    /// (seeded per task: the same choices every run, as `run`'s `partition:uniform`)
    /// instead of ``request``'s range.
    package var partitionCount: Int?

    package init(request: PageRequest, concurrency: Int, duration: Duration, drainsPerTask: Int? = nil) {
        self.request = request.with(token: nil)
        self.concurrency = concurrency
        self.duration = duration
        self.drainsPerTask = drainsPerTask
    }

    /// What one run did. Counts are totals over all tasks.
    package struct Result: Sendable, Hashable {
        /// Requests answered (any status). Requests that got no answer are ``unanswered``.
        package var requests = 0
        /// Requests that got no answer (refused, reset, timed out: the page contract's
        /// ``PagebenchPage/PageError/Kind/transport``); retried with back-off.
        package var unanswered = 0
        /// Pages received (200 responses).
        package var pages = 0
        /// Items returned in those pages.
        package var items = 0
        /// Drains that reached a nil token.
        package var drains = 0
        /// Retryable failures (a retryable kind: throttled, transient; and transport), after
        /// which the same request was repeated.
        package var retries = 0
        /// Non-retryable failures (a 404, a bad token, a malformed answer): the first one
        /// ends the run, since repeating it would only measure the error.
        package var failures = 0
        /// The first failure's message, if any.
        package var firstFailure: String?
        /// Whether the server stopped answering: a task met ``HTTPDrainLoad/giveUpAfterUnanswered``
        /// unanswered requests in a row and gave up.
        package var serverStoppedAnswering = false
        /// The last message of a request that got no answer.
        package var lastUnanswered: String?
        /// Wall-clock length of the measured window: from the start to the end of the
        /// duration, or to when the last task ended if that came first. What answers after
        /// the window (and the teardown of connections) took is not in it, and neither are
        /// those answers.
        package var elapsed: Duration = .zero

        package init() {}

        /// Requests per second of wall-clock time (higher is better).
        package var requestsPerSecond: Double {
            let seconds = elapsed.totalSeconds
            return seconds > 0 ? Double(requests) / seconds : 0
        }

        mutating func add(_ other: Result) {
            requests += other.requests
            pages += other.pages
            items += other.items
            drains += other.drains
            retries += other.retries
            failures += other.failures
            unanswered += other.unanswered
            if firstFailure == nil { firstFailure = other.firstFailure }
            serverStoppedAnswering = serverStoppedAnswering || other.serverStoppedAnswering
            lastUnanswered = other.lastUnanswered ?? lastUnanswered
        }
    }

    /// Unanswered requests in a row after which a task gives up on the server.
    package static let giveUpAfterUnanswered = 6

    /// How a task repeats a request after a retryable answer or no answer: the pagers'
    /// ``PagebenchPager/RetryPolicy`` waiting 10 ms before the first repeat, doubling up to
    /// 1 s, without jitter (so the waits are the same on every run); no limit of its own
    /// (a task gives up after ``giveUpAfterUnanswered`` unanswered requests in a row, never
    /// on retryable answers: the server is answering). Which failure is repeated is decided
    /// by ``count(_:in:unansweredInARow:pastDeadline:)`` alone: the page contract's retryable
    /// kinds (``PagebenchPage/PageError/Kind/isRetryable``, the one rule) and an unanswered
    /// request (``PagebenchPage/PageError/Kind/transport``, re-sent as load, not retryable);
    /// whatever it does not repeat reaches the policy as ``Stop``, which ends the retries.
    package static let retryPolicy = RetryPolicy(
        maxRetries: Int.max,
        initialBackoff: .milliseconds(10),
        multiplier: 2,
        maxBackoff: .seconds(1),
        jitterFraction: 0,
        isRetryable: { !($0 is Stop) }
    )

    private enum Child: Sendable {
        case task(Result)
        case deadline
    }

    /// Raised inside a retry to end the task's loop: the failure was counted and is not repeated.
    struct Stop: Error {}

    /// Runs the load through `page` (``HTTPStoreSource/page(_:)``, or any page source's).
    ///
    /// The duration holds: when it ends, every task is cancelled, whatever it waits for (a
    /// connection being opened, an answer, a back-off), and the counts cover the window only
    /// (``Result/elapsed``).
    ///
    /// - Parameter executor: the executor preference of task `i` (nil: the global
    ///   concurrent executor). With ``HTTPStoreSource/taskExecutor(_:)`` each task runs on
    ///   the event loop of its connection, so a request costs no thread hop.
    package func run(
        executor: (@Sendable (Int) -> (any TaskExecutor)?)? = nil,
        page: @escaping @Sendable (PageRequest) async throws -> Page
    ) async -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: duration)
        let request = self.request
        let drainsPerTask = self.drainsPerTask ?? Int.max
        let partitionCount = self.partitionCount
        let concurrency = self.concurrency
        let policy = Self.retryPolicy
        var total = await withTaskGroup(of: Child.self) { group in
            // The duration holds whatever the tasks are waiting for (connections, answers).
            group.addTask {
                try? await Task.sleep(until: deadline, clock: clock)
                return .deadline
            }
            for index in 0..<concurrency {
                group.addTask(executorPreference: executor?(index)) {
                    var result = Result()
                    var partitions = SplitMix64(seed: UInt64(index), stream: 1, index: 0)
                    var current = request
                    if let partitionCount { current.range = .partition(partitions.next(below: partitionCount)) }
                    var unansweredInARow = 0
                    // The policy has no jitter: the generator is drawn from, never felt.
                    var random = SplitMix64(seed: UInt64(index))
                    while result.drains < drainsPerTask, clock.now < deadline, !Task.isCancelled {
                        let received: Page
                        do {
                            received = try await page(current)
                        } catch {
                            let pastDeadline = clock.now > deadline
                            guard
                                Self.count(
                                    error,
                                    in: &result,
                                    unansweredInARow: &unansweredInARow,
                                    pastDeadline: pastDeadline
                                )
                            else { break }
                            do {
                                received = try await policy.retry(after: error, random: &random, willRetry: {}) {
                                    do {
                                        return try await page(current)
                                    } catch {
                                        let pastDeadline = clock.now > deadline
                                        guard
                                            Self.count(
                                                error,
                                                in: &result,
                                                unansweredInARow: &unansweredInARow,
                                                pastDeadline: pastDeadline
                                            )
                                        else { throw Stop() }
                                        throw error
                                    }
                                }
                            } catch {
                                break
                            }
                        }
                        // Only what came back within the duration counts.
                        guard clock.now <= deadline else { break }
                        unansweredInARow = 0
                        result.requests += 1
                        result.pages += 1
                        result.items += received.returnedCount
                        if let token = received.nextToken {
                            current.token = token
                        } else {
                            result.drains += 1
                            current.token = nil
                            if let partitionCount { current.range = .partition(partitions.next(below: partitionCount)) }
                        }
                    }
                    return .task(result)
                }
            }
            var total = Result()
            var finished = 0
            for await child in group {
                switch child {
                case .deadline:
                    group.cancelAll()
                case .task(let result):
                    total.add(result)
                    finished += 1
                    // A non-retryable failure or a server that stopped answering ends the run.
                    if finished == concurrency || result.failures > 0 || result.serverStoppedAnswering {
                        group.cancelAll()
                    }
                }
            }
            return total
        }
        total.elapsed = start.duration(to: min(clock.now, deadline))
        return total
    }

    /// Counts a request that did not return a page, by the page contract's kind of its error,
    /// and says whether to repeat it (``retryPolicy`` then waits its back-off): a retryable
    /// kind is an answered request, repeated; ``PagebenchPage/PageError/Kind/transport`` is an
    /// unanswered one, repeated until ``giveUpAfterUnanswered`` in a row; any other kind (or
    /// an error that is no page failure) is a failure that ends the run. Cancellation, and
    /// whatever failed after the duration, is not counted.
    static func count(
        _ error: any Error,
        in result: inout Result,
        unansweredInARow: inout Int,
        pastDeadline: Bool
    ) -> Bool {
        if error is CancellationError || pastDeadline { return false }
        switch PageError.Kind(classifying: error) {
        case let kind? where kind.isRetryable:
            unansweredInARow = 0
            result.requests += 1
            result.retries += 1
            return true
        case .transport?:
            if Task.isCancelled { return false }
            result.unanswered += 1
            result.retries += 1
            result.lastUnanswered = "\(error)"
            unansweredInARow += 1
            if unansweredInARow >= giveUpAfterUnanswered {
                result.serverStoppedAnswering = true
                return false
            }
            return true
        default:
            result.requests += 1
            result.failures += 1
            if result.firstFailure == nil { result.firstFailure = "\(error)" }
            return false
        }
    }
}
