/// The pure state of one `QueryPager`: pages held, the one load in flight, subscribers
/// and the latest output. Every transition is a synchronous function called under the
/// pager's lock; it returns what the pager must do next outside the lock (cancel a task,
/// run the transform, fetch). It never awaits and never calls the source.
@usableFromInline
struct QueryPagerStateMachine<
    InitialPage: Sendable,
    Page: Sendable,
    Request: Sendable,
    Info: PaginationInfo,
    Model: Sendable
> {
    @usableFromInline typealias Output = PaginationOutput<InitialPage, Page>
    @usableFromInline typealias Subscriber = AsyncStream<Result<Model, any Error>>.Continuation

    @usableFromInline enum LoadKind: Sendable { case initial, next, previous, all, refresh }

    /// What a watch (P16) is told about the pager: a load ended (a refresh it put off may
    /// run now), or the pages it watched are gone (reset, pager released).
    @usableFromInline enum WatchSignal: Sendable { case loadEnded, stop }

    /// The one load in flight (docs/contract.md P5). `id` tells a live load from one that a
    /// reset has orphaned: an orphan's results are dropped (P12).
    @usableFromInline struct Load: Sendable {
        @usableFromInline let id: UInt64
        @usableFromInline let kind: LoadKind
        @usableFromInline var task: Task<Void, any Error>?
        /// A refresh (P16) runs in its watch's task, not in a task of its own: a reset
        /// calls this instead (it finishes the refresh's abort stream), and the refresh's
        /// fetch is cancelled by its watch.
        ///
        /// A closure, not the stream's `Continuation`: that type is resilient (its size is
        /// unknown outside the concurrency library), and one such field made `Load`, and the
        /// whole state machine with it, address-only: every transition then copied and
        /// destroyed the entire state through its value witnesses, ~16 retains and releases
        /// per page of a `loadAll` (results/apollo-loadall-fair.md).
        @usableFromInline var abort: (@Sendable () -> Void)?

        @inlinable init(id: UInt64, kind: LoadKind, task: Task<Void, any Error>?) {
            self.id = id
            self.kind = kind
            self.task = task
        }
    }

    /// The latest published output, kept for late subscribers (P11).
    ///
    /// While nobody subscribes, a publication is recorded as `.prefix`: how many next and
    /// previous pages it held. It is neither built nor transformed until someone
    /// subscribes. Holding a built `Output` here instead would share the page arrays'
    /// buffers with the state, so the next `receivePage` would copy the whole array
    /// (copy-on-write) and draining n pages would cost O(n²).
    ///
    /// Invariant behind `.prefix`: between publications the held pages only *grow at the
    /// end* — `receivePage` appends to `nextPages` and `previousPagesNewestLast`, nothing
    /// else touches them except `dropHeldPages`, which materialises a `.prefix` into
    /// `.raw` before dropping anything. So the first `nextCount` next pages, the first
    /// `previousCount` previous pages and the initial page held now are exactly the
    /// published output; pages appended since (by a load still in flight, or by a
    /// cancelled `loadAll` that published nothing) lie beyond the prefix and are never
    /// shown to a late subscriber (P11, P12).
    @usableFromInline enum Latest: Sendable {
        case none
        /// The published output is a prefix of the pages held (see above).
        case prefix(nextCount: Int, previousCount: Int)
        /// A built, untransformed output; only when a `.prefix` had to be materialised
        /// before the held pages were dropped.
        case raw(Output)
        case result(Result<Model, any Error>)
    }

    @usableFromInline var initialPage: InitialPage?
    @usableFromInline var initialInfo: Info?
    @usableFromInline var nextPages: [Page] = []
    @usableFromInline var nextInfo: Info?
    /// Previous pages in load order (newest, i.e. earliest in position, last).
    @usableFromInline var previousPagesNewestLast: [Page] = []
    @usableFromInline var previousInfo: Info?
    @usableFromInline var load: Load?
    @usableFromInline var lastLoadID: UInt64 = 0
    @usableFromInline var subscribers: [UInt64: Subscriber] = [:]
    @usableFromInline var lastSubscriberID: UInt64 = 0
    @usableFromInline var latest: Latest = .none
    /// Bumped by every publication and every reset, so a late subscriber's lazily
    /// transformed output is stored only if nothing newer arrived meanwhile.
    @usableFromInline var outputVersion: UInt64 = 0
    /// Watches (P16) to tell when a load ends or the pages are gone; a watch answers whether
    /// it is still listening (one whose caller stopped iterating is dropped then). Called
    /// under the lock: they only yield to, or finish, their own stream.
    @usableFromInline var watchers: [UInt64: @Sendable (WatchSignal) -> Bool] = [:]
    @usableFromInline var lastWatcherID: UInt64 = 0

    @inlinable init() {}

    // MARK: Queries

    @inlinable var isLoading: Bool { load != nil }

    @inlinable var canLoadNext: Bool { (nextInfo ?? initialInfo)?.canLoadNext ?? false }

    @inlinable var canLoadPrevious: Bool { (previousInfo ?? initialInfo)?.canLoadPrevious ?? false }

    @inlinable var output: Output? {
        initialPage.map {
            Output(previousPages: previousPagesNewestLast.reversed(), initialPage: $0, nextPages: nextPages)
        }
    }

    /// The output published as `.prefix(nextCount:previousCount:)`, built now.
    @inlinable func prefixOutput(nextCount: Int, previousCount: Int) -> Output? {
        initialPage.map {
            Output(
                previousPages: previousPagesNewestLast[..<previousCount].reversed(),
                initialPage: $0,
                nextPages: Array(nextPages[..<nextCount])
            )
        }
    }

    @inlinable func info(for direction: PaginationDirection) -> Info? {
        switch direction {
        case .next: nextInfo ?? initialInfo
        case .previous: previousInfo ?? initialInfo
        }
    }

    @inlinable func isCurrent(_ id: UInt64) -> Bool { load?.id == id }

    // MARK: Starting loads

    @inlinable mutating func beginLoad(_ kind: LoadKind) -> UInt64 {
        lastLoadID &+= 1
        load = Load(id: lastLoadID, kind: kind, task: nil)
        return lastLoadID
    }

    /// `loadNext` / `loadPrevious`: checks the usage rules (P1, P2, P3, P5) and reserves
    /// the pager. Throws without changing anything when the load cannot start.
    @inlinable mutating func startPagination(
        _ direction: PaginationDirection,
        resolve: (Info, PaginationDirection) -> Request?
    ) throws(PaginationError) -> (id: UInt64, request: Request) {
        if load != nil { throw .loadInProgress }
        guard let info = info(for: direction) else { throw .missingInitialPage }
        let more = direction == .next ? info.canLoadNext : info.canLoadPrevious
        guard more else { throw .pageHasNoMoreContent }
        guard let request = resolve(info, direction) else { throw .noQuery }
        return (beginLoad(direction == .next ? .next : .previous), request)
    }

    /// `fetch` / `refetch` / `loadAll(fetchFromInitialPage: true)`: resets (orphaning any
    /// load in flight, whose task the caller cancels) and reserves the pager.
    @inlinable mutating func startFromInitialPage(all: Bool) -> (id: UInt64, orphan: Task<Void, any Error>?) {
        let orphan = reset()
        return (beginLoad(all ? .all : .initial), orphan)
    }

    /// `loadAll(fetchFromInitialPage: false)`: continues from the pages held.
    @inlinable mutating func startLoadAllFromHeldPages() throws(PaginationError) -> UInt64 {
        if load != nil { throw .loadInProgress }
        guard initialPage != nil else { throw .missingInitialPage }
        return beginLoad(.all)
    }

    /// Records the task running load `id`. Returns the task if the load was already
    /// orphaned (reset between start and attach), for the caller to cancel.
    @inlinable mutating func attach(_ task: Task<Void, any Error>, to id: UInt64) -> Task<Void, any Error>? {
        guard load?.id == id else { return task }
        load?.task = task
        return nil
    }

    // MARK: Pages arriving

    /// Stores the initial page of load `id`. Throws `CancellationError` when the load was
    /// orphaned or its task cancelled: the page is dropped, nothing partial is kept (P12, P13).
    @inlinable mutating func receiveInitialPage(_ page: InitialPage, info: Info, id: UInt64, isCancelled: Bool) throws {
        guard load?.id == id, !isCancelled else { throw CancellationError() }
        dropHeldPages()
        initialPage = page
        initialInfo = info
    }

    /// Drops every page held. The only change to the held pages other than appending, so
    /// it first materialises a `.prefix` latest output that still refers to them (see
    /// `Latest`). Callers that also drop the latest output (`reset`) clear it first, so
    /// nothing is built for nothing.
    @inlinable mutating func dropHeldPages() {
        if case .prefix(let nextCount, let previousCount) = latest {
            latest = prefixOutput(nextCount: nextCount, previousCount: previousCount).map { .raw($0) } ?? .none
        }
        initialPage = nil
        initialInfo = nil
        nextPages = []
        nextInfo = nil
        previousPagesNewestLast = []
        previousInfo = nil
    }

    /// Appends a page of load `id` in `direction`. Throws `CancellationError` for an
    /// orphaned or cancelled load and `repeatedToken` when the page's position repeats
    /// the one it was requested with (P9); neither keeps the page.
    ///
    /// `page` and `info` are consumed: appended and stored without a copy (no retain of the
    /// page's buffers or of the cursor per page).
    @inlinable mutating func receivePage(
        _ page: consuming Page,
        info: consuming Info,
        direction: PaginationDirection,
        id: UInt64,
        isCancelled: Bool
    ) throws {
        guard load?.id == id, !isCancelled else { throw CancellationError() }
        try dropReplacedInfo(checking: info, direction: direction)
        store(page, info: info, direction: direction)
    }

    /// `receivePage` then `loadAllStep`, under one lock acquisition: a `loadAll` page costs
    /// one lock and one cancellation read instead of two each. While the load goes on in
    /// the page's direction, the next request is resolved from the page's own info before
    /// it is stored, so the info is neither copied nor read back (each copy is a retain
    /// and a release of its cursor).
    @inlinable mutating func receiveLoadAllPage(
        _ page: consuming Page,
        info: consuming Info,
        direction: PaginationDirection,
        id: UInt64,
        isCancelled: Bool,
        resolve: (Info, PaginationDirection) -> Request?
    ) throws -> LoadAllStep {
        guard load?.id == id, !isCancelled else { throw CancellationError() }
        try dropReplacedInfo(checking: info, direction: direction)
        // Next pages are exhausted first (P10): while loading previous pages, no next page
        // can be loaded, and storing a previous page does not change that.
        let continues = direction == .next ? info.canLoadNext : info.canLoadPrevious
        guard continues else {
            store(page, info: info, direction: direction)
            return try nextLoadAllStep(resolve: resolve)
        }
        let request = resolve(info, direction)
        store(page, info: info, direction: direction)
        // Moved into the step, not copied out of the optional (a copy and a destroy of the
        // request per page).
        switch consume request {
        case .some(let request): return .fetch(direction, request)
        case .none: throw PaginationError.noQuery
        }
    }

    /// P9 for a page about to be stored in `direction`: throws `repeatedToken` if `info`
    /// repeats the position of the info it was requested with. Otherwise drops that info
    /// (the page's replaces it), moved out rather than copied; a refused page leaves it.
    @inlinable mutating func dropReplacedInfo(checking info: Info, direction: PaginationDirection) throws {
        let previous = direction == .next ? nextInfo.take() : previousInfo.take()
        guard repeats(info, after: previous, direction: direction) else { return }
        switch direction {
        case .next: nextInfo = previous
        case .previous: previousInfo = previous
        }
        throw PaginationError.repeatedToken(info.positionDescription(direction: direction), direction: direction)
    }

    /// Whether `info` repeats the position of `previous`, the last page's info in its
    /// direction, or of the initial page's info if there is none (P9).
    /// Always inlined: called out of line it was handed a bitwise copy of the whole state
    /// (280 bytes) per page.
    @inlinable @inline(__always)
    func repeats(_ info: Info, after previous: Info?, direction: PaginationDirection) -> Bool {
        switch previous {
        case .some(let previous): info.repeatsPosition(of: previous, direction: direction)
        case .none: initialInfo.map { info.repeatsPosition(of: $0, direction: direction) } ?? false
        }
    }

    @inlinable mutating func store(_ page: consuming Page, info: consuming Info, direction: PaginationDirection) {
        switch direction {
        case .next:
            nextPages.append(page)
            nextInfo = info
        case .previous:
            previousPagesNewestLast.append(page)
            previousInfo = info
        }
    }

    /// What a `loadAll` does next.
    @usableFromInline enum LoadAllStep: Sendable {
        case fetch(PaginationDirection, Request)
        case finished
    }

    /// `loadAll` exhausts next pages, then previous pages (P10).
    @inlinable func loadAllStep(
        id: UInt64,
        isCancelled: Bool,
        resolve: (Info, PaginationDirection) -> Request?
    ) throws -> LoadAllStep {
        guard load?.id == id, !isCancelled else { throw CancellationError() }
        return try nextLoadAllStep(resolve: resolve)
    }

    /// The body of `loadAllStep` once the load is known to be current.
    @inlinable func nextLoadAllStep(resolve: (Info, PaginationDirection) -> Request?) throws -> LoadAllStep {
        let direction: PaginationDirection
        if canLoadNext {
            direction = .next
        } else if canLoadPrevious {
            direction = .previous
        } else {
            return .finished
        }
        guard let info = info(for: direction), let request = resolve(info, direction) else {
            throw PaginationError.noQuery
        }
        return .fetch(direction, request)
    }

    // MARK: Ending loads

    /// How a load ended, as far as subscribers are concerned.
    @usableFromInline enum Outcome: Sendable {
        /// Publish the pages held.
        case publishOutput
        /// Publish a failure; the pages held stay.
        case publishFailure(any Error)
        /// Publish nothing (cancelled or orphaned loads).
        case silent
    }

    @usableFromInline enum EndAction: Sendable {
        /// Nothing more to do.
        case done
        /// Transform this output outside the lock, then call `deliver`.
        case transform(Output)
    }

    /// Ends load `id` (P6: the in-progress flag is cleared on every path), unless a
    /// transform for subscribers is still to run, in which case the load stays reserved
    /// until `deliver`, so outputs reach subscribers in load order. An orphaned load
    /// changes nothing.
    @inlinable mutating func endLoad(id: UInt64, outcome: Outcome) -> EndAction {
        guard load?.id == id else { return .done }
        switch outcome {
        case .silent:
            finishLoad()
            return .done
        case .publishFailure(let error):
            finishLoad()
            publish(.failure(error))
            return .done
        case .publishOutput:
            guard let initialPage else {
                finishLoad()
                return .done
            }
            if subscribers.isEmpty {
                // Record the publication without building an output: the state keeps the
                // only reference to its page buffers, so the next load appends in place
                // (amortised O(1)) instead of copying every page held.
                finishLoad()
                outputVersion &+= 1
                latest = .prefix(nextCount: nextPages.count, previousCount: previousPagesNewestLast.count)
                return .done
            }
            // Subscribers need the output now. The pager drops it once transformed, so
            // unless the transform's model keeps the arrays (as the identity transform
            // does), the next append is still in place.
            return .transform(
                Output(
                    previousPages: previousPagesNewestLast.reversed(),
                    initialPage: initialPage,
                    nextPages: nextPages
                )
            )
        }
    }

    /// Publishes the transformed output of load `id` and ends it; dropped if a reset
    /// orphaned the load meanwhile (P12).
    @inlinable mutating func deliver(_ result: Result<Model, any Error>, id: UInt64) {
        guard load?.id == id else { return }
        finishLoad()
        publish(result)
    }

    /// Clears the load in flight (P6) and tells the watches, whose refresh may be waiting.
    @inlinable mutating func finishLoad() {
        load = nil
        if !watchers.isEmpty {
            watchers = watchers.filter { $0.value(.loadEnded) }
        }
    }

    @inlinable mutating func publish(_ result: Result<Model, any Error>) {
        outputVersion &+= 1
        latest = .result(result)
        for subscriber in subscribers.values {
            subscriber.yield(result)
        }
    }

    // MARK: Reset

    /// Drops every page and the latest output and orphans the load in flight, returning
    /// its task for the caller to cancel outside the lock. Subscribers stay (P12).
    @inlinable mutating func reset() -> Task<Void, any Error>? {
        let orphan = load?.task
        load?.abort?()
        load = nil
        // The pages watched are gone: every watch ends (P16).
        if !watchers.isEmpty {
            for watcher in watchers.values { _ = watcher(.stop) }
            watchers = [:]
        }
        latest = .none
        outputVersion &+= 1
        dropHeldPages()
        return orphan
    }

    // MARK: Subscribers

    @usableFromInline enum SubscribeAction: Sendable {
        case subscribed
        /// The latest output is still raw: transform it outside the lock and call
        /// `subscribe(_:id:transformed:version:)` again.
        case transform(Output, version: UInt64)
    }

    @inlinable mutating func makeSubscriberID() -> UInt64 {
        lastSubscriberID &+= 1
        return lastSubscriberID
    }

    /// Registers a subscriber and hands it the latest output at once (P11).
    @inlinable mutating func subscribe(
        _ subscriber: Subscriber,
        id: UInt64,
        transformed: (result: Result<Model, any Error>, version: UInt64)?
    ) -> SubscribeAction {
        switch latest {
        case .none:
            break
        case .result(let result):
            subscriber.yield(result)
        case .prefix, .raw:
            guard let transformed, transformed.version == outputVersion else {
                guard let output = latestOutput else { break }
                return .transform(output, version: outputVersion)
            }
            latest = .result(transformed.result)
            subscriber.yield(transformed.result)
        }
        subscribers[id] = subscriber
        return .subscribed
    }

    /// The latest published output while it is still untransformed, built if needed.
    @inlinable var latestOutput: Output? {
        switch latest {
        case .prefix(let nextCount, let previousCount): prefixOutput(nextCount: nextCount, previousCount: previousCount)
        case .raw(let output): output
        case .none, .result: nil
        }
    }

    @inlinable mutating func unsubscribe(id: UInt64) {
        subscribers[id] = nil
    }

    // MARK: Watches (P16)

    @inlinable mutating func addWatcher(_ watcher: @escaping @Sendable (WatchSignal) -> Bool) {
        lastWatcherID &+= 1
        watchers[lastWatcherID] = watcher
    }

    /// Whether a refresh could start.
    @usableFromInline enum RefreshStart: Sendable {
        case started(UInt64)
        /// A load is in flight: the watch tries again when it ends.
        case busy
        /// Nothing is held (a reset): the watch is over.
        case nothingHeld
    }

    /// Reserves the pager for a refresh unless a load is in flight or nothing is held.
    /// `abort` is finished by a reset.
    @inlinable mutating func startRefresh(abort: @escaping @Sendable () -> Void) -> RefreshStart {
        if load != nil { return .busy }
        guard initialPage != nil else { return .nothingHeld }
        let id = beginLoad(.refresh)
        load?.abort = abort
        return .started(id)
    }

    /// Removes every subscriber, for the pager's deinit, returning them to finish.
    @inlinable mutating func removeAllSubscribers() -> [Subscriber] {
        defer { subscribers = [:] }
        return Array(subscribers.values)
    }
}

