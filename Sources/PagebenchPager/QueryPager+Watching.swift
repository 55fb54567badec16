import PagebenchBase

/// Watching the pages held (docs/contract.md P16), as Apollo's cache watchers do: a change that
/// touches a loaded page makes the pager re-fetch that page (and the pages after it in its
/// direction whose request it moved) and publish the new output to its subscribers.
///
/// Structured concurrency only: a watch is an `AsyncSequence` its caller iterates; the
/// refreshes run in the iterating task (the fetches in a child task of it, raced against
/// `reset()`, which cancels them promptly). Nothing runs once the caller stops iterating,
/// cancels its task, or the pager is reset or released: the sequence ends and no task is
/// left behind.
extension QueryPager where InitialSource == PaginatedSource {
    /// Watches the pages held through `feed`: a change for which `touches(change, request,
    /// page)` is true of a held page (the request that fetched it, the page) makes the
    /// pager re-fetch from that page on and publish the new output; the sequence yields a
    /// ``WatchRefresh`` after each publication. Changes that touch no held page are ignored.
    ///
    /// The subscription starts now: changes made before the first `next()` are not lost.
    /// A refresh waits for a load in flight to end, and a load started during a refresh
    /// throws `loadInProgress` (P5). A failed re-fetch is published as a failure (P11) and
    /// the watch goes on. `reset()`, releasing the pager, or cancelling the iterating task
    /// ends the sequence. Iterate it once.
    ///
    /// - Parameters:
    ///   - feed: the change notifications to watch (a database's change stream, the store's S26 feed).
    ///   - touches: whether a change touches a held page (the request that fetched it, the
    ///     page); called under the pager's lock, once per held page per change until one is
    ///     touched: it must be quick and must not call the pager.
    public func watch<Feed: ChangeFeed>(
        _ feed: Feed,
        touches: @escaping @Sendable (Feed.Change, PaginatedSource.Request, PaginatedSource.Response) -> Bool
    ) -> PagerWatch<Feed.Change> {
        let (inputs, continuation) = AsyncStream.makeStream(of: PagerWatch<Feed.Change>.Input.self)
        let subscription = feed.subscribe { continuation.yield(.change($0)) }
        // Not under the pager's lock: a reset finishes the stream while holding it.
        continuation.onTermination = { _ in subscription.cancel() }
        state.withLock { state in
            state.addWatcher { signal in
                switch signal {
                case .loadEnded:
                    if case .terminated = continuation.yield(.loadEnded) { return false }
                    return true
                case .stop:
                    continuation.finish()
                    return false
                }
            }
        }
        return PagerWatch(
            inputs: inputs,
            locate: { [weak self] change in
                self?.firstTouched { request, page in touches(change, request, page) } ?? .none
            },
            refresh: { [weak self] starts, trigger in
                guard let self else { return .ended }
                return await self.refresh(from: starts, samePage: nil, trigger: trigger)
            }
        )
    }

    /// Watches the pages held without a change feed (for a source that has none): every
    /// `interval` (waited out by `sleep`, which must throw when its task is cancelled),
    /// re-fetches every held page and publishes when one differs from the page held. Ends
    /// as ``watch(_:touches:)`` does (a reset is noticed at the end of the interval).
    public func watch(
        pollingEvery interval: Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) -> PagerWatch<Never>
    where PaginatedSource.Response: Equatable {
        let (inputs, continuation) = AsyncStream.makeStream(of: PagerWatch<Never>.Input.self)
        state.withLock { state in
            state.addWatcher { signal in
                if case .stop = signal { continuation.finish() }
                return signal != .stop
            }
        }
        let wait = { @Sendable () async -> Bool in
            do {
                try await sleep(interval)
                return true
            } catch {
                return false
            }
        }
        return PagerWatch(
            polling: inputs,
            poll: { [weak self] in
                guard await wait(), let self else { return .ended }
                return await self.refresh(
                    from: RefreshStarts(next: 0, previous: 0),
                    samePage: { $0 == $1 },
                    trigger: nil
                )
            }
        )
    }

