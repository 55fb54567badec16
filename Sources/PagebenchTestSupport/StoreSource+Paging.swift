import PagebenchHarness
import PagebenchPage
import PagebenchPager
import PagebenchStore

/// Pagers over the harness's store adapter (``PagebenchHarness/StoreSource``, the one place
/// the synthetic store becomes a pager `PageSource`), for tests that page a store directly.
extension StoreSource {
    /// The pagination info of a store page: forward cursor = its `nextToken`.
    @Sendable package static func pageInfo(_ page: Page) -> CursorBasedPagination.Forward {
        CursorBasedPagination.Forward(nextToken: page.nextToken)
    }

    /// A retry policy that retries the store's throttling and injected faults (the policy's
    /// default classifier, the page contract's rule).
    package static func retryPolicy(maxRetries: Int, seed: UInt64 = 0) -> RetryPolicy {
        RetryPolicy(maxRetries: maxRetries, seed: seed)
    }

    /// A streaming pager following `request`'s tokens (the request's own token is the start).
    package func pageStream(
        _ request: PageRequest,
        retryPolicy: RetryPolicy = .none
    )
        -> PageStream<StoreSource, CursorBasedPagination.Forward>
    {
        PageStream(
            source: self,
            initialRequest: request,
            retryPolicy: retryPolicy,
            extractPageInfo: StoreSource.pageInfo,
            pageResolver: { info, _ in info.endCursor.map { request.with(token: $0) } }
        )
    }

    /// An Apollo-style pager over `request`'s pages whose output is the pages themselves.
    package func queryPager(
        _ request: PageRequest,
        retryPolicy: RetryPolicy = .none
    )
        -> QueryPager<StoreSource, StoreSource, CursorBasedPagination.Forward, PaginationOutput<Page, Page>>
    {
        QueryPager(
            source: self,
            initialRequest: request,
            retryPolicy: retryPolicy,
            extractPageInfo: StoreSource.pageInfo,
            pageResolver: { info, _ in info.endCursor.map { request.with(token: $0) } }
        )
    }
}
