import PagebenchBase
import Synchronization

// MARK: Loading every page (P8, P10)

extension QueryPager {
    /// Loads every page: the next pages until there is none, then the previous pages
    /// (P10), publishing one output when done (P8). With `fetchFromInitialPage` (the
    /// default) it first resets and fetches the initial page; without it, it continues
    /// from the pages held and needs an initial page (P1).
    ///
    /// While the sources answer at once (`PageSource.fetchWithoutWaiting`, an in-process
    /// store) the pages are loaded in the calling task, one lock-protected transition per
    /// page; from the first page that needs an `await` on, the rest of the load runs in a
    /// task of its own, as every other load does, so that `reset()` can cancel the request
    /// in flight. Either way a reset or the caller's cancellation ends the load at the next
    /// page, publishing nothing (P12, P13).
    @inlinable
    public func loadAll(fetchFromInitialPage: Bool = true) async throws {
        let (id, orphan) = try state.withLock { state throws(PaginationError) in
            if fetchFromInitialPage { return state.startFromInitialPage(all: true) }
            return (try state.startLoadAllFromHeldPages(), nil)
        }
        orphan?.cancel()
        // The caller's cancellation (P13), as a flag read per page: `Task.isCancelled` costs a
        // thread-local lookup and a retain and release of the task. The handler runs at once
        // if the task is already cancelled.
        let cancelled = Atomic<Bool>(false)
        let resumption = try await withTaskCancellationHandler {
            try loadAllWithoutWaiting(
                id: id,
                fetchInitialPage: fetchFromInitialPage,
                from: paginatedSource,
                cancelled: cancelled
            )
        } onCancel: {
            cancelled.store(true, ordering: .relaxed)
        }
        guard let resumption else { return }
        let task = state.withLock { state -> Task<Void, any Error>? in
            guard state.isCurrent(id) else { return nil }
            let task = Task { try await self.runLoadAll(id: id, resuming: resumption) }
            _ = state.attach(task, to: id)
            return task
        }
        // Reset since the last page answered at once: the load is over, nothing published (P12).
        guard let task else { throw CancellationError() }
        try await awaitLoad(task)
    }

    /// Where a `loadAll` that cannot go on without waiting continues, in its own task. The
    /// request's first attempt was made (and counted): `fetchWithoutWaiting` answered nil
    /// (`failure` is nil: await `fetch`) or threw `failure` (the retry policy decides).
    @usableFromInline enum LoadAllResumption: Sendable {
        case initialPage(failure: (any Error)?)
        case page(PaginationDirection, PaginatedSource.Request, failure: (any Error)?)
    }

    /// `loadAll` load `id` in the calling task, for as long as the sources answer at once.
    /// Returns nil once the load has ended (published), or where its task must go on.
    ///
    /// Nothing here suspends, so between two pages only a transition can see a reset
    /// (`fetch`, `refetch`, `reset()` orphan the load: the next transition throws
    /// `CancellationError`, P12) or the caller's cancellation (`cancelled`, P13).
    @inlinable func loadAllWithoutWaiting(
        id: UInt64,
        fetchInitialPage: Bool,
        from source: PaginatedSource,
        cancelled: borrowing Atomic<Bool>
    ) throws -> LoadAllResumption? {
        do {
            if fetchInitialPage {
                counters.countRequest()
                let answer: InitialSource.Response?
                do {
                    answer = try initialSource.fetchWithoutWaiting(initialRequest)
                } catch {
                    return .initialPage(failure: error)
                }
                guard let answer else { return .initialPage(failure: nil) }
                try receiveInitialPage(answer, id: id, isCancelled: cancelled.load(ordering: .relaxed))
            }
            var step = try loadAllStep(id: id, isCancelled: cancelled.load(ordering: .relaxed))
            while case .fetch(let direction, let request) = consume step {
                counters.countRequest()
                let answer: PaginatedSource.Response?
                do {
                    answer = try source.fetchWithoutWaiting(request)
                } catch {
                    return .page(direction, request, failure: error)
                }
                guard let answer else { return .page(direction, request, failure: nil) }
                step = try receiveLoadAllPage(
                    answer,
                    direction: direction,
                    id: id,
                    isCancelled: cancelled.load(ordering: .relaxed)
                )
            }
            try end(id: id, .publishOutput)
            return nil
        } catch {
            try fail(id: id, error)
        }
    }

