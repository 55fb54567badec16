import PagebenchBase

/// The streaming pager: an `AsyncSequence` of pages that follows the source's tokens from
/// the initial request until there is no next page, and retains nothing it has yielded,
/// so a store of any size drains in constant memory (docs/contract.md P7, P9, P15).
///
/// Empty pages with a token are yielded like any other page (P7). A page whose position
/// repeats the one it was requested with ends the sequence with
/// `PaginationError.repeatedToken` (P9). Retryable source errors are retried per
/// `retryPolicy`. One source request per page, no task and no stream per page; the
/// iterator is a plain value owned by the consuming task, so cancellation of that task
/// reaches the in-flight `fetch` directly.
///
/// The next request comes from a resolver that builds it from the page's info (Apollo's
/// `pageResolver`), or from one that updates the request just used in place
/// (``init(source:initialRequest:direction:retryPolicy:counters:extractPageInfo:advanceRequest:)``):
/// a request that holds references is then not copied and destroyed once a page (about 8 %
/// of a limit-10 in-process page's CPU, results/harness-overhead.md).
public struct PageStream<Source: PageSource, Info: PaginationInfo>: AsyncSequence, Sendable {
    public typealias Element = Source.Response
    public typealias Failure = any Error

    @usableFromInline let source: Source
    @usableFromInline let initialRequest: Source.Request
    @usableFromInline let direction: PaginationDirection
    @usableFromInline let retryPolicy: RetryPolicy
    @usableFromInline let extractPageInfo: @Sendable (Source.Response) -> Info
    @usableFromInline let resolver: Resolver
    /// Requests, retries and pages of every iteration of this stream.
    public let counters: PagerCounters

    /// - Parameters:
    ///   - source: where pages come from.
    ///   - initialRequest: the first request (no token).
    ///   - direction: which way to follow: `.next` uses `canLoadNext`, `.previous` `canLoadPrevious`.
    ///   - retryPolicy: retries of retryable source errors; off by default.
    ///   - counters: where to count work; pass a shared instance to read it while draining.
    ///   - extractPageInfo: the pagination info of a page (e.g. its `nextToken`).
    ///   - pageResolver: the request for the page after (or before) the one an info describes.
    public init(
        source: Source,
        initialRequest: Source.Request,
        direction: PaginationDirection = .next,
        retryPolicy: RetryPolicy = .none,
        counters: PagerCounters = PagerCounters(),
        extractPageInfo: @escaping @Sendable (Source.Response) -> Info,
        pageResolver: @escaping @Sendable (Info, PaginationDirection) -> Source.Request?
    ) {
        self.init(
            source,
            initialRequest,
            direction,
            retryPolicy,
            counters,
            extractPageInfo,
            resolver: .build(pageResolver)
        )
    }

    /// A stream whose next request is the previous one updated in place.
    ///
    /// - Parameters:
    ///   - source: where pages come from.
    ///   - initialRequest: the first request (no token).
    ///   - direction: which way to follow: `.next` uses `canLoadNext`, `.previous` `canLoadPrevious`.
    ///   - retryPolicy: retries of retryable source errors; off by default.
    ///   - counters: where to count work; pass a shared instance to read it while draining.
    ///   - extractPageInfo: the pagination info of a page (e.g. its `nextToken`).
    ///   - advanceRequest: turns the request just fetched into the request for the page
    ///     after (or before) the one an info describes, and returns true; false if there is
    ///     none (P3: the stream then fails with `noQuery` after yielding the page).
    public init(
        source: Source,
        initialRequest: Source.Request,
        direction: PaginationDirection = .next,
        retryPolicy: RetryPolicy = .none,
        counters: PagerCounters = PagerCounters(),
        extractPageInfo: @escaping @Sendable (Source.Response) -> Info,
        advanceRequest: @escaping @Sendable (inout Source.Request, Info, PaginationDirection) -> Bool
    ) {
        self.init(
            source,
            initialRequest,
            direction,
            retryPolicy,
            counters,
            extractPageInfo,
            resolver: .advance(advanceRequest)
        )
    }

    private init(
        _ source: Source,
        _ initialRequest: Source.Request,
        _ direction: PaginationDirection,
        _ retryPolicy: RetryPolicy,
        _ counters: PagerCounters,
        _ extractPageInfo: @escaping @Sendable (Source.Response) -> Info,
        resolver: Resolver
    ) {
        self.source = source
        self.initialRequest = initialRequest
        self.direction = direction
        self.retryPolicy = retryPolicy
        self.counters = counters
        self.extractPageInfo = extractPageInfo
        self.resolver = resolver
    }

