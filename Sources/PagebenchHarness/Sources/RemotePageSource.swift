public import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchStore

/// A page source the harness reaches through a closure: how `pagebench run --target URL`
/// drives a store served elsewhere (over HTTP) without the harness knowing the transport.
///
/// The closure speaks the page contract: it throws a ``PageFailure`` (``PageError``, or a
/// source's own error that names its ``PageError/Kind``, as the served store's `StoreError`
/// does) for every failure, so retries and error columns classify it by kind, and
/// `CancellationError` untouched.
public struct RemotePageSource: PageSource {
    /// Where the pages come from, for messages (for example the target URL).
    public let name: String
    @usableFromInline let fetchPage: @Sendable (PageRequest) async throws -> Page
    /// A snapshot of what the target answered so far; each row gets the difference over its
    /// measured phase (status counts, non-page responses by kind, consumed capacity).
    public let counters: (@Sendable () -> RemoteCounts)?

    public init(
        name: String,
        counters: (@Sendable () -> RemoteCounts)? = nil,
        fetch: @escaping @Sendable (PageRequest) async throws -> Page
    ) {
        self.name = name
        self.counters = counters
        fetchPage = fetch
    }

    @inlinable
    public func fetch(_ request: PageRequest) async throws -> Page {
        try await fetchPage(request)
    }
}
