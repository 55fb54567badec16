import PagebenchBase
import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchStore
import Synchronization

extension PagerKind {
    /// Whether the harness's drain of this kind checks its task's cancellation before every
    /// request it makes, and after every page (H2: a page that arrives after cancellation is
    /// counted as wasted and ends the drain): the loop and the streaming pager, which the
    /// drain calls page by page. The Apollo-style pager's loads make their requests inside
    /// the pager, where only the source can check.
    public var checksCancellationBeforeEveryRequest: Bool { self == .loop || self == .streaming }
}

/// How one drain ended and what it cost.
struct DrainResult: Sendable {
    enum Ending: Sendable, Equatable {
        /// Drained to the last page, stopped after K pages, or abandoned.
        case finished
        /// A store or pager error ended it: the page contract's kind of the error (nil: an
        /// error that is no page failure).
        case failed(PageError.Kind?)
        /// Its task was cancelled (probe or final cancel-everything).
        case cancelled
    }

    var ending: Ending
    var pages: Int
    /// Pages that arrived after cancellation had been requested (H2 wasted work).
    var pagesAfterCancel: Int
    /// How long the drain waited, yielded at its checkpoints, for its turn to run again
    /// (``Pacing/parkedNanoseconds``): with a crowd of CPU-bound pagers, most of its time.
    var parkedNanoseconds: UInt64 = 0
}

/// Runs single drains with one pager kind against a source, counting every page into the
/// calling task's ``TaskMetrics`` and keeping its latency in the task's ``LatencyBuffer``:
/// the per-page path is plain arithmetic, two page-clock reads (when timed) and an append,
/// with no shared lock, actor or atomic (the buffer takes its sink's lock once per batch). (A page
/// of 50 µs or more is also published to the pager's live counters at once: ``PagerTaskProgress``.)
///
/// A class, not a struct: its source alone is over a kilobyte (the synthetic store's
/// configuration), and every async frame that held a copy of the runner across a
/// suspension kept that copy for as long as its pager was suspended there. With a crowd of
/// pagers (issue 38) those copies were most of a pager's memory; a reference costs 8 bytes.
final class DrainRunner<Source: PageSource>: Sendable where Source.Request == PageRequest, Source.Response == Page {
    let source: ObservedSource<Source>
    let kind: PagerKind
    let retryPolicy: RetryPolicy
    let timing: Bool
    let yieldEveryPages: Int
    /// When checkpoints yield the thread.
    let yieldPolicy: YieldPolicy
    let progress: PagerTaskProgress
    /// Where time-series latencies go; nil without `--timeseries`.
    let intervals: IntervalLatencies?
    /// Counters of this pager's streaming drains (retries are read from them).
    let streamCounters = PagerCounters()
    /// Times pages: the CPU's counter where it can be trusted (``MonotonicTime/PageClock``).
    let clock = MonotonicTime.PageClock.process
    /// The phase whose end (deadline, interruption) the drain reads at its checkpoints
    /// (``PhaseControl/endVerdict(now:)``); nil where only task cancellation ends drains.
    let phase: PhaseControl?

    init(
        source: ObservedSource<Source>,
        kind: PagerKind,
        retryPolicy: RetryPolicy,
        timing: Bool,
        yieldEveryPages: Int,
        yieldPolicy: YieldPolicy,
        progress: PagerTaskProgress,
        intervals: IntervalLatencies?,
        phase: PhaseControl? = nil
    ) {
        self.phase = phase
        self.source = source
        self.kind = kind
        self.retryPolicy = retryPolicy
        self.timing = timing
        self.yieldEveryPages = yieldEveryPages
        self.yieldPolicy = yieldPolicy
        self.progress = progress
        self.intervals = intervals
    }

    typealias Info = CursorBasedPagination.Forward

