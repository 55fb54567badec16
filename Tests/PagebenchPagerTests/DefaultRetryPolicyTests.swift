import PagebenchPage
import PagebenchPager
import PagebenchStore
import Testing

/// Issue 39: a user of the PagebenchStore and PagebenchPager products alone (no harness) gets
/// the store's throttling and injected faults retried by the pager's default `RetryPolicy`:
/// its classifier is the page contract's one rule (`PageError.isRetryable`), which the
/// store's `StoreError` answers through its `PageFailure` kind.
@Suite
struct DefaultRetryPolicyTests {
    /// A source as a user would write it: the synthetic store's `page(_:)`, nothing else.
    struct UserStoreSource: PageSource {
        let store: SyntheticStore
        func fetch(_ request: PageRequest) async throws -> Page { try await store.page(request) }
    }

    private static func store(throttleRate: Double, faultRate: Double) throws -> SyntheticStore {
        var configuration = StoreConfiguration(partitions: 2, itemsPerPartition: .uniform(100), seed: 5)
        configuration.throttleRate = throttleRate
        configuration.faultRate = faultRate
        return try SyntheticStore(configuration: configuration)
    }

    private static func drain(_ store: SyntheticStore, policy: RetryPolicy) async throws -> (items: Int, retries: Int) {
        let request = PageRequest(range: .scan, limit: 7)
        let stream = PageStream(
            source: UserStoreSource(store: store),
            initialRequest: request,
            retryPolicy: policy,
            extractPageInfo: { (page: Page) in CursorBasedPagination.Forward(nextToken: page.nextToken) },
            pageResolver: { info, _ in info.endCursor.map { request.with(token: $0) } }
        )
        var items = 0
        for try await page in stream { items += page.items.count }
        return (items, stream.counters.retries)
    }

    @Test("S21: the default RetryPolicy retries the store's throttled and faulted StoreErrors")
    func s21DefaultPolicyRetriesTheStoresOwnErrors() async throws {
        let store = try Self.store(throttleRate: 0.2, faultRate: 0.2)
        var policy = RetryPolicy(maxRetries: 50, seed: 9)
        policy.sleep = { _ in }
        let drained = try await Self.drain(store, policy: policy)
        #expect(drained.items == 200)
        #expect(drained.retries > 0)
    }

    @Test("S21: every StoreError code is retried by the default policy exactly when its kind is retryable")
    func s21DefaultPolicyFollowsTheKind() {
        let policy = RetryPolicy(maxRetries: 1)
        for code in StoreError.Code.allCases {
            let error = StoreError(remote: code, message: "\(code)")
            #expect(policy.isRetryable(error) == code.pageErrorKind.isRetryable, "\(code)")
        }
        #expect(policy.isRetryable(StoreError(remote: .throttled, message: "")))
        #expect(policy.isRetryable(StoreError(remote: .injectedFault, message: "")))
        #expect(!policy.isRetryable(StoreError(remote: .invalidToken, message: "")))
        #expect(!policy.isRetryable(CancellationError()))
    }
}
