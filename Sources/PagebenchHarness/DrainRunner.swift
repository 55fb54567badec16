import PagebenchBase
import PagebenchMetrics
import PagebenchPager
import PagebenchStore
import Synchronization

/// How one drain ended and what it cost.
struct DrainResult: Sendable {
    enum Ending: Sendable, Equatable {
        /// Drained to the last page, stopped after K pages, or abandoned.
        case finished
        /// A store or pager error ended it.
        case failed(ErrorKind)
        /// Its task was cancelled (probe or final cancel-everything).
        case cancelled
    }

    var ending: Ending
    var pages: Int
    /// Pages that arrived after cancellation had been requested (H2 wasted work).
    var pagesAfterCancel: Int
}

/// Runs single drains with one pager kind against a source, recording every page into the
/// calling task's ``TaskMetrics``: the per-page path is plain arithmetic, two monotonic
/// clock reads (when timed) and a histogram record, with no shared lock, actor or atomic.
struct DrainRunner<Source: PageSource>: Sendable where Source.Request == PageRequest, Source.Response == Page {
    let source: ObservedSource<Source>
    let kind: PagerKind
    let retryPolicy: RetryPolicy
    let timing: Bool
    let yieldEveryPages: Int
    let progress: PagerTaskProgress
    /// Where time-series latencies go; nil without `--timeseries`.
    let intervals: IntervalLatencies?
    /// Counters of this worker's streaming drains (retries are read from them).
    let streamCounters = PagerCounters()

    typealias Info = CursorBasedPagination.Forward

    func run(_ plan: DrainPlan, into metrics: inout TaskMetrics, pacing: inout Pacing) async -> DrainResult {
        switch kind {
        case .loop: return await runLoop(plan, into: &metrics, pacing: &pacing)
        case .streaming: return await runStreaming(plan, into: &metrics, pacing: &pacing)
        case .apolloLoadNext: return await runLoadNext(plan, into: &metrics, pacing: &pacing)
        case .apolloLoadAll: return await runLoadAll(plan, into: &metrics, pacing: &pacing)
        case .apolloWatch: return await runWatch(plan, into: &metrics, pacing: &pacing)
        }
    }

    // MARK: Per page

    /// Records one page; returns whether the drain goes on to the next page.
    @inline(__always)
    func account(
        _ page: Page, startedAt: UInt64, plan: inout DrainPlan, result: inout DrainResult,
        metrics: inout TaskMetrics, pacing: inout Pacing
    ) -> Bool {
        var latency: UInt64?
        if timing {
            let elapsed = MonotonicTime.elapsed(from: startedAt, to: MonotonicTime.nanoseconds())
            pacing.intervalSamples?.append(elapsed)
            if pacing.latencyLog != nil { pacing.latencyLog!.append(elapsed) } else { latency = elapsed }
        }
        metrics.recordPage(
            itemCount: page.items.count, scannedCount: page.scannedCount, scannedBytes: page.scannedBytes,
            hasNextToken: page.nextToken != nil, latencyNanoseconds: latency)
        result.pages += 1
        pacing.pagesSinceCheckpoint += 1
        if Task.isCancelled {
            result.pagesAfterCancel += 1
            result.ending = .cancelled
            return false
        }
        guard page.nextToken != nil else { return false }
        if let maxPages = plan.maxPages, result.pages >= maxPages { return false }
        guard !plan.abandonsAfterPage() else { return false }
        if let pages = pacing.cancelAfterPages, result.pages >= pages {
            // The cancellation probe of a drain shorter than a timer tick: the request for the
            // next page starts cancelled, and the latency runs from here.
            pacing.cancelAfterPages = nil
            pacing.selfCancelledAt = MonotonicTime.nanoseconds()
            withUnsafeCurrentTask { $0?.cancel() }
        }
        return true
    }

    func ending(for error: any Error) -> DrainResult.Ending {
        if error is CancellationError || Task.isCancelled { return .cancelled }
        return .failed(ErrorKind(classifying: error))
    }

    // MARK: Pager kinds

    /// The floor: a bare loop calling the source, with the retry policy applied by hand.
    private func runLoop(_ plan: DrainPlan, into metrics: inout TaskMetrics, pacing: inout Pacing) async -> DrainResult {
        var plan = plan
        var result = DrainResult(ending: .finished, pages: 0, pagesAfterCancel: 0)
        var request = plan.request
        var backoffRandom = SplitMix64(seed: retryPolicy.seed, stream: 0x6C6F_6F70, index: UInt64(plan.index))
        // A local copy, made once: read through `self` inside the loop, the source (the
        // synthetic store's references) was copied and destroyed around every page.
        let source = self.source
        while true {
            let started = timing ? MonotonicTime.nanoseconds() : 0
            let page: Page
            do {
                // The first attempt inline, the retries in a separate function: an
                // in-process store serves it without suspending (StoreSource), so there is
                // no async frame or executor check per page.
                page = try await source.fetch(request)
            } catch {
                do {
                    page = try await retryAfterFailure(error, request, random: &backoffRandom, metrics: &metrics)
                } catch {
                    result.ending = ending(for: error)
                    return result
                }
            }
            guard account(page, startedAt: started, plan: &plan, result: &result, metrics: &metrics, pacing: &pacing)
            else { return result }
            if pacing.pagesSinceCheckpoint >= yieldEveryPages { await checkpoint(&pacing) }
            request.token = page.nextToken
        }
    }

