import PagebenchPage
import PagebenchPager
import PagebenchStore

/// The synthetic store as a pager `PageSource`: one `store.page(_:)` call per request.
/// The pager library knows nothing of the store; this adapter is where they meet.
public struct StorePageSource: PageSource {
    public let store: SyntheticStore

    public init(store: SyntheticStore) {
        self.store = store
    }

    @inlinable
    public func fetch(_ request: PageRequest) async throws -> Page {
        try await store.page(request)
    }

    /// The pagination info of a store page: forward cursor = its `nextToken`.
    @Sendable public static func pageInfo(_ page: Page) -> CursorBasedPagination.Forward {
        CursorBasedPagination.Forward(nextToken: page.nextToken)
    }

    /// A retry policy that treats the store's throttling and injected faults as retryable.
    public static func retryPolicy(maxRetries: Int, seed: UInt64 = 0) -> RetryPolicy {
        RetryPolicy(maxRetries: maxRetries, seed: seed, isRetryable: { PageError.isRetryable($0) })
    }

    /// A streaming pager following `request`'s tokens (the request's own token is the start).
    public func pageStream(_ request: PageRequest, retryPolicy: RetryPolicy = .none)
        -> PageStream<StorePageSource, CursorBasedPagination.Forward>
    {
        PageStream(
            source: self,
            initialRequest: request,
            retryPolicy: retryPolicy,
            extractPageInfo: StorePageSource.pageInfo,
            pageResolver: { info, _ in info.endCursor.map { request.with(token: $0) } }
        )
    }

    /// An Apollo-style pager over `request`'s pages whose output is the pages themselves.
    public func queryPager(_ request: PageRequest, retryPolicy: RetryPolicy = .none)
        -> QueryPager<StorePageSource, StorePageSource, CursorBasedPagination.Forward, PaginationOutput<Page, Page>>
    {
        QueryPager(
            source: self,
            initialRequest: request,
            retryPolicy: retryPolicy,
            extractPageInfo: StorePageSource.pageInfo,
            pageResolver: { info, _ in info.endCursor.map { request.with(token: $0) } }
        )
    }
}