// MARK: Refreshing held pages (P16)

/// The pages held in load order along one direction from the initial page: the "next"
/// chain is the initial page then the next pages; the "previous" chain the previous pages,
/// nearest the initial page first.
@usableFromInline enum PageChain: Sendable, Equatable {
    case next
    case previous

    @inlinable var direction: PaginationDirection { self == .next ? .next : .previous }
}

/// A re-fetched page for ``QueryPagerStateMachine/receiveRefresh(id:pages:truncate:isCancelled:)``.
@usableFromInline struct RefreshedPage<Page: Sendable, Info: PaginationInfo>: Sendable {
    @usableFromInline let chain: PageChain
    /// Position in the chain (next chain: 0 is the initial page).
    @usableFromInline let index: Int
    @usableFromInline let page: Page
    @usableFromInline let info: Info

    @inlinable init(chain: PageChain, index: Int, page: Page, info: Info) {
        self.chain = chain
        self.index = index
        self.page = page
        self.info = info
    }
}

extension QueryPagerStateMachine where InitialPage == Page {
    /// The number of pages of a chain.
    @inlinable func count(of chain: PageChain) -> Int {
        guard initialPage != nil else { return 0 }
        return chain == .next ? 1 + nextPages.count : previousPagesNewestLast.count
    }

