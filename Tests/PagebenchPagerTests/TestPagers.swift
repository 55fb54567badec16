import PagebenchPager
import PagebenchTestSupport
import Testing

typealias ScriptedOutput = PaginationOutput<ScriptedPage, ScriptedPage>
typealias ForwardPager = QueryPager<
    ScriptedPageSource, ScriptedPageSource, CursorBasedPagination.Forward, ScriptedOutput
>
typealias BidirectionalPager = QueryPager<
    ScriptedPageSource, ScriptedPageSource, CursorBasedPagination.Bidirectional, ScriptedOutput
>

/// A forward single-query pager over a scripted source.
func forwardPager(_ source: ScriptedPageSource, retryPolicy: RetryPolicy = .none) -> ForwardPager {
    QueryPager(
        source: source,
        initialRequest: .initial,
        retryPolicy: retryPolicy,
        extractPageInfo: { $0.forwardInfo },
        pageResolver: { info, direction in info.endCursor.map { ScriptedRequest(token: $0, direction: direction) } }
    )
}

/// A bidirectional single-query pager over a scripted source.
func bidirectionalPager(_ source: ScriptedPageSource) -> BidirectionalPager {
    QueryPager(
        source: source,
        initialRequest: .initial,
        extractPageInfo: { $0.bidirectionalInfo },
        pageResolver: { info, direction in
            let token = direction == .next ? info.endCursor : info.startCursor
            return token.map { ScriptedRequest(token: $0, direction: direction) }
        }
    )
}

/// A forward page stream over a scripted source.
func forwardStream(
    _ source: ScriptedPageSource,
    retryPolicy: RetryPolicy = .none
)
    -> PageStream<ScriptedPageSource, CursorBasedPagination.Forward>
{
    PageStream(
        source: source,
        initialRequest: .initial,
        retryPolicy: retryPolicy,
        extractPageInfo: { $0.forwardInfo },
        pageResolver: { info, direction in info.endCursor.map { ScriptedRequest(token: $0, direction: direction) } }
    )
}

extension PaginationOutput where InitialPage == ScriptedPage, Page == ScriptedPage {
    var items: [Int] { allPages.flatMap(\.items) }
}

/// Runs `body` and returns the `PaginationError` it threw (nil when it threw none or another error).
func paginationError(_ body: () async throws -> Void) async -> PaginationError? {
    do {
        try await body()
        return nil
    } catch let error as PaginationError {
        return error
    } catch {
        return nil
    }
}

/// Whether `body` threw `CancellationError`.
func throwsCancellation(_ body: () async throws -> Void) async -> Bool {
    do {
        try await body()
        return false
    } catch is CancellationError {
        return true
    } catch {
        return false
    }
}

/// P12, P13: `load`, stopped (reset or cancelled) while `pending` was in flight, ended at once
/// with `CancellationError`, and its fetch was cancelled, never answered.
func expectStoppedInFlight(
    _ load: Task<Void, any Error>,
    _ pending: ScriptedPageSource.PendingFetch,
    source: ScriptedPageSource,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    #expect(await outcome(of: load).failure is CancellationError, sourceLocation: sourceLocation)
    #expect(!pending.release(), sourceLocation: sourceLocation)
    #expect(source.cancellationCount == 1, sourceLocation: sourceLocation)
}

/// The result a pending task ended with.
func outcome(of task: Task<Void, any Error>) async -> Result<Void, any Error> {
    await task.result
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var success: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