    // MARK: Refreshing

    /// The first held page, along each chain, that `touches` (the request that fetched it,
    /// the page) says a change reached.
    func firstTouched(_ touches: @Sendable (PaginatedSource.Request, PaginatedSource.Response) -> Bool) -> RefreshStarts
    {
        state.withLock { state in
            var starts = RefreshStarts()
            for chain in [PageChain.next, .previous] {
                let requests = state.requests(
                    chain,
                    initialRequest: initialRequest,
                    extractInitialInfo: extractInitialInfo,
                    extractInfo: extractPageInfo,
                    resolve: pageResolver
                )
                let first = requests.indices.first { index in
                    requests[index].map { touches($0, state.page(chain, index)) } ?? false
                }
                if chain == .next { starts.next = first } else { starts.previous = first }
            }
            return starts
        }
    }

    /// Re-fetches along each chain from `starts`, following every page whose continuation
    /// moved, and publishes the result. With `samePage` (polling), every held page is
    /// re-fetched and the output is published only if one differs.
    func refresh<Change: Sendable>(
        from starts: RefreshStarts,
        samePage: (@Sendable (PaginatedSource.Response, PaginatedSource.Response) -> Bool)?,
        trigger: Change?
    ) async -> RefreshOutcome<Change> {
        if Task.isCancelled { return .ended }
        guard !starts.isEmpty else { return .unchanged }
        let (abortStream, abort) = AsyncStream.makeStream(of: Never.self)
        defer { abort.finish() }
        let start = state.withLock { state -> (StateMachine.RefreshStart, [PageChain: [PaginatedSource.Request?]]) in
            let start = state.startRefresh(abort: { abort.finish() })
            guard case .started = start else { return (start, [:]) }
            var requests: [PageChain: [PaginatedSource.Request?]] = [:]
            for chain in [PageChain.next, .previous] {
                requests[chain] = state.requests(
                    chain,
                    initialRequest: initialRequest,
                    extractInitialInfo: extractInitialInfo,
                    extractInfo: extractPageInfo,
                    resolve: pageResolver
                )
            }
            return (start, requests)
        }
        let id: UInt64
        switch start.0 {
        case .started(let started): id = started
        case .busy: return .busy
        case .nothingHeld: return .ended
        }
        let reserved = (id: id, requests: start.1)
        // The re-fetches race a reset, which finishes `abortStream`: the first to end cancels the other.
        let child = await withTaskGroup(of: RefreshChild.self) { group in
            group.addTask {
                for await _ in abortStream {}
                return .aborted
            }
            group.addTask {
                do {
                    return .finished(
                        try await self.refetch(
                            id: reserved.id,
                            requests: reserved.requests,
                            starts: starts,
                            samePage: samePage
                        )
                    )
                } catch {
                    return .failed
                }
            }
            let first = await group.next() ?? .aborted
            group.cancelAll()
            if case .aborted = first {
                _ = await group.next()  // the re-fetch, cancelled: it publishes nothing
            }
            return first
        }
        switch child {
        case .finished(let pages?): return .published(WatchRefresh(trigger: trigger, refetchedPages: pages))
        case .finished(nil): return .unchanged
        case .failed: return Task.isCancelled || state.withLock({ $0.initialPage == nil }) ? .ended : .unchanged
        case .aborted: return .ended
        }
    }

