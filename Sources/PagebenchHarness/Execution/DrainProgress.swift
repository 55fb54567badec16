import PagebenchBase
import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchStore
import Synchronization

/// Live counters of one pager (H7), read by the progress display, the time series and the
/// stage clock while the run goes on. The pager publishes a page that took
/// ``Pacing/publishAtOnceNanoseconds`` or more as soon as it counts it, faster pages with the
/// others at its next checkpoint (every `yieldEveryPages` pages) or its drain's end, and
/// every drain as it ends: at any instant the counters miss at most the pages a pager counted
/// since its last checkpoint, all of them faster than that (at most 63 pages of under 50 µs:
/// 3.2 ms of its pages, 0.3 % of a second's, 1.3 % of a quarter second's), whatever a page
/// takes. With page
/// timing off (`--no-page-timing`, which exists to measure what timing costs) a pager does not
/// know how long a page took, and publishes at checkpoints and drain ends only.
///
/// Publishing is not per page for fast pages: a store per page to the counters cost `loop`
/// drains at limit 10 about a tenth of their pages/s in this VM (results/live-figures.md).
/// Only its own pager writes them, one task at a time (a probed drain's child task runs while
/// its pager waits for it; a staged pager's activations follow one another), so publishing is
/// a relaxed load and store of each counter: no read-modify-write instruction, no lock. A
/// reader may see one counter a batch ahead of another, never a torn value. The object is
/// padded to 384 bytes, a multiple of a cache line (an allocation of its own size class, so
/// two pagers' counters never share a cache line).
final class PagerTaskProgress: Sendable {
    /// Pages completed, as the pager's metrics count them.
    let pages = Atomic<Int>(0)
    /// Items those pages returned.
    let items = Atomic<Int>(0)
    /// Bytes those pages evaluated (S3).
    let scannedBytes = Atomic<Int>(0)
    /// Drains ended as the `drains` column counts them: drained, stopped after K pages, or
    /// abandoned (not failed, not cancelled).
    let finishedDrains = Atomic<Int>(0)
    /// Drains ended in any way: what a drain-count bound counts.
    let endedDrains = Atomic<Int>(0)
    /// What the pager's ended drains counted, for live metrics' counters: published as a
    /// drain ends (at most once a millisecond of drains, and when the pager waits for its
    /// next drain or returns), never per page. A lock taken by its owner and by one reader.
    let counts = Mutex(LiveCounts())
    /// Fills the object (16 bytes of header, five counters, the counts) to 384 bytes.
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// Publishes completed pages; called by the pager that owns these counters only.
    func publish(pages pageCount: Int, items itemCount: Int, scannedBytes bytes: Int) {
        pages.store(pages.load(ordering: .relaxed) &+ pageCount, ordering: .relaxed)
        items.store(items.load(ordering: .relaxed) &+ itemCount, ordering: .relaxed)
        scannedBytes.store(scannedBytes.load(ordering: .relaxed) &+ bytes, ordering: .relaxed)
    }

