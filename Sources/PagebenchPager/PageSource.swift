/// Anything that answers a page request with a page: a network API, the synthetic store,
/// a scripted test source. The pagers know nothing else about it.
///
/// `fetch` should honour task cancellation promptly (throw `CancellationError` rather than
/// wait out a delay): the pagers cancel an in-flight fetch on `reset()` and when the
/// awaiting task is cancelled (SEMANTICS P12, P13).
public protocol PageSource<Request, Response>: Sendable {
    associatedtype Request: Sendable
    associatedtype Response: Sendable

    /// Returns the page for `request`, or throws. Errors conforming to `RetryableError`
    /// with `isRetryable == true` are retried by a pager whose `RetryPolicy` allows it.
    func fetch(_ request: Request) async throws -> Response
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