    /// The re-fetch of refresh `id`: the pages re-fetched when it published, nil when
    /// nothing differed (polling). Throws the source's error (published as a failure) or
    /// `CancellationError` (published as nothing).
    private func refetch(
        id: UInt64,
        requests: [PageChain: [PaginatedSource.Request?]],
        starts: RefreshStarts,
        samePage: (@Sendable (PaginatedSource.Response, PaginatedSource.Response) -> Bool)?
    ) async throws -> Int? {
        var random = SplitMix64(seed: retryPolicy.seed ^ id)
        var refreshed: [RefreshedPage<PaginatedSource.Response, Info>] = []
        var truncate: [PageChain: Int] = [:]
        var differs = false
        var initialInfo: Info?
        var previousStart = starts.previous
        do {
            for chain in [PageChain.next, .previous] {
                let count = requests[chain]?.count ?? 0
                guard var index = chain == .next ? starts.next : previousStart, index < count else { continue }
                let direction = chain.direction
                var request: PaginatedSource.Request
                if chain == .previous, index == 0, let initialInfo {
                    // The first previous page follows the initial page, which was re-fetched.
                    guard initialInfo.canLoadPrevious, let first = pageResolver(initialInfo, .previous) else {
                        truncate[.previous] = -1
                        continue
                    }
                    request = first
                } else {
                    guard let held = requests[chain]?[index] else { continue }
                    request = held
                }
                while true {
                    let page = try await fetchRetrying(
                        paginatedSource,
                        request,
                        policy: retryPolicy,
                        random: &random,
                        counters: counters
                    )
                    counters.countPage()
                    let isInitial = chain == .next && index == 0
                    let info = isInitial ? extractInitialInfo(page) : extractPageInfo(page)
                    let held = try state.withLock { state throws -> PaginatedSource.Response in
                        guard state.isCurrent(id) else { throw CancellationError() }
                        return state.page(chain, index)
                    }
                    let heldInfo = isInitial ? extractInitialInfo(held) : extractPageInfo(held)
                    refreshed.append(RefreshedPage(chain: chain, index: index, page: page, info: info))
                    if let samePage, !samePage(page, held) { differs = true }
                    if isInitial {
                        initialInfo = info
                        if Self.continuationMoved(info, heldInfo, .previous), !(requests[.previous]?.isEmpty ?? true) {
                            previousStart = 0
                        }
                    }
                    // The page after this one was fetched with this page's continuation: if it
                    // moved, that page is re-fetched too; if it is gone, the pages after go.
                    guard index + 1 < count, samePage != nil || Self.continuationMoved(info, heldInfo, direction)
                    else { break }
                    guard Self.canLoad(info, direction), let next = pageResolver(info, direction) else {
                        truncate[chain] = index
                        break
                    }
                    request = next
                    index += 1
                }
            }
            if samePage != nil, !differs, truncate.isEmpty {
                _ = state.withLock { $0.endLoad(id: id, outcome: .silent) }
                return nil
            }
            try state.withLock {
                try $0.receiveRefresh(id: id, pages: refreshed, truncate: truncate, isCancelled: Task.isCancelled)
            }
            try end(id: id, .publishOutput)
            return refreshed.count
        } catch {
            try fail(id: id, error)
        }
    }

    static func canLoad(_ info: Info, _ direction: PaginationDirection) -> Bool {
        direction == .next ? info.canLoadNext : info.canLoadPrevious
    }

    /// Whether a re-fetched page's continuation in `direction` differs from the held page's.
    static func continuationMoved(_ info: Info, _ held: Info, _ direction: PaginationDirection) -> Bool {
        let can = canLoad(info, direction)
        return can != canLoad(held, direction) || (can && !info.repeatsPosition(of: held, direction: direction))
    }
}

/// Where a refresh starts along each chain (nil: that chain is not touched).
struct RefreshStarts: Sendable, Equatable {
    var next: Int?
    var previous: Int?

    static let none = RefreshStarts()

    var isEmpty: Bool { next == nil && previous == nil }

    /// The earlier start of each chain.
    func merged(with other: RefreshStarts) -> RefreshStarts {
        func earlier(_ a: Int?, _ b: Int?) -> Int? { a.map { a in b.map { min(a, $0) } ?? a } ?? b }
        return RefreshStarts(next: earlier(next, other.next), previous: earlier(previous, other.previous))
    }
}

