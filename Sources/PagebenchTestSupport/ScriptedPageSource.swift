import PagebenchPage
import PagebenchPager
import Synchronization

/// A request to a `ScriptedPageSource`: a token (nil for the initial page) and the
/// direction it was built for.
package struct ScriptedRequest: Hashable, Sendable, CustomStringConvertible {
    package var token: String?
    package var direction: PaginationDirection

    package init(token: String?, direction: PaginationDirection = .next) {
        self.token = token
        self.direction = direction
    }

    /// The request for the initial page.
    package static let initial = ScriptedRequest(token: nil)

    package var description: String { "\(direction):\(token ?? "nil")" }
}

/// A page of a `ScriptedPageSource`: items plus tokens to the following and preceding pages.
package struct ScriptedPage: Hashable, Sendable {
    package var items: [Int]
    package var nextToken: String?
    package var previousToken: String?

    package init(items: [Int], nextToken: String?, previousToken: String? = nil) {
        self.items = items
        self.nextToken = nextToken
        self.previousToken = previousToken
    }

    /// Forward cursor info of this page.
    package var forwardInfo: CursorBasedPagination.Forward { .init(nextToken: nextToken) }

    /// Bidirectional cursor info of this page.
    package var bidirectionalInfo: CursorBasedPagination.Bidirectional {
        .init(
            hasNext: nextToken != nil,
            endCursor: nextToken,
            hasPrevious: previousToken != nil,
            startCursor: previousToken
        )
    }
}

/// An error a `ScriptedPageSource` throws.
///
/// A page failure of the page contract (``PagebenchPage/PageFailure``): a retryable one is
/// ``PagebenchPage/PageError/Kind/throttled``, any other ``PagebenchPage/PageError/Kind/refused``.
package struct ScriptedSourceError: PageFailure, Hashable, CustomStringConvertible {
    package var message: String
    package var isRetryable: Bool

    package init(_ message: String, isRetryable: Bool = false) {
        self.message = message
        self.isRetryable = isRetryable
    }

    package var pageErrorKind: PageError.Kind { isRetryable ? .throttled : .refused }

    /// A retryable "throttled" error, like the store's (docs/contract.md S21).
    package static let throttled = ScriptedSourceError("throttled", isRetryable: true)

    package var description: String { "ScriptedSourceError: \(message)" }
}

