import PagebenchBase
public import PagebenchPage
import PagebenchStore
import PagebenchWire

/// A closed-loop HTTP load for measuring the client against `wrk`: `connections` tasks,
/// each with its own connection's worth of work, drain a range by following `nextToken`
/// for a fixed duration, then start the range again — exactly what
/// `Benchmarks/wrk/follow-token.lua` makes each wrk connection do.
///
/// Harness-independent on purpose: `pagebench run --target URL` gives the full metrics;
/// this only counts requests, pages, items and statuses, so that its own cost stays
/// close to wrk's.
public struct HTTPDrainLoad: Sendable {
    /// The request every drain starts with (its token is ignored).
    public var request: PageRequest
    /// Concurrent drains; give the source at least as many connections.
    public var concurrency: Int
    /// How long to run.
    public var duration: Duration
    /// Each task stops after this many complete drains (nil: only the duration bounds it).
    public var drainsPerTask: Int?

    public init(request: PageRequest, concurrency: Int, duration: Duration, drainsPerTask: Int? = nil) {
        self.request = request.with(token: nil)
        self.concurrency = concurrency
        self.duration = duration
        self.drainsPerTask = drainsPerTask
    }

    /// What one run did. Counts are totals over all tasks.
    public struct Result: Sendable, Hashable {
        /// Requests answered (any status). Requests that got no answer are ``unanswered``.
        public var requests = 0
        /// Requests that got no answer (refused, reset, timed out); retried with back-off.
        public var unanswered = 0
        /// Pages received (200 responses).
        public var pages = 0
        /// Items returned in those pages.
        public var items = 0
        /// Drains that reached a nil token.
        public var drains = 0
        /// Retryable failures (429, 503, transport), after which the same request was repeated.
        public var retries = 0
        /// Non-retryable failures (a 404, a bad token, a malformed answer): the first one
        /// ends the run, since repeating it would only measure the error.
        public var failures = 0
        /// The first failure's message, if any.
        public var firstFailure: String?
        /// Whether the server stopped answering: a task met ``HTTPDrainLoad/giveUpAfterUnanswered``
        /// unanswered requests in a row and gave up.
        public var serverStoppedAnswering = false
        /// The last message of a request that got no answer.
        public var lastUnanswered: String?
        /// Wall-clock length of the measured window: from the start to the end of the
        /// duration, or to when the last task ended if that came first. What answers after
        /// the window (and the teardown of connections) took is not in it, and neither are
        /// those answers.
        public var elapsed: Duration = .zero

        public init() {}

        /// Requests per second of wall-clock time (higher is better).
        public var requestsPerSecond: Double {
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

    /// Unanswered requests in a row after which a task gives up on the server (waiting
    /// 10 ms, doubling to 1 s, between them).
    public static let giveUpAfterUnanswered = 6

    private enum Child: Sendable {
        case task(Result)
        case deadline
    }

    /// Runs the load through `page` (normally ``HTTPStoreSource/page(_:)``).
    ///
    /// The duration holds: when it ends, every task is cancelled, whatever it waits for (a
    /// connection being opened, an answer, a back-off), and the counts cover the window only
    /// (``Result/elapsed``).
    ///
    /// - Parameter executor: the executor preference of task `i` (nil: the global
    ///   concurrent executor). With ``HTTPStoreSource/taskExecutor(_:)`` each task runs on
    ///   the event loop of its connection, so a request costs no thread hop.
    public func run(
        executor: (@Sendable (Int) -> (any TaskExecutor)?)? = nil,
        page: @escaping @Sendable (PageRequest) async throws -> Page
    ) async -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: duration)
        let request = self.request
        let drainsPerTask = self.drainsPerTask ?? Int.max
        let concurrency = self.concurrency
        var total = await withTaskGroup(of: Child.self) { group in
            // The duration holds whatever the tasks are waiting for (connections, answers).
            group.addTask {
                try? await Task.sleep(until: deadline, clock: clock)
                return .deadline
            }
            for index in 0..<concurrency {
                group.addTask(executorPreference: executor?(index)) {
                    var result = Result()
                    var current = request
                    var unansweredInARow = 0
                    while result.drains < drainsPerTask, clock.now < deadline, !Task.isCancelled {
                        do {
                            let received = try await page(current)
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
                            }
                        } catch is CancellationError {
                            break
                        } catch where clock.now > deadline {
                            break
                        } catch let error as StoreError where error.isRetryable {
                            unansweredInARow = 0
                            result.requests += 1
                            result.retries += 1
                        } catch let error as HTTPSourceError where error.isRetryable {
                            if Task.isCancelled { break }
                            result.unanswered += 1
                            result.retries += 1
                            result.lastUnanswered = error.message
                            unansweredInARow += 1
                            if unansweredInARow >= Self.giveUpAfterUnanswered {
                                result.serverStoppedAnswering = true
                                break
                            }
                            let backoff = Duration.milliseconds(min(1000, 10 << (unansweredInARow - 1)))
                            do { try await Task.sleep(for: backoff) } catch { break }
                        } catch {
                            result.requests += 1
                            result.failures += 1
                            if result.firstFailure == nil { result.firstFailure = "\(error)" }
                            break
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
                    if finished == concurrency || result.failures > 0 || result.serverStoppedAnswering { group.cancelAll() }
                }
            }
            return total
        }
        total.elapsed = start.duration(to: min(clock.now, deadline))
        return total
    }
}