    /// Runs one drain. Its task's cancellation is read from a flag that a cancellation
    /// handler sets (one relaxed load per check, where `Task.isCancelled` costs a thread-local
    /// lookup and a retain and release of the task, ~20 ns, twice per page;
    /// results/harness-overhead.md); the handler runs at once if the task is already cancelled.
    ///
    /// Its pages are published to the pager's live counters (H7) when one takes
    /// ``Pacing/publishAtOnceNanoseconds`` or more, at its checkpoints and at its end.
    ///
    /// This and the functions of each pager kind, and the pager task's loop and probe, are
    /// never inlined into their callers: an async function's frame holds every local of
    /// every branch inlined into it, and is held for as long as the task is suspended in
    /// it (what inlining cost a pager is in results/crowd.md); each call allocates only its
    /// own frame, once per drain, not per page.
    @inline(never)
    func run(_ plan: DrainPlan, into metrics: inout TaskMetrics, pacing: inout Pacing) async -> DrainResult {
        // Only this drain's pages are published from here: `metrics` may hold others' already.
        pacing.markPublished(metrics)
        defer {
            publishPages(pages: metrics.pages, items: metrics.items, scannedBytes: metrics.scannedBytes, &pacing)
        }
        let cancelled = Atomic<Bool>(false)
        let parkedBefore = pacing.parkedNanoseconds
        var result = await withTaskCancellationHandler {
            switch kind {
            case .loop: return await runLoop(plan, into: &metrics, pacing: &pacing, cancelled: cancelled)
            case .streaming: return await runStreaming(plan, into: &metrics, pacing: &pacing, cancelled: cancelled)
            case .apolloLoadNext: return await runLoadNext(plan, into: &metrics, pacing: &pacing, cancelled: cancelled)
            case .apolloLoadAll: return await runLoadAll(plan, into: &metrics, pacing: &pacing, cancelled: cancelled)
            case .apolloWatch: return await runWatch(plan, into: &metrics, pacing: &pacing, cancelled: cancelled)
            }
        } onCancel: {
            cancelled.store(true, ordering: .relaxed)
        }
        result.parkedNanoseconds = pacing.parkedNanoseconds &- parkedBefore
        return result
    }

    // MARK: Per page

    /// Records one page; returns whether the drain goes on to the next page.
    @inline(__always)
    private func account(
        _ page: Page,
        startedAt: UInt64,
        plan: inout DrainPlan,
        result: inout DrainResult,
        metrics: inout TaskMetrics,
        pacing: inout Pacing,
        cancelled: borrowing Atomic<Bool>
    ) -> Bool {
        // A pattern, not `!= nil`: the generic comparison retained and released the token
        // around its use (measured, disassembly).
        let hasNextToken: Bool
        if case .some = page.nextToken { hasNextToken = true } else { hasNextToken = false }
        var slow = false
        var endedAt: UInt64 = 0
        if timing {
            let ended = clock.now()
            endedAt = ended
            let elapsed = clock.nanoseconds(from: startedAt, to: ended)
            slow = elapsed >= Pacing.publishAtOnceNanoseconds
            if pacing.intervalSamples != nil { keepIntervalSample(elapsed, endedAt: ended, &pacing) }
            pacing.latencies.record(.page, nanoseconds: elapsed)
        }
        metrics.recordPage(
            itemCount: page.items.count,
            scannedCount: page.scannedCount,
            scannedBytes: page.scannedBytes,
            hasNextToken: hasNextToken,
            latencyNanoseconds: nil
        )
        // A slow page is published at once; fast ones at the checkpoint (H7, ``PagerTaskProgress``).
        if slow { publishSlowPage(metrics, endedAt: endedAt, &pacing) }
        result.pages += 1
        pacing.pagesSinceCheckpoint += 1
        // A drain this page ends (its last page, its K pages, or abandoned) has ended whole,
        // even if its cancel was requested while the page was on its way: it is a drain of the
        // row, not cut off (H14), and its last page is no wasted work (H2). Only a drain that
        // would go on stops here.
        guard hasNextToken else { return false }
        if let maxPages = plan.maxPages, result.pages >= maxPages { return false }
        guard !plan.abandonsAfterPage() else { return false }
        if cancelled.load(ordering: .relaxed) {
            result.pagesAfterCancel += 1
            result.ending = .cancelled
            return false
        }
        if let pages = pacing.cancelAfterPages, result.pages >= pages {
            // The cancellation probe of a drain shorter than a timer tick: the request for the
            // next page starts cancelled, and the latency runs from here.
            pacing.cancelAfterPages = nil
            pacing.selfCancelledAt = MonotonicTime.nanoseconds()
            withUnsafeCurrentTask { $0?.cancel() }
        }
        return true
    }