    /// Page `index` of a chain.
    @inlinable func page(_ chain: PageChain, _ index: Int) -> Page {
        chain == .next ? (index == 0 ? initialPage! : nextPages[index - 1]) : previousPagesNewestLast[index]
    }

    /// Every held page with the request that fetched it (rebuilt from the page before it,
    /// as the load did), in chain order; nil entries where the resolver gives no request.
    @inlinable func requests(
        _ chain: PageChain,
        initialRequest: Request,
        extractInitialInfo: (Page) -> Info,
        extractInfo: (Page) -> Info,
        resolve: (Info, PaginationDirection) -> Request?
    ) -> [Request?] {
        guard let initialPage else { return [] }
        var result: [Request?] = []
        var previousInfo = extractInitialInfo(initialPage)
        if chain == .next { result.append(initialRequest) }
        let pages = chain == .next ? nextPages : previousPagesNewestLast
        for page in pages {
            result.append(resolve(previousInfo, chain.direction))
            previousInfo = extractInfo(page)
        }
        return result
    }

    /// Applies a refresh of load `id`: re-fetched pages replace the held ones, and a chain
    /// whose re-fetched page now ends the listing loses the pages after it. Throws
    /// `CancellationError` when a reset orphaned the load (nothing changes).
    @inlinable mutating func receiveRefresh(
        id: UInt64,
        pages: [RefreshedPage<Page, Info>],
        truncate: [PageChain: Int],
        isCancelled: Bool
    ) throws {
        guard load?.id == id, !isCancelled else { throw CancellationError() }
        // Pages change in place: a latest output recorded as a prefix of them is built first.
        if case .prefix(let nextCount, let previousCount) = latest {
            latest = prefixOutput(nextCount: nextCount, previousCount: previousCount).map { .raw($0) } ?? .none
        }
        for refreshed in pages {
            switch (refreshed.chain, refreshed.index) {
            case (.next, 0):
                initialPage = refreshed.page
                initialInfo = refreshed.info
            case (.next, let index):
                nextPages[index - 1] = refreshed.page
                if index == nextPages.count { nextInfo = refreshed.info }
            case (.previous, let index):
                previousPagesNewestLast[index] = refreshed.page
                if index == previousPagesNewestLast.count - 1 { previousInfo = refreshed.info }
            }
        }
        for (chain, last) in truncate {
            let info = pages.last { $0.chain == chain && $0.index == last }?.info
            switch chain {
            case .next:
                nextPages.removeSubrange(last...)  // keeps the initial page and next pages 1..<last
                nextInfo = last == 0 ? nil : info
            case .previous:
                previousPagesNewestLast.removeSubrange((last + 1)...)
                previousInfo = info
            }
        }
    }
}