    /// How the next request is made.
    @usableFromInline enum Resolver: Sendable {
        /// Built from the info (Apollo's page resolver).
        case build(@Sendable (Info, PaginationDirection) -> Source.Request?)
        /// The request just used, updated in place.
        case advance(@Sendable (inout Source.Request, Info, PaginationDirection) -> Bool)
    }

    @inlinable
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(stream: self)
    }

    /// Iterates pages. Finished after the last page, a thrown error, or `repeatedToken`.
    public struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline let stream: PageStream
        /// The next request; nil once the sequence has ended (or is about to fail).
        @usableFromInline var request: Source.Request?
        /// The info of the last page, for the repeated-token guard.
        @usableFromInline var previous: Info?
        /// An error to throw on the next call (a resolver without a request, P3).
        @usableFromInline var pendingError: PaginationError?
        @usableFromInline var random: SplitMix64

        @inlinable init(stream: PageStream) {
            self.stream = stream
            self.request = stream.initialRequest
            self.random = SplitMix64(seed: stream.retryPolicy.seed)
        }

        /// A request the source answers later (a remote target, a store with service time):
        /// a call of its own, not inlined into ``next(isolation:)``. Inlined, the source's
        /// waiting path (its service time, its consistency checks) made the frame of every
        /// loop that calls `next` 12 KB, held by each suspended task for its whole life, also
        /// where the source answers at once (issue 38: a crowd of streaming pagers).
        @inlinable @inline(never)
        static func fetchWaiting(_ source: Source, _ request: Source.Request) async throws -> Source.Response {
            try await source.fetch(request)
        }

        @inlinable
        public mutating func next() async throws -> Source.Response? {
            try await next(isolation: nil)
        }

        /// Runs on the caller's isolation, so a drain loop pays no executor hop per page.
        /// Always inlined into the caller's loop: as a separate async function it costs a
        /// task-allocator frame, two executor switches (entry and return) and a copy of
        /// its context per page, ~60 ns of a ~450 ns limit-10 page (measured, perf).
        @inlinable @inline(__always)
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> Source.Response? {
            // Taking the request ends the sequence unless a next request is set below, so
            // any throw ends it.
            guard var request = request.take() else {
                if let error = pendingError.take() { throw error }
                return nil
            }
            // The first attempt inline (the retry loop is a separate cold function): through
            // `fetchRetrying` the optimizer copied the source (the synthetic store: 480 bytes)
            // twice per page, called here once (measured, disassembly of a release drain).
            stream.counters.countRequest()
            let page: Source.Response
            do {
                // A source that answers at once spares the executor switch after an `await`.
                if let immediate = try stream.source.fetchWithoutWaiting(request) {
                    page = immediate
                } else {
                    page = try await Self.fetchWaiting(stream.source, request)
                }
            } catch {
                page = try await retryAfterFailure(
                    error,
                    stream.source,
                    request,
                    policy: stream.retryPolicy,
                    random: &random,
                    counters: stream.counters
                )
            }
            let info = stream.extractPageInfo(page)
            // Moved out, not copied (no retain of its cursor): `previous` is set again below
            // whenever the sequence goes on, and never read once it has ended.
            if let previous = previous.take(), info.repeatsPosition(of: previous, direction: stream.direction) {
                throw PaginationError.repeatedToken(
                    info.positionDescription(direction: stream.direction),
                    direction: stream.direction
                )
            }
            stream.counters.countPage()
            let more = stream.direction == .next ? info.canLoadNext : info.canLoadPrevious
            if more {
                let resolved: Bool
                switch stream.resolver {
                case .build(let resolve):
                    if let nextRequest = resolve(info, stream.direction) {
                        self.request = nextRequest
                        resolved = true
                    } else {
                        resolved = false
                    }
                case .advance(let advance):
                    resolved = advance(&request, info, stream.direction)
                    if resolved { self.request = consume request }
                }
                if resolved {
                    // Moved, not copied: no retain/release of the cursor per page.
                    self.previous = consume info
                } else {
                    // The page itself is fine: yield it, fail on the next call.
                    pendingError = .noQuery
                }
            }
            return page
        }
    }

    /// The items of every page, in page order, following tokens through any number of
    /// empty pages. Each item is released as it is yielded.
    @inlinable
    public func items<Item>(
        _ extractItems: @escaping @Sendable (Source.Response) -> [Item]
    ) -> PageItemStream<Source, Info, Item> {
        PageItemStream(pages: self, extractItems: extractItems)
    }
}