/// How a refresh attempt ended.
enum RefreshOutcome<Change: Sendable>: Sendable {
    /// A new output was published.
    case published(WatchRefresh<Change>)
    /// Nothing to re-fetch, or (polling) nothing re-fetched differed.
    case unchanged
    /// A load is in flight: try again when it ends.
    case busy
    /// The pager was reset or released, or the task cancelled: the watch ends.
    case ended
}

/// The child tasks of a refresh.
enum RefreshChild: Sendable {
    /// The pages re-fetched and published, or nil when nothing differed.
    case finished(Int?)
    case failed
    case aborted
}

/// The outputs a watching pager publishes (P16), one element per publication; see
/// ``QueryPager/watch(_:touches:)``. Ends when the pager is reset or released or the
/// iterating task is cancelled.
public struct PagerWatch<Change: Sendable>: AsyncSequence, Sendable {
    public typealias Element = WatchRefresh<Change>
    public typealias Failure = Never

    /// What the watch's stream carries.
    enum Input: Sendable {
        case change(Change)
        case loadEnded
    }

    let inputs: AsyncStream<Input>
    /// Where a change touches the held pages.
    let locate: (@Sendable (Change) -> RefreshStarts)?
    /// Refreshes from the given starts, reporting the trigger.
    let refresh: (@Sendable (RefreshStarts, Change) async -> RefreshOutcome<Change>)?
    /// Polling: waits out the interval and re-fetches everything.
    let poll: (@Sendable () async -> RefreshOutcome<Change>)?

    init(
        inputs: AsyncStream<Input>,
        locate: @escaping @Sendable (Change) -> RefreshStarts,
        refresh: @escaping @Sendable (RefreshStarts, Change) async -> RefreshOutcome<Change>
    ) {
        self.inputs = inputs
        self.locate = locate
        self.refresh = refresh
        poll = nil
    }

    init(polling inputs: AsyncStream<Input>, poll: @escaping @Sendable () async -> RefreshOutcome<Change>) {
        self.inputs = inputs
        locate = nil
        refresh = nil
        self.poll = poll
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(inputs: inputs.makeAsyncIterator(), locate: locate, refresh: refresh, poll: poll)
    }

    public struct Iterator: AsyncIteratorProtocol {
        var inputs: AsyncStream<Input>.Iterator
        let locate: (@Sendable (Change) -> RefreshStarts)?
        let refresh: (@Sendable (RefreshStarts, Change) async -> RefreshOutcome<Change>)?
        let poll: (@Sendable () async -> RefreshOutcome<Change>)?
        /// Changes located but not refreshed yet (a load was in flight): where to start, and
        /// the first of them, reported as the refresh's trigger.
        var pending: (starts: RefreshStarts, trigger: Change)?

        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> WatchRefresh<Change>? {
            if let poll {
                while true {
                    switch await poll() {
                    case .published(let refresh): return refresh
                    case .unchanged, .busy: continue
                    case .ended: return nil
                    }
                }
            }
            guard let locate, let refresh else { return nil }
            while true {
                if let (starts, trigger) = pending {
                    switch await refresh(starts, trigger) {
                    case .published(let published):
                        pending = nil
                        return published
                    case .unchanged:
                        pending = nil
                    case .busy:
                        break  // retried when the load in flight ends
                    case .ended:
                        return nil
                    }
                }
                guard let input = await inputs.next(isolation: actor) else { return nil }
                if case .change(let change) = input {
                    // Located when it arrives, against the pages held then; changes that
                    // arrive while a refresh waits join it.
                    let starts = locate(change)
                    if !starts.isEmpty {
                        pending = (pending?.starts.merged(with: starts) ?? starts, pending?.trigger ?? change)
                    }
                }
            }
        }

        public mutating func next() async -> WatchRefresh<Change>? {
            await next(isolation: nil)
        }
    }
}