    /// The tail of every page of every page-by-page kind (loop, streaming, `apollo-loadNext`
    /// and the loading of `apollo-watch`): records the page (``account``), holds the
    /// checkpoint every `yieldEveryPages` pages, and says whether the drain goes on to
    /// another page. Not after its last page, nor once its task was cancelled, nor once its
    /// phase ended at a checkpoint (deadline or interruption: then `result` says cancelled).
    @inline(__always)
    private func pageEnded(
        _ page: Page,
        startedAt: UInt64,
        plan: inout DrainPlan,
        result: inout DrainResult,
        metrics: inout TaskMetrics,
        pacing: inout Pacing,
        cancelled: borrowing Atomic<Bool>
    ) async -> Bool {
        guard
            account(
                page,
                startedAt: startedAt,
                plan: &plan,
                result: &result,
                metrics: &metrics,
                pacing: &pacing,
                cancelled: cancelled
            )
        else { return false }
        // A drain that has just cancelled itself (the probe by page count) goes straight to
        // its next request, which ends it: a checkpoint could yield, and in a crowd a yielded
        // pager waits for every other to run before it returns (1 in 64 probes, issue 38).
        guard pacing.pagesSinceCheckpoint >= yieldEveryPages, !cancelled.load(ordering: .relaxed) else { return true }
        guard await checkpoint(&pacing, metrics) else { return true }
        result.ending = .cancelled
        return false
    }

    /// How a drain that caught `error` from a request ends.
    @inline(__always)
    private func failed(_ error: any Error, result: inout DrainResult, cancelled: borrowing Atomic<Bool>) -> DrainResult
    {
        result.ending = ending(for: error, cancelled: cancelled)
        return result
    }

    /// Before a request: false (the drain ends, cancelled, having requested nothing more) if
    /// its task is cancelled. With it the in-process store need not check (``StoreSource``).
    @inline(__always)
    private func mayRequest(result: inout DrainResult, cancelled: borrowing Atomic<Bool>) -> Bool {
        guard cancelled.load(ordering: .relaxed) else { return true }
        result.ending = .cancelled
        return false
    }

    private func ending(for error: any Error, cancelled: borrowing Atomic<Bool>) -> DrainResult.Ending {
        if error is CancellationError || cancelled.load(ordering: .relaxed) { return .cancelled }
        return .failed(PageError.Kind(classifying: error))
    }

    // MARK: Pager kinds

    /// The floor: a bare loop calling the source, with the retry policy applied by hand.
    @inline(never)  // Its own async frame: see ``DrainRunner/run(_:into:pacing:)``.
    private func runLoop(
        _ plan: DrainPlan,
        into metrics: inout TaskMetrics,
        pacing: inout Pacing,
        cancelled: borrowing Atomic<Bool>
    ) async -> DrainResult {
        var plan = plan
        var result = DrainResult(ending: .finished, pages: 0, pagesAfterCancel: 0)
        var request = plan.request
        var backoffRandom = SplitMix64(seed: retryPolicy.seed, stream: 0x6C6F_6F70, index: UInt64(plan.index))
        // A local copy, made once: read through `self` inside the loop, the source (the
        // synthetic store's references) was copied and destroyed around every page.
        let source = self.source
        while true {
            guard mayRequest(result: &result, cancelled: cancelled) else { return result }
            let started = timing ? clock.now() : 0
            let page: Page
            do {
                // The first attempt inline, the retries in a separate function. An in-process
                // store answers without suspending (StoreSource): no async frame, and no
                // executor switch after an `await`, per page.
                if let immediate = try source.fetchWithoutWaiting(request) {
                    page = immediate
                } else {
                    page = try await fetchWaiting(request)
                }
            } catch {
                do {
                    page = try await retryAfterFailure(error, request, random: &backoffRandom, metrics: &metrics)
                } catch {
                    return failed(error, result: &result, cancelled: cancelled)
                }
            }
            guard
                await pageEnded(
                    page,
                    startedAt: started,
                    plan: &plan,
                    result: &result,
                    metrics: &metrics,
                    pacing: &pacing,
                    cancelled: cancelled
                )
            else { return result }
            request.token = page.nextToken
        }
    }

