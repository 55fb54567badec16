import PagebenchBase
import Synchronization

/// An Apollo-iOS-style pager (after `AsyncGraphQLQueryPager`) for any page source: fetch
/// an initial page, then load next and previous pages on demand or all at once, and
/// publish the pages held, transformed to the caller's model, to every subscriber.
/// Contract: docs/contract.md P1–P14.
///
/// - Multi-query: the initial request may be of a different type, and go to a different
///   source, than the paginated requests (`init(initialSource:initialRequest:...)`); the
///   single-query convenience initialisers use one source for both.
/// - At most one load is in flight (P5): a concurrent `loadNext`/`loadPrevious`/`loadAll`
///   throws `PaginationError.loadInProgress` at once. `fetch`, `refetch` and
///   `loadAll(fetchFromInitialPage: true)` instead reset the pager, abandoning the load
///   in flight, as Apollo's do.
/// - Every load that awaits its source runs in one child task, so `reset()` or cancelling
///   the awaiting task cancels the source request promptly; a load cancelled either way
///   publishes nothing, keeps no partial page and throws `CancellationError` (P12, P13).
///   `loadAll` loads the pages that its sources answer at once (`fetchWithoutWaiting`) in
///   the calling task, and checks for a reset or cancellation at every page.
/// - Source errors are published as `.failure` and rethrown by `loadNext`,
///   `loadPrevious` and `loadAll`; `fetch` and `refetch` only publish them (P11).
///
/// - Watching (P16, `QueryPager+Watching.swift`): a single-query pager can watch its held
///   pages through a change feed (or by polling) and re-fetch and publish what a change
///   touched.
///
/// Each pager owns its state behind its own `Mutex` (no lock or actor shared between
/// pagers); the lock is held only for short synchronous transitions of
/// `QueryPagerStateMachine`, never across a source call.
public final class QueryPager<
    InitialSource: PageSource,
    PaginatedSource: PageSource,
    Info: PaginationInfo,
    Model: Sendable