    /// The rest of `loadAll` load `id` in its own task, from the first request that needed
    /// an `await`.
    @inlinable func runLoadAll(id: UInt64, resuming resumption: LoadAllResumption) async throws {
        var random = SplitMix64(seed: retryPolicy.seed ^ id)
        do {
            let step: StateMachine.LoadAllStep
            switch resumption {
            case .initialPage(let failure):
                let page = try await finishAttempt(
                    initialSource,
                    initialRequest,
                    failure: failure,
                    policy: retryPolicy,
                    random: &random,
                    counters: counters
                )
                try receiveInitialPage(page, id: id, isCancelled: Task.isCancelled)
                step = try loadAllStep(id: id, isCancelled: Task.isCancelled)
            case .page(let direction, let request, let failure):
                let page = try await finishAttempt(
                    paginatedSource,
                    request,
                    failure: failure,
                    policy: retryPolicy,
                    random: &random,
                    counters: counters
                )
                step = try receiveLoadAllPage(page, direction: direction, id: id, isCancelled: Task.isCancelled)
            }
            try await loadRemainingPages(id: id, from: paginatedSource, step: step, random: &random)
            try end(id: id, .publishOutput)
        } catch {
            try fail(id: id, error)
        }
    }

    /// The paginated pages of `loadAll` load `id` in its task, from `step` on (P8, P10).
    ///
    /// The source is a parameter so that every page's `await` borrows it where it is: read
    /// through the property, it was copied (the synthetic store: 545 bytes, twice) into the
    /// frame per page (results/apollo-loadall-fair.md).
    @inlinable func loadRemainingPages(
        id: UInt64,
        from source: PaginatedSource,
        step: consuming StateMachine.LoadAllStep,
        random: inout SplitMix64
    ) async throws {
        var step = step
        while case .fetch(let direction, let request) = consume step {
            let page = try await fetchRetrying(
                source,
                request,
                policy: retryPolicy,
                random: &random,
                counters: counters
            )
            step = try receiveLoadAllPage(page, direction: direction, id: id, isCancelled: Task.isCancelled)
        }
    }

    /// What `loadAll` load `id` does first, from the pages held (P10).
    @inlinable func loadAllStep(id: UInt64, isCancelled: Bool) throws -> StateMachine.LoadAllStep {
        try state.withLock { try $0.loadAllStep(id: id, isCancelled: isCancelled, resolve: pageResolver) }
    }

    /// Stores a page of `loadAll` load `id` and decides the next request.
    ///
    /// One lock and one transition per page: storing the page and deciding the next request
    /// are one transition, and the page and its info are moved into the state. (Handing the
    /// page to `extractPageInfo` costs a copy of it, a retain and a release of its buffers,
    /// in the specialised code; so did every other arrangement tried, a batch of pages kept
    /// outside the lock included: results/apollo-loadall-fair.md.)
    @inlinable @inline(__always)
    func receiveLoadAllPage(
        _ fetched: consuming PaginatedSource.Response,
        direction: PaginationDirection,
        id: UInt64,
        isCancelled: Bool
    ) throws -> StateMachine.LoadAllStep {
        var info: Info? = extractPageInfo(fetched)
        var page: PaginatedSource.Response? = consume fetched
        let step = try state.withLock {
            try $0.receiveLoadAllPage(
                page.take()!,
                info: info.take()!,
                direction: direction,
                id: id,
                isCancelled: isCancelled,
                resolve: pageResolver
            )
        }
        counters.countPage()
        return step
    }
}
