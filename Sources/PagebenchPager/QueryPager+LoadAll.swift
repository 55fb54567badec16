import PagebenchBase
import Synchronization

// MARK: Loading every page (P8, P10)

extension QueryPager {
    /// Loads every page: the next pages until there is none, then the previous pages
    /// (P10), publishing one output when done (P8). With `fetchFromInitialPage` (the
    /// default) it first resets and fetches the initial page; without it, it continues
    /// from the pages held and needs an initial page (P1).
    @inlinable
    public func loadAll(fetchFromInitialPage: Bool = true) async throws {
        let (task, orphan) = try state.withLock { state throws(PaginationError) in
            let id: UInt64
            var orphan: Task<Void, any Error>?
            if fetchFromInitialPage {
                (id, orphan) = state.startFromInitialPage(all: true)
            } else {
                id = try state.startLoadAllFromHeldPages()
            }
            let task = Task { try await self.runLoadAll(id: id, fetchInitialPage: fetchFromInitialPage) }
            _ = state.attach(task, to: id)
            return (task, orphan)
        }
        orphan?.cancel()
        try await awaitLoad(task)
    }

    @inlinable func runLoadAll(id: UInt64, fetchInitialPage: Bool) async throws {
        var random = SplitMix64(seed: retryPolicy.seed ^ id)
        do {
            if fetchInitialPage {
                let page = try await fetchRetrying(
                    initialSource, initialRequest, policy: retryPolicy, random: &random, counters: counters
                )
                let info = extractInitialInfo(page)
                try state.withLock { try $0.receiveInitialPage(page, info: info, id: id, isCancelled: Task.isCancelled) }
                counters.countPage()
            }
            try await loadRemainingPages(id: id, from: paginatedSource, random: &random)
            try end(id: id, .publishOutput)
        } catch {
            try fail(id: id, error)
        }
    }

    /// The paginated pages of `loadAll` load `id` (P8, P10).
    ///
    /// One lock and one cancellation read per page: storing the page and deciding the next
    /// request are one transition, and the page and its info are moved into the state, not
    /// copied. The source is a parameter so that every page's `await` borrows it where it
    /// is: read through the property, it was copied (the synthetic store: 545 bytes, twice)
    /// into the frame per page (results/apollo-loadall-fair.md).
    @inlinable func loadRemainingPages(id: UInt64, from source: PaginatedSource, random: inout SplitMix64)
        async throws
    {
        var step = try state.withLock {
            try $0.loadAllStep(id: id, isCancelled: Task.isCancelled, resolve: pageResolver)
        }
        while case .fetch(let direction, let request) = consume step {
            let fetched = try await fetchRetrying(source, request, policy: retryPolicy, random: &random, counters: counters)
            var info: Info? = extractPageInfo(fetched)
            var page: PaginatedSource.Response? = consume fetched
            step = try state.withLock {
                try $0.receiveLoadAllPage(
                    page.take()!, info: info.take()!, direction: direction, id: id, isCancelled: Task.isCancelled,
                    resolve: pageResolver
                )
            }
            counters.countPage()
        }
    }
}