    /// Retries a request whose first attempt (made inline by the caller) failed with
    /// `error`, as the retry policy allows; rethrows the last error when it gives up.
    private func retryAfterFailure(
        _ error: any Error, _ request: PageRequest, random: inout SplitMix64, metrics: inout TaskMetrics
    ) async throws -> Page {
        try await retryPolicy.retry(after: error, random: &random) {
            metrics.retries += 1
        } _: {
            try await source.fetch(request)
        }
    }

    /// The streaming pager: one `next()` per page.
    private func runStreaming(_ plan: DrainPlan, into metrics: inout TaskMetrics, pacing: inout Pacing) async -> DrainResult {
        var plan = plan
        var result = DrainResult(ending: .finished, pages: 0, pagesAfterCancel: 0)
        let first = plan.request
        let retriesBefore = streamCounters.retries
        defer { metrics.retries += streamCounters.retries - retriesBefore }
        let stream = PageStream<ObservedSource<Source>, Info>(
            source: source, initialRequest: first, retryPolicy: retryPolicy, counters: streamCounters,
            extractPageInfo: { Info(nextToken: $0.nextToken) },
            pageResolver: { info, _ in info.endCursor.map { first.with(token: $0) } })
        var iterator = stream.makeAsyncIterator()
        while true {
            let started = timing ? MonotonicTime.nanoseconds() : 0
            let page: Page
            do {
                // On this task's isolation: the inlined `next`, no async call per page.
                guard let next = try await iterator.next(isolation: #isolation) else { return result }
                page = next
            } catch {
                result.ending = ending(for: error)
                return result
            }
            guard account(page, startedAt: started, plan: &plan, result: &result, metrics: &metrics, pacing: &pacing)
            else { return result }
            if pacing.pagesSinceCheckpoint >= yieldEveryPages { await checkpoint(&pacing) }
        }
    }

    func makeQueryPager(_ first: PageRequest)
        -> QueryPager<ObservedSource<Source>, ObservedSource<Source>, Info, PaginationOutput<Page, Page>>
    {
        QueryPager(
            source: source, initialRequest: first, retryPolicy: retryPolicy,
            extractPageInfo: { Info(nextToken: $0.nextToken) },
            pageResolver: { info, _ in info.endCursor.map { first.with(token: $0) } })
    }

    /// The Apollo-style pager page by page: `fetch()`, then `loadNext()` while `canLoadNext`.
    private func runLoadNext(_ plan: DrainPlan, into metrics: inout TaskMetrics, pacing: inout Pacing) async -> DrainResult {
        let pager = makeQueryPager(plan.request)
        defer { metrics.retries += pager.counters.retries }
        return await loadPages(pager, plan, into: &metrics, pacing: &pacing)
    }

    /// `fetch()`, then `loadNext()` while `canLoadNext` and the plan goes on (`apollo-loadNext`,
    /// and the loading part of `apollo-watch`).
    func loadPages(
        _ pager: QueryPager<ObservedSource<Source>, ObservedSource<Source>, Info, PaginationOutput<Page, Page>>,
        _ plan: DrainPlan, into metrics: inout TaskMetrics, pacing: inout Pacing
    ) async -> DrainResult {
        var plan = plan
        var result = DrainResult(ending: .finished, pages: 0, pagesAfterCancel: 0)
        _ = source.failures.takeLast()
        var started = timing ? MonotonicTime.nanoseconds() : 0
        await pager.fetch()
        guard let initial = pager.output?.initialPage else {
            // fetch() publishes failures instead of throwing them.
            result.ending = Task.isCancelled ? .cancelled : .failed(source.failures.takeLast() ?? .other)
            return result
        }
        var page = initial
        while account(page, startedAt: started, plan: &plan, result: &result, metrics: &metrics, pacing: &pacing) {
            if pacing.pagesSinceCheckpoint >= yieldEveryPages { await checkpoint(&pacing) }
            guard pager.canLoadNext else { return result }
            started = timing ? MonotonicTime.nanoseconds() : 0
            do {
                try await pager.loadNext()
            } catch {
                result.ending = ending(for: error)
                return result
            }
            guard let next = pager.output?.nextPages.last else {
                result.ending = .failed(.other)
                return result
            }
            page = next
        }
        return result
    }

    /// The Apollo-style pager's `loadAll`: no page boundary is visible to the caller, so no
    /// page latency is recorded; the pages are counted from its output.
    private func runLoadAll(_ plan: DrainPlan, into metrics: inout TaskMetrics, pacing: inout Pacing) async -> DrainResult {
        var result = DrainResult(ending: .finished, pages: 0, pagesAfterCancel: 0)
        let pager = makeQueryPager(plan.request)
        defer { metrics.retries += pager.counters.retries }
        do {
            try await pager.loadAll()
        } catch {
            result.ending = ending(for: error)
        }
        if let output = pager.output {
            for page in output.allPages {
                metrics.recordPage(
                    itemCount: page.items.count, scannedCount: page.scannedCount, scannedBytes: page.scannedBytes,
                    hasNextToken: page.nextToken != nil, latencyNanoseconds: nil)
                result.pages += 1
            }
            pacing.pagesSinceCheckpoint += output.pageCount
        }
        await checkpoint(&pacing)
        return result
    }
}
