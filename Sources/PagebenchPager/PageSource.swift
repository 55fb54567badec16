/// Anything that answers a page request with a page: a network API, the synthetic store,
/// a scripted test source. The pagers know nothing else about it.
///
/// `fetch` should honour task cancellation promptly (throw `CancellationError` rather than
/// wait out a delay): the pagers cancel an in-flight fetch on `reset()` and when the
/// awaiting task is cancelled (docs/contract.md P12, P13).
public protocol PageSource<Request, Response>: Sendable {
    associatedtype Request: Sendable
    associatedtype Response: Sendable

    /// Returns the page for `request`, or throws. Errors of a retryable kind of the page
    /// contract (a `PageFailure` whose `pageErrorKind` is throttled or transient) are retried
    /// by a pager whose `RetryPolicy` allows it.
    func fetch(_ request: Request) async throws -> Response

    /// The page for `request` if this source has it at once, without suspending (an
    /// in-process store with no service time); nil if it would have to wait, and then the
    /// caller awaits ``fetch(_:)``. When it answers, it answers exactly as `fetch` would
    /// (the same page, the same errors, the same cancellation behaviour).
    ///
    /// Pagers try it first: a `fetch` that returns without suspending still costs its
    /// caller an executor switch after the `await` (`swift_task_switch`, ~20 ns at limit 10;
    /// results/harness-overhead.md). The default answers nil.
    func fetchWithoutWaiting(_ request: Request) throws -> Response?
}

extension PageSource {
    @inlinable
    public func fetchWithoutWaiting(_ request: Request) throws -> Response? { nil }
}

/// A page source made of a closure.
public struct ClosurePageSource<Request: Sendable, Response: Sendable>: PageSource {
    @usableFromInline let body: @Sendable (Request) async throws -> Response

    public init(_ body: @escaping @Sendable (Request) async throws -> Response) {
        self.body = body
    }

    @inlinable
    public func fetch(_ request: Request) async throws -> Response {
        try await body(request)
    }
}