    /// A request the source answers later (a remote target, a store with service time), in
    /// a frame of its own: inlined, the source's waiting path grows the loop's frame, which
    /// every suspended pager holds for its life (issue 38; ``PageStream``'s `next` likewise).
    @inline(never)
    private func fetchWaiting(_ request: PageRequest) async throws -> Page {
        try await source.fetch(request)
    }

    /// Retries a request whose first attempt (made inline by the caller) failed with
    /// `error`, as the retry policy allows; rethrows the last error when it gives up.
    private func retryAfterFailure(
        _ error: any Error,
        _ request: PageRequest,
        random: inout SplitMix64,
        metrics: inout TaskMetrics
    ) async throws -> Page {
        try await retryPolicy.retry(after: error, random: &random) {
            metrics.retries += 1
        } _: {
            try await source.fetch(request)
        }
    }

    /// The streaming pager: one `next()` per page.
    @inline(never)  // Its own async frame: see ``DrainRunner/run(_:into:pacing:)``.
    private func runStreaming(
        _ plan: DrainPlan,
        into metrics: inout TaskMetrics,
        pacing: inout Pacing,
        cancelled: borrowing Atomic<Bool>
    ) async -> DrainResult {
        var plan = plan
        var result = DrainResult(ending: .finished, pages: 0, pagesAfterCancel: 0)
        let first = plan.request
        let retriesBefore = streamCounters.retries
        defer { metrics.retries += streamCounters.retries - retriesBefore }
        // The next request is the last one with the page's token: updated in place, not a
        // copy of `first` built and the old one destroyed each page (PageStream).
        let stream = PageStream<RunnerSource<Source>, Info>(
            source: RunnerSource(runner: self),
            initialRequest: first,
            retryPolicy: retryPolicy,
            counters: streamCounters,
            extractPageInfo: { Info(nextToken: $0.nextToken) },
            advanceRequest: { request, info, _ in
                guard let token = info.endCursor else { return false }
                request.token = token
                return true
            }
        )
        var iterator = stream.makeAsyncIterator()
        while true {
            guard mayRequest(result: &result, cancelled: cancelled) else { return result }
            let started = timing ? clock.now() : 0
            let page: Page
            do {
                // On this task's isolation: the inlined `next`, no async call per page.
                guard let next = try await iterator.next(isolation: #isolation) else { return result }
                page = next
            } catch {
                return failed(error, result: &result, cancelled: cancelled)
            }
            guard
                await pageEnded(
                    page,
                    startedAt: started,
                    plan: &plan,
                    result: &result,
                    metrics: &metrics,
                    pacing: &pacing,
                    cancelled: cancelled
                )
            else { return result }
        }
    }

    func makeQueryPager(
        _ first: PageRequest
    )
        -> QueryPager<ObservedSource<Source>, ObservedSource<Source>, Info, PaginationOutput<Page, Page>>
    {
        makeQueryPager(first, source: source)
    }

    /// The Apollo-style pager over `source` (this runner's, or one wrapping it).
    func makeQueryPager<Pages: PageSource>(
        _ first: PageRequest,
        source: Pages
    )
        -> QueryPager<Pages, Pages, Info, PaginationOutput<Page, Page>>
    where Pages.Request == PageRequest, Pages.Response == Page {
        QueryPager(
            source: source,
            initialRequest: first,
            retryPolicy: retryPolicy,
            extractPageInfo: { Info(nextToken: $0.nextToken) },
            pageResolver: { info, _ in info.endCursor.map { first.with(token: $0) } }
        )
    }

    /// The Apollo-style pager page by page: `fetch()`, then `loadNext()` while `canLoadNext`.
    @inline(never)  // Its own async frame: see ``DrainRunner/run(_:into:pacing:)``.
    private func runLoadNext(
        _ plan: DrainPlan,
        into metrics: inout TaskMetrics,
        pacing: inout Pacing,
        cancelled: borrowing Atomic<Bool>
    ) async -> DrainResult {
        let pager = makeQueryPager(plan.request)
        defer { metrics.retries += pager.counters.retries }
        return await loadPages(pager, plan, into: &metrics, pacing: &pacing, cancelled: cancelled)
    }

    /// `fetch()`, then `loadNext()` while `canLoadNext` and the plan goes on (`apollo-loadNext`,
    /// and the loading part of `apollo-watch`).
    @inline(never)  // Its own async frame: see ``DrainRunner/run(_:into:pacing:)``.
    func loadPages(
        _ pager: QueryPager<ObservedSource<Source>, ObservedSource<Source>, Info, PaginationOutput<Page, Page>>,
        _ plan: DrainPlan,
        into metrics: inout TaskMetrics,
        pacing: inout Pacing,
        cancelled: borrowing Atomic<Bool>
    ) async -> DrainResult {
        var plan = plan
        var result = DrainResult(ending: .finished, pages: 0, pagesAfterCancel: 0)
        _ = source.failures.takeLast()
        var started = timing ? clock.now() : 0
        await pager.fetch()
        guard let initial = pager.output?.initialPage else {
            // fetch() publishes failures instead of throwing them.
            result.ending = cancelled.load(ordering: .relaxed) ? .cancelled : .failed(source.failures.takeLast() ?? nil)
            return result
        }
        var page = initial
        while await pageEnded(
            page,
            startedAt: started,
            plan: &plan,
            result: &result,
            metrics: &metrics,
            pacing: &pacing,
            cancelled: cancelled
        ) {
            guard pager.canLoadNext else { return result }
            started = timing ? clock.now() : 0
            do {
                try await pager.loadNext()
            } catch {
                return failed(error, result: &result, cancelled: cancelled)
            }
            guard let next = pager.output?.nextPages.last else {
                result.ending = .failed(nil)
                return result
            }
            page = next
        }
        return result
    }

    /// The Apollo-style pager's `loadAll`: no page boundary is visible to the caller, so no
    /// page latency is recorded; the pages are counted from its output.
    @inline(never)  // Its own async frame: see ``DrainRunner/run(_:into:pacing:)``.
    private func runLoadAll(
        _ plan: DrainPlan,
        into metrics: inout TaskMetrics,
        pacing: inout Pacing,
        cancelled: borrowing Atomic<Bool>
    ) async -> DrainResult {
        var result = DrainResult(ending: .finished, pages: 0, pagesAfterCancel: 0)
        // Its pages are published as their responses arrive (H7), by the source.
        let pager = makeQueryPager(plan.request, source: PublishingSource(base: source, progress: progress))
        defer { metrics.retries += pager.counters.retries }
        do {
            try await pager.loadAll()
        } catch {
            _ = failed(error, result: &result, cancelled: cancelled)
        }
        if let output = pager.output {
            for page in output.allPages {
                metrics.recordPage(
                    itemCount: page.items.count,
                    scannedCount: page.scannedCount,
                    scannedBytes: page.scannedBytes,
                    hasNextToken: page.nextToken != nil,
                    latencyNanoseconds: nil
                )
                result.pages += 1
            }
            pacing.pagesSinceCheckpoint += output.pageCount
        }
        // Its source published its pages as they came.
        pacing.markPublished(metrics)
        // Its pages are all in: the phase's end, if seen here, cuts nothing off.
        _ = await checkpoint(&pacing, metrics)
        return result
    }
}

/// A runner's source by reference, for the streaming pager's ``PageStream``: the stream, its
/// iterator and their copies across the drain's suspension points then hold 8 bytes, not the
/// source (over a kilobyte), which every suspended pager would keep in its drain's async
/// frame for its life (the frame sizes are in results/crowd.md).
struct RunnerSource<Base: PageSource>: PageSource where Base.Request == PageRequest, Base.Response == Page {
    let runner: DrainRunner<Base>

    func fetch(_ request: PageRequest) async throws -> Page {
        try await runner.source.fetch(request)
    }

    func fetchWithoutWaiting(_ request: PageRequest) throws -> Page? {
        try runner.source.fetchWithoutWaiting(request)
    }
}