/// A page source whose pages, failures and timing a test controls (docs/contract.md P1–P15 tests).
///
/// Pages come from a script: a table from request to page. In gated mode every fetch
/// suspends until the test takes it with `nextFetch()` and answers it with `release()`
/// or `fail(_:)`; a fetch whose task is cancelled throws `CancellationError` at once.
/// Tests step through events this way instead of sleeping.
///
/// Requests named with `answerAtOnce(_:)` are answered by `fetchWithoutWaiting`, as an
/// in-process store answers, gated or not; a hook (`onAnswerAtOnce`) runs just before each
/// such answer, so a test can reset a pager or cancel a task at an exact page of a load that
/// never suspends.
package final class ScriptedPageSource: PageSource, Sendable {
    package typealias Request = ScriptedRequest
    package typealias Response = ScriptedPage

    private struct Waiting {
        var request: ScriptedRequest
        var continuation: CheckedContinuation<ScriptedPage, any Error>
    }

    private struct State {
        var script: [ScriptedRequest: ScriptedPage]
        var failures: [ScriptedRequest: [any Error]] = [:]
        var gated: Bool
        var log: [ScriptedRequest] = []
        var lastFetchID: UInt64 = 0
        var waiting: [UInt64: Waiting] = [:]
        var unclaimed: [UInt64] = []
        var cancelledBeforeWaiting: Set<UInt64> = []
        var cancellations = 0
        var claimers = CancellableWaiters<Void, PendingFetch>()
        var answeredAtOnce: Set<ScriptedRequest> = []
        var answersAtOnce = 0
        var onAnswerAtOnce: (@Sendable (ScriptedRequest) -> Void)?

        /// Records a request and returns the next failure scripted for it, if any.
        mutating func logRequest(_ request: ScriptedRequest) -> (any Error)? {
            log.append(request)
            guard var errors = failures[request], !errors.isEmpty else { return nil }
            let failure = errors.removeFirst()
            failures[request] = errors
            return failure
        }
    }

    private let state: Mutex<State>

    /// - Parameters:
    ///   - script: the page for each request.
    ///   - gated: whether each fetch waits for the test to release it.
    package init(script: [ScriptedRequest: ScriptedPage], gated: Bool = false) {
        state = Mutex(State(script: script, gated: gated))
    }

    /// A forward chain of pages: the initial request returns `pages[0]` with token "t1",
    /// request "t1" returns `pages[1]`, ..., the last page has no token. Empty arrays are
    /// empty pages with a token (docs/contract.md S3).
    package convenience init(forwardPages pages: [[Int]], gated: Bool = false) {
        precondition(!pages.isEmpty, "a forward script needs at least the initial page")
        var script: [ScriptedRequest: ScriptedPage] = [:]
        for (index, items) in pages.enumerated() {
            let token = index == 0 ? nil : "t\(index)"
            let next = index + 1 < pages.count ? "t\(index + 1)" : nil
            script[ScriptedRequest(token: token)] = ScriptedPage(items: items, nextToken: next)
        }
        self.init(script: script, gated: gated)
    }

    /// Pages on both sides of an initial page: `previous` earliest first, `next` in order.
    /// Next tokens are "n1", "n2", ...; previous tokens "p1" (the page just before the
    /// initial one), "p2", ....
    package convenience init(previous: [[Int]], initial: [Int], next: [[Int]], gated: Bool = false) {
        var script: [ScriptedRequest: ScriptedPage] = [:]
        func previousToken(_ distance: Int) -> String? { distance <= previous.count ? "p\(distance)" : nil }
        func nextToken(_ distance: Int) -> String? { distance <= next.count ? "n\(distance)" : nil }
        script[.initial] = ScriptedPage(items: initial, nextToken: nextToken(1), previousToken: previousToken(1))
        for (offset, items) in next.enumerated() {
            let distance = offset + 1
            script[ScriptedRequest(token: "n\(distance)", direction: .next)] = ScriptedPage(
                items: items,
                nextToken: nextToken(distance + 1),
                previousToken: nil
            )
        }
        for (offset, items) in previous.reversed().enumerated() {
            let distance = offset + 1
            script[ScriptedRequest(token: "p\(distance)", direction: .previous)] = ScriptedPage(
                items: items,
                nextToken: nil,
                previousToken: previousToken(distance + 1)
            )
        }
        self.init(script: script, gated: gated)
    }

    // MARK: Scripting

    /// Makes the next `errors.count` fetches of `request` throw these errors, in order.
    package func fail(_ request: ScriptedRequest, with errors: [any Error]) {
        state.withLock { $0.failures[request, default: []].append(contentsOf: errors) }
    }

    /// Every request received, in order.
    package var requests: [ScriptedRequest] { state.withLock { $0.log } }

    /// Number of requests received.
    package var requestCount: Int { state.withLock { $0.log.count } }

    /// Number of gated fetches ended by cancellation of their task.
    package var cancellationCount: Int { state.withLock { $0.cancellations } }

    /// Makes `fetchWithoutWaiting` answer these requests (with their page, or their scripted
    /// failure) instead of leaving them to `fetch`.
    package func answerAtOnce(_ requests: some Sequence<ScriptedRequest>) {
        state.withLock { $0.answeredAtOnce.formUnion(requests) }
    }

    /// Runs `hook` with each request `fetchWithoutWaiting` answers, just before the answer, on
    /// the answering task and outside the source's lock.
    package func onAnswerAtOnce(_ hook: @escaping @Sendable (ScriptedRequest) -> Void) {
        state.withLock { $0.onAnswerAtOnce = hook }
    }

    /// Number of requests answered by `fetchWithoutWaiting` (they are in `requests` too).
    package var answerAtOnceCount: Int { state.withLock { $0.answersAtOnce } }

    // MARK: PageSource

    package func fetchWithoutWaiting(_ request: ScriptedRequest) throws -> ScriptedPage? {
        let answer = state.withLock { state -> (failure: (any Error)?, hook: (@Sendable (ScriptedRequest) -> Void)?)? in
            guard state.answeredAtOnce.contains(request) else { return nil }
            state.answersAtOnce += 1
            return (state.logRequest(request), state.onAnswerAtOnce)
        }
        guard let answer else { return nil }
        answer.hook?(request)
        if let failure = answer.failure { throw failure }
        return try page(for: request)
    }

    package func fetch(_ request: ScriptedRequest) async throws -> ScriptedPage {
        let (id, failure, gated) = state.withLock { state -> (UInt64, (any Error)?, Bool) in
            let failure = state.logRequest(request)
            state.lastFetchID &+= 1
            return (state.lastFetchID, failure, state.gated)
        }
        if let failure { throw failure }
        guard gated else { return try page(for: request) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ScriptedPage, any Error>) in
                state.withLock { state in
                    if state.cancelledBeforeWaiting.remove(id) != nil {
                        state.cancellations += 1
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    state.waiting[id] = Waiting(request: request, continuation: continuation)
                    if let claimer = state.claimers.removeFirst() {
                        claimer.resume(returning: PendingFetch(id: id, request: request, source: self))
                    } else {
                        state.unclaimed.append(id)
                    }
                }
            }
        } onCancel: {
            state.withLock { state in
                if let waiting = state.waiting.removeValue(forKey: id) {
                    state.unclaimed.removeAll { $0 == id }
                    state.cancellations += 1
                    waiting.continuation.resume(throwing: CancellationError())
                } else {
                    state.cancelledBeforeWaiting.insert(id)
                }
            }
        }
    }

    private func page(for request: ScriptedRequest) throws -> ScriptedPage {
        guard let page = state.withLock({ $0.script[request] }) else {
            throw ScriptedSourceError("no page scripted for request \(request)")
        }
        return page
    }

    // MARK: Stepping through gated fetches

    /// A gated fetch waiting for the test's answer.
    package struct PendingFetch: Sendable {
        let id: UInt64
        /// What was requested.
        package let request: ScriptedRequest
        let source: ScriptedPageSource

        /// Answers with the scripted page. Returns false if the fetch was cancelled first.
        @discardableResult
        package func release() -> Bool {
            source.answer(id) { request in Result { try source.page(for: request) } }
        }

        /// Answers with `error`. Returns false if the fetch was cancelled first.
        @discardableResult
        package func fail(_ error: any Error) -> Bool {
            source.answer(id) { _ in .failure(error) }
        }
    }

    /// Waits for the next gated fetch that no one has taken yet, in arrival order. Throws
    /// `CancellationError` if the waiting task is cancelled first (a test past its time limit
    /// ends instead of waiting for a fetch its cancelled code will never make).
    package func nextFetch() async throws -> PendingFetch {
        let claimer = state.withLock { $0.claimers.makeID() }
        return try await CancellableWaiters<Void, PendingFetch>.wait { continuation in
            state.withLock { state in
                guard !state.unclaimed.isEmpty else {
                    return state.claimers.keep(continuation, id: claimer, condition: ())
                }
                let id = state.unclaimed.removeFirst()
                let request = state.waiting[id]!.request
                continuation.resume(returning: PendingFetch(id: id, request: request, source: self))
                return nil
            }
        } cancel: {
            state.withLock { $0.claimers.cancel(id: claimer) }
        }
    }

    /// Stops gating and answers every waiting fetch with its scripted page.
    package func openGate() {
        let waiting = state.withLock { state in
            state.gated = false
            state.unclaimed = []
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for entry in waiting {
            entry.continuation.resume(with: Result { try page(for: entry.request) })
        }
    }

    private func answer(_ id: UInt64, _ result: (ScriptedRequest) -> Result<ScriptedPage, any Error>) -> Bool {
        guard let waiting = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { return false }
        waiting.continuation.resume(with: result(waiting.request))
        return true
    }
}