>:
    Sendable
{
    public typealias Output = PaginationOutput<InitialSource.Response, PaginatedSource.Response>
    @usableFromInline typealias StateMachine = QueryPagerStateMachine<
        InitialSource.Response, PaginatedSource.Response, PaginatedSource.Request, Info, Model
    >

    @usableFromInline let initialSource: InitialSource
    @usableFromInline let initialRequest: InitialSource.Request
    @usableFromInline let paginatedSource: PaginatedSource
    @usableFromInline let extractInitialInfo: @Sendable (InitialSource.Response) -> Info
    @usableFromInline let extractPageInfo: @Sendable (PaginatedSource.Response) -> Info
    @usableFromInline let pageResolver: @Sendable (Info, PaginationDirection) -> PaginatedSource.Request?
    @usableFromInline let transform: @Sendable (Output) throws -> Model
    @usableFromInline let retryPolicy: RetryPolicy
    /// Requests, retries and pages of this pager since it was made (not cleared by reset).
    public let counters = PagerCounters()
    @usableFromInline let state = Mutex(StateMachine())

    /// A multi-query pager whose output is transformed to `Model`.
    ///
    /// - Parameters:
    ///   - initialSource: answers `initialRequest`.
    ///   - initialRequest: the request for the initial page.
    ///   - paginatedSource: answers the requests `pageResolver` builds.
    ///   - retryPolicy: retries of retryable source errors; off by default.
    ///   - extractInitialPageInfo: the pagination info of the initial page.
    ///   - extractPageInfo: the pagination info of a paginated page.
    ///   - pageResolver: the request for the page beyond the one an info describes, in a
    ///     direction, or nil when it cannot be built (`noQuery`). Called under the
    ///     pager's lock: it must be quick and must not call the pager.
    ///   - transform: the caller's model from the pages held; a throw is published as a
    ///     failure and leaves the pages as they are (P11).
    public init(
        initialSource: InitialSource,
        initialRequest: InitialSource.Request,
        paginatedSource: PaginatedSource,
        retryPolicy: RetryPolicy = .none,
        extractInitialPageInfo: @escaping @Sendable (InitialSource.Response) -> Info,
        extractPageInfo: @escaping @Sendable (PaginatedSource.Response) -> Info,
        pageResolver: @escaping @Sendable (Info, PaginationDirection) -> PaginatedSource.Request?,
        transform: @escaping @Sendable (Output) throws -> Model
    ) {
        self.initialSource = initialSource
        self.initialRequest = initialRequest
        self.paginatedSource = paginatedSource
        self.retryPolicy = retryPolicy
        self.extractInitialInfo = extractInitialPageInfo
        self.extractPageInfo = extractPageInfo
        self.pageResolver = pageResolver
        self.transform = transform
    }

    deinit {
        // `reset()` also ends every watch (P16).
        let (orphan, subscribers) = state.withLock { state in
            (state.reset(), state.removeAllSubscribers())
        }
        orphan?.cancel()
        for subscriber in subscribers {
            subscriber.finish()
        }
    }

    // MARK: State

    /// Whether a next page can be loaded: false before the initial page and after the
    /// last page (P4).
    @inlinable
    public var canLoadNext: Bool { state.withLock { $0.canLoadNext } }

    /// Whether a previous page can be loaded (P4).
    @inlinable
    public var canLoadPrevious: Bool { state.withLock { $0.canLoadPrevious } }

    /// Whether a load is in flight.
    @inlinable
    public var isLoading: Bool { state.withLock { $0.isLoading } }

    /// The pages held now, untransformed; nil before the initial page.
    @inlinable
    public var output: Output? { state.withLock { $0.output } }

    // MARK: Subscribing

    /// A stream of every output this pager publishes from now on, starting with the
    /// latest one if there is one (P11). `reset()` does not end it; it ends when the
    /// pager is released or the consumer stops iterating.
    public func subscribe() -> AsyncStream<Result<Model, any Error>> {
        let (stream, continuation) = AsyncStream.makeStream(of: Result<Model, any Error>.self)
        let id = state.withLock { $0.makeSubscriberID() }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.unsubscribe(id: id) }
        }
        var transformed: (result: Result<Model, any Error>, version: UInt64)?
        while true {
            let action = state.withLock { $0.subscribe(continuation, id: id, transformed: transformed) }
            switch action {
            case .subscribed:
                return stream
            case .transform(let output, let version):
                transformed = (Result { try transform(output) }, version)
            }
        }
    }

    // MARK: Loading

    /// Resets the pager and fetches the initial page. A source failure is published as a
    /// failure result; this method then returns (P11). Cancelling the calling task
    /// abandons the fetch and publishes nothing (P13).
    @inlinable
    public func fetch() async {
        let (task, orphan) = state.withLock { state in
            let (id, orphan) = state.startFromInitialPage(all: false)
            let task = Task { try await self.runInitialFetch(id: id) }
            _ = state.attach(task, to: id)
            return (task, orphan)
        }
        orphan?.cancel()
        _ = try? await awaitLoad(task)
    }

    /// Discards every page and fetches a new initial page: afterwards only that page is
    /// held (P12).
    @inlinable
    public func refetch() async {
        await fetch()
    }

    /// Loads the page after the last next page (or after the initial page).
    ///
    /// - Throws: `PaginationError` (`missingInitialPage`, `pageHasNoMoreContent`,
    ///   `noQuery`, `loadInProgress`, `repeatedToken`) without a source request except for
    ///   `repeatedToken`; the source's error; `CancellationError` when the calling task
    ///   was cancelled or `reset()` was called meanwhile.
    @inlinable
    public func loadNext() async throws {
        try await paginate(.next)
    }

    /// Loads the page before the earliest previous page (or before the initial page).
    /// Throws as `loadNext` does.
    @inlinable
    public func loadPrevious() async throws {
        try await paginate(.previous)
    }

    /// Abandons any load in flight (its source request is cancelled and nothing from it
    /// is published), drops every page and the latest output. Subscribers stay
    /// subscribed and receive what a later fetch brings (P12).
    @inlinable
    public func reset() {
        let orphan = state.withLock { $0.reset() }
        orphan?.cancel()
    }

    // MARK: Running loads

    @inlinable func paginate(_ direction: PaginationDirection) async throws {
        let task = try state.withLock { state throws(PaginationError) in
            let (id, request) = try state.startPagination(direction, resolve: pageResolver)
            let task = Task { try await self.runPagination(direction, request: request, id: id) }
            _ = state.attach(task, to: id)
            return task
        }
        try await awaitLoad(task)
    }

    /// Waits for a load's task, forwarding the caller's cancellation to it (P13).
    @inlinable func awaitLoad(_ task: Task<Void, any Error>) async throws {
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    @inlinable func runInitialFetch(id: UInt64) async throws {
        var random = SplitMix64(seed: retryPolicy.seed ^ id)
        do {
            let page = try await fetchRetrying(
                initialSource,
                initialRequest,
                policy: retryPolicy,
                random: &random,
                counters: counters
            )
            try receiveInitialPage(page, id: id, isCancelled: Task.isCancelled)
            try end(id: id, .publishOutput)
        } catch {
            try fail(id: id, error)
        }
    }

    /// Stores the initial page of load `id` (`fetch`, or `loadAll` from the initial page).
    @inlinable func receiveInitialPage(_ page: InitialSource.Response, id: UInt64, isCancelled: Bool) throws {
        let info = extractInitialInfo(page)
        try state.withLock { try $0.receiveInitialPage(page, info: info, id: id, isCancelled: isCancelled) }
        counters.countPage()
    }

    @inlinable func runPagination(
        _ direction: PaginationDirection,
        request: PaginatedSource.Request,
        id: UInt64
    )
        async throws
    {
        var random = SplitMix64(seed: retryPolicy.seed ^ id)
        do {
            let page = try await fetchRetrying(
                paginatedSource,
                request,
                policy: retryPolicy,
                random: &random,
                counters: counters
            )
            let info = extractPageInfo(page)
            try state.withLock {
                try $0.receivePage(page, info: info, direction: direction, id: id, isCancelled: Task.isCancelled)
            }
            counters.countPage()
            try end(id: id, .publishOutput)
        } catch {
            try fail(id: id, error)
        }
    }

    /// Ends load `id`, transforming and publishing the output if anyone subscribed.
    /// Throws `CancellationError` if a reset orphaned the load before it could publish.
    @inlinable func end(id: UInt64, _ outcome: StateMachine.Outcome) throws {
        let action = state.withLock { $0.endLoad(id: id, outcome: outcome) }
        guard case .transform(let output) = action else { return }
        let result = Result { try transform(output) }
        let delivered = state.withLock { state in
            guard state.isCurrent(id) else { return false }
            state.deliver(result, id: id)
            return true
        }
        if !delivered { throw CancellationError() }
    }

    /// Ends load `id` after `error`: cancellation (of the task, or by a reset) publishes
    /// nothing and becomes `CancellationError`; anything else is published and rethrown.
    @inlinable func fail(id: UInt64, _ error: any Error) throws -> Never {
        if error is CancellationError || Task.isCancelled || !state.withLock({ $0.isCurrent(id) }) {
            _ = state.withLock { $0.endLoad(id: id, outcome: .silent) }
            throw CancellationError()
        }
        _ = state.withLock { $0.endLoad(id: id, outcome: .publishFailure(error)) }
        throw error
    }
}