    /// Publishes one ended drain (`finished`: drained, stopped or abandoned); owner only.
    func publishDrain(finished: Bool) {
        if finished { finishedDrains.store(finishedDrains.load(ordering: .relaxed) &+ 1, ordering: .relaxed) }
        endedDrains.store(endedDrains.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    /// Publishes what the pager's ended drains counted so far; owner only.
    func publish(_ counts: LiveCounts) {
        self.counts.withLock { $0 = counts }
    }

    /// Forgets the warm-up's counts before the measured phase (no pager runs then).
    func resetCounts() {
        counts.withLock { $0 = LiveCounts() }
    }

    /// What these counters hold now.
    var completed: CompletedWork {
        CompletedWork(
            pages: pages.load(ordering: .relaxed),
            items: items.load(ordering: .relaxed),
            scannedBytes: scannedBytes.load(ordering: .relaxed),
            drains: finishedDrains.load(ordering: .relaxed),
            endedDrains: endedDrains.load(ordering: .relaxed)
        )
    }
}

/// The source of an `apollo-loadAll` drain, which shows its caller no page until it has them
/// all (and times none): each page is published to the pager's live counters as its response
/// arrives (H7).
struct PublishingSource<Base: PageSource>: PageSource where Base.Request == PageRequest, Base.Response == Page {
    let base: Base
    let progress: PagerTaskProgress

    func fetch(_ request: PageRequest) async throws -> Page {
        let page = try await base.fetch(request)
        progress.publish(pages: 1, items: page.items.count, scannedBytes: page.scannedBytes)
        return page
    }

    func fetchWithoutWaiting(_ request: PageRequest) throws -> Page? {
        guard let page = try base.fetchWithoutWaiting(request) else { return nil }
        progress.publish(pages: 1, items: page.items.count, scannedBytes: page.scannedBytes)
        return page
    }
}

/// Page latencies of the current second, for the time series (only with `--timeseries`):
/// one histogram per run, which pagers add batches of samples to (every 256 samples, or
/// sooner once a millisecond of pages has passed: ``Pacing/intervalFlushNanoseconds``),
/// never per fast page.
final class IntervalLatencies: Sendable {
    private let recorder = Mutex(PresizedRecorders.empty)

    func add(_ samples: [UInt64]) {
        recorder.withLock { recorder in
            for sample in samples { recorder.record(nanoseconds: sample) }
        }
    }

    /// The latencies since the last call; starts a new interval.
    func take() -> LatencyRecorder {
        recorder.withLock { recorder in
            defer { recorder.reset() }
            return recorder
        }
    }
}

/// A pager's per-page bookkeeping between yield points: owned by one task, no sharing.
struct Pacing: Sendable {
    /// Pages since the drain's last checkpoint (every `yieldEveryPages` pages).
    var pagesSinceCheckpoint = 0
    /// The task metrics' pages, items and evaluated bytes when the drain last published them
    /// to ``PagerTaskProgress`` (its pages since are not published yet).
    var publishedPages = 0
    var publishedItems = 0
    var publishedScannedBytes = 0
    /// When the pager last folded its latencies after a slow page (a reading of the page clock).
    var latenciesFoldedAtTicks: UInt64 = 0
    /// When the pager last published its ``LiveCounts`` (monotonic nanoseconds), and whether
    /// a drain ended since.
    var countsPublishedAt: UInt64 = 0
    var countsUnpublished = false
    /// When this task last considered yielding (monotonic nanoseconds; 0 before the first).
    var yieldedAt: UInt64 = 0
    /// The phase's background tick count at that moment (``YieldPolicy/backgroundTicks``).
    var backgroundTicksSeen = -1
    /// Page latencies not yet handed to ``IntervalLatencies`` (time series only).
    var intervalSamples: [UInt64]?
    /// When they were last handed over (a reading of the page clock; 0 before the first).
    var intervalFlushedAtTicks: UInt64 = 0
    /// The latencies this task measured and has not yet folded into the phase's shared
    /// histograms (a probed drain's child task has its own, folding into its pager's sink).
    var latencies: LatencyBuffer
    /// A probed drain cancelled by page count (drains too short for a timer): after this
    /// many pages the drain cancels its own task, once.
    var cancelAfterPages: Int?
    /// When the drain cancelled itself (monotonic nanoseconds; 0 if it did not).
    var selfCancelledAt: UInt64 = 0
    /// How long this task has waited, yielded at checkpoints, for its turn to run again
    /// (monotonic nanoseconds, summed): time in which no page was being asked for.
    var parkedNanoseconds: UInt64 = 0

    init(timeSeries: Bool, latencySink: LatencySink?) {
        intervalSamples = timeSeries ? [] : nil
        latencies = LatencyBuffer(sink: latencySink)
    }

    /// A page that took this long or longer is published at once, with the pages before it
    /// (H7): 50 µs. Faster pages wait for the drain's next checkpoint, every 64 pages by
    /// default: at most 63 pages of under 50 µs, 3.2 ms of pages, 1.3 % of the quarter second
    /// the terminal's progress line covers.
    static var publishAtOnceNanoseconds: UInt64 { 50_000 }

    /// How old a slow page's latency may be before its pager folds the latencies it holds
    /// (``DrainRunner/publishSlowPage(_:endedAt:_:)``): 100 ms, under a tenth of a scrape interval.
    static var latencyFoldNanoseconds: UInt64 { 100_000_000 }

    /// The least time between two publications of a pager's ``LiveCounts`` at its drains'
    /// ends: 1 ms, so that drains of a few pages do not each copy them under a lock.
    static var countsPublishNanoseconds: UInt64 { 1_000_000 }

    /// The most samples a pager holds before handing them to ``IntervalLatencies``.
    static var intervalFlushSamples: Int { 256 }
    /// The longest a pager holds a page latency before handing it over, in nanoseconds of
    /// the page clock: a time-series row's percentiles miss at most the last millisecond of
    /// pages before its end (one page per pager, for pages of a millisecond or more), and
    /// fast pages still take the lock only once per 256.
    static var intervalFlushNanoseconds: UInt64 { 1_000_000 }

    /// Takes `metrics`' pages, items and evaluated bytes as published (its pages so far are
    /// not this drain's to publish, or were published already).
    mutating func markPublished(_ metrics: borrowing TaskMetrics) {
        publishedPages = metrics.pages
        publishedItems = metrics.items
        publishedScannedBytes = metrics.scannedBytes
    }

    /// Whether the samples held should be handed over now, the last page having ended at
    /// `ticks` of `clock`.
    func intervalSamplesAreDue(at ticks: UInt64, clock: MonotonicTime.PageClock) -> Bool {
        guard let intervalSamples, !intervalSamples.isEmpty else { return false }
        return intervalSamples.count >= Self.intervalFlushSamples
            || clock.nanoseconds(from: intervalFlushedAtTicks, to: ticks) >= Self.intervalFlushNanoseconds
    }
}

/// When a CPU-bound drain lets the phase's other tasks (timers, the memory sampler, progress,
/// the deadline) run: `Task.yield()` at its checkpoints, at most once per interval.
///
/// With at least as many pagers as cores every pool thread is paging, so a drain yields every
/// millisecond: often enough for the sampler (every 10 ms) and timers, rarely enough that it
/// is not parked and resumed every few dozen pages (yielding every 64 pages, about 20 µs,
/// cost a fifth of a limit-10 page in context switches; results/harness-overhead.md).
///
/// With fewer pagers than cores a pool thread is free for that work, and a yield only risks
/// resuming the pager on another thread: the drain yields only when the phase's background
/// work has not run for an interval (``backgroundTicks`` did not advance), which happens only
/// when something else shares the process's pool (tests run phases side by side).
///
/// A drain resumed from its yield has a turn before it yields again (``turnNanoseconds``):
/// the interval runs from its yield, and a drain that waited longer than the interval for
/// its turn (with more pagers than the pool has threads, every drain does: 10,000 pagers on
/// 2 cores each wait for the others' turns) would otherwise yield again at its next
/// checkpoint, every 64 pages. A resumption brings the pager's frames and state back from
/// memory, a few microseconds, and a crowd of pagers paging 64 pages (about 13 µs) a turn
/// lost a quarter to a third of its pages/s against 64 pagers (issue 38, results/crowd.md).
/// A turn of 100 µs amortizes it; the price is a longer round: a crowd's pagers take their
/// turns in pagers × 100 µs / cores (half a second at 10,000 pagers on 2 cores, a drain that
/// waits for its next turn waits that long), and the phase's other tasks wait as long for
/// theirs (the pagers read the phase's end themselves, at every checkpoint).
struct YieldPolicy: Sendable {
    /// The least time between two looks at whether to yield, in nanoseconds.
    let intervalNanoseconds: UInt64
    /// A count the phase's background work advances (the memory sampler's samples); nil to
    /// yield every interval.
    let backgroundTicks: (@Sendable () -> Int)?
    /// The least time a drain runs after it resumed from a yield before it yields again (at
    /// most the interval); 0: the interval alone decides.
    var turnNanoseconds: UInt64 = 0

    /// A phase's turn (``turnNanoseconds``).
    static var phaseTurnNanoseconds: UInt64 { 100_000 }

    static var busyPoolIntervalNanoseconds: UInt64 { 1_000_000 }
    /// Two sampling intervals of the memory sampler (10 ms by default).
    static var sparePoolIntervalNanoseconds: UInt64 { 20_000_000 }

    /// Yield every millisecond: a pool where every thread pages, or one shared with work that
    /// is not the phase's (tests run phases side by side; a library caller has its own tasks),
    /// whose tasks wait on the pagers' yields. Without a turn: a staged pool's stage clock
    /// admits and removes its pagers on time, whatever their count.
    static let everyMillisecond = YieldPolicy(intervalNanoseconds: busyPoolIntervalNanoseconds, backgroundTicks: nil)

    /// The policy of a phase with `pagers` pagers in this process on `cores` cores.
    /// `backgroundTicks` is nil when the process's pool is not the phase's alone
    /// (``PhaseRunner/Options/dedicatedPool``): then a spare core may be someone else's.
    static func forPhase(pagers: Int, cores: Int, backgroundTicks: (@Sendable () -> Int)?) -> YieldPolicy {
        guard pagers < cores, let backgroundTicks else {
            var policy = everyMillisecond
            policy.turnNanoseconds = phaseTurnNanoseconds
            return policy
        }
        return YieldPolicy(intervalNanoseconds: sparePoolIntervalNanoseconds, backgroundTicks: backgroundTicks)
    }

    /// A drain that yielded resumed at `resumed`: its next yield comes an interval after its
    /// yield, and a turn after `resumed` at the earliest (kept in ``Pacing/yieldedAt`` as
    /// the instant an interval before the turn's end).
    func resumed(at resumed: UInt64, _ pacing: inout Pacing) {
        let turnStart = resumed &- min(resumed, intervalNanoseconds &- min(turnNanoseconds, intervalNanoseconds))
        pacing.yieldedAt = max(pacing.yieldedAt, turnStart)
    }

    /// Whether a drain at a checkpoint at monotonic time `now` yields; updates its pacing.
    func shouldYield(now: UInt64, _ pacing: inout Pacing) -> Bool {
        guard now &- pacing.yieldedAt >= intervalNanoseconds else { return false }
        pacing.yieldedAt = now
        guard let backgroundTicks else { return true }
        let ticks = backgroundTicks()
        defer { pacing.backgroundTicksSeen = ticks }
        return ticks == pacing.backgroundTicksSeen
    }
}

/// What a drain hands to the shared time-series latencies, and where it yields.
extension DrainRunner {
    /// Publishes the pages counted since the last publication (H7), lets other tasks
    /// (timers, sampler, progress) run when the yield policy says so, and reads whether the
    /// phase has ended (its deadline passed or an interruption was requested, after the
    /// yield too: a pager resumed late sees it at once); called every `yieldEveryPages` pages.
    ///
    /// - Returns: true when the phase's end cancels the drain in flight
    ///   (``PhaseControl/EndVerdict/cancel``).
    @inline(never)  // Its own async frame, once per `yieldEveryPages` pages (issue 38).
    func checkpoint(_ pacing: inout Pacing, _ metrics: borrowing TaskMetrics) async -> Bool {
        pacing.pagesSinceCheckpoint = 0
        publishPages(pages: metrics.pages, items: metrics.items, scannedBytes: metrics.scannedBytes, &pacing)
        var now = MonotonicTime.nanoseconds()
        if yieldPolicy.shouldYield(now: now, &pacing) {
            await Task.yield()
            let resumed = MonotonicTime.nanoseconds()
            pacing.parkedNanoseconds &+= MonotonicTime.elapsed(from: now, to: resumed)
            yieldPolicy.resumed(at: resumed, &pacing)
            now = resumed
        }
        return phase?.endVerdict(now: now) == .cancel
    }

    /// Publishes to ``PagerTaskProgress`` what the task's metrics counted (their `pages`,
    /// `items` and `scannedBytes` now) since the drain's last publication.
    @inline(never)
    func publishPages(pages: Int, items: Int, scannedBytes: Int, _ pacing: inout Pacing) {
        guard pages != pacing.publishedPages else { return }
        progress.publish(
            pages: pages - pacing.publishedPages,
            items: items - pacing.publishedItems,
            scannedBytes: scannedBytes - pacing.publishedScannedBytes
        )
        pacing.publishedPages = pages
        pacing.publishedItems = items
        pacing.publishedScannedBytes = scannedBytes
    }

    /// Publishes a slow page (``Pacing/publishAtOnceNanoseconds`` or more) at once, and folds
    /// the latencies held into the phase's histograms when the last fold is
    /// ``Pacing/latencyFoldNanoseconds`` old: live metrics' page latency then lags slow pages
    /// by at most that, not by a buffer's 128 pages (12.8 s at 100 ms a page).
    @inline(never)
    func publishSlowPage(_ metrics: borrowing TaskMetrics, endedAt ticks: UInt64, _ pacing: inout Pacing) {
        publishPages(pages: metrics.pages, items: metrics.items, scannedBytes: metrics.scannedBytes, &pacing)
        // (A drain run without shared histograms, as tests run one, keeps its latencies.)
        if pacing.latencies.sink != nil,
            clock.nanoseconds(from: pacing.latenciesFoldedAtTicks, to: ticks) >= Pacing.latencyFoldNanoseconds
        {
            pacing.latencies.flush()
            pacing.latenciesFoldedAtTicks = ticks
        }
    }

    /// Keeps a timed page's latency for the time series, handing the samples held to
    /// ``IntervalLatencies`` when they are due (``Pacing/intervalSamplesAreDue(at:clock:)``).
    /// Only with `--timeseries`.
    @inline(never)
    func keepIntervalSample(_ latency: UInt64, endedAt ticks: UInt64, _ pacing: inout Pacing) {
        pacing.intervalSamples?.append(latency)
        if pacing.intervalSamplesAreDue(at: ticks, clock: clock) {
            flushIntervalSamples(&pacing)
            pacing.intervalFlushedAtTicks = ticks
        }
    }

    /// Hands the page latencies held to ``IntervalLatencies`` (when a drain or a pager ends).
    func flushIntervalSamples(_ pacing: inout Pacing) {
        guard let samples = pacing.intervalSamples, !samples.isEmpty, let intervals else { return }
        intervals.add(samples)
        pacing.intervalSamples!.removeAll(keepingCapacity: true)
    }
}
