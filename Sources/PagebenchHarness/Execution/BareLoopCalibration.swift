import PagebenchBase
import PagebenchStore

/// A short run of the bare store loop over a phase's own drain plans, just before the phase
/// is measured: `store.evaluatePage` and the next token, nothing else, the loop of
/// `Benchmarks/store-driver`. Its pages/s divided by the phase's pages/s is
/// `harness_overhead_ratio`: how much of an in-process figure is pagebench rather than the
/// store (1 = none; 1.25 = the harness and pager cost a fifth of the measured time).
///
/// It runs as many loops at once as the phase runs pagers, in a task group, so the ratio
/// compares like with like at every concurrency. It reads the store only through
/// `evaluatePage`, which touches no counter: the measured phase's deterministic figures are
/// the same with or without it.
///
/// The ratio measures the harness only where the bare loop does what the phase does but the
/// harness (``measuresHarness(store:workload:)``): a closed loop over a store that answers at
/// once. A store with service time (S20), injected failures (S21) or writes (S22), or an open
/// loop (whose arrival rate, not the harness, sets pages/s), gets no calibration and an
/// empty `harness_overhead_ratio` (H7).
struct BareLoopCalibration: Sendable {
    let store: SyntheticStore
    let planner: DrainPlanner
    /// How long the loops run, in nanoseconds of wall-clock time.
    let durationNanoseconds: UInt64

    /// Whether the bare loop is the floor of a phase of `workload` on `store`: the store
    /// answers at once, nothing injected (S20, S21), no writes (S22), and the pagers drain
    /// as fast as they can (closed loop). Elsewhere the ratio would compare the bare loop with
    /// service times, retries or an arrival rate, not with the harness.
    static func measuresHarness(store: SyntheticStore, workload: Workload) -> Bool {
        store.servesWithoutWaiting && workload.load == .closed
    }

    /// How long the calibration before each measured phase runs: 50 ms.
    static var defaultDurationNanoseconds: UInt64 { 50_000_000 }

    /// How often a loop reads the clock to see whether its time is up, in pages.
    static var pagesPerClockRead: Int { 64 }

    /// Pages per second of `pagers` bare loops run at once for ``durationNanoseconds``, or nil
    /// when they fetched no page (cancelled, or the store rejected the first request).
    /// Loop `k` drains plans `k`, `k + pagers`, ... of the measured phase, honouring their
    /// page limits and abandonment; it does not cancel (H2 probes are the harness's work).
    func pagesPerSecond(pagers: Int) async -> Double? {
        let start = MonotonicTime.nanoseconds()
        let deadline = start + durationNanoseconds
        let pages = await withTaskGroup(of: Int.self) { group in
            for loop in 0..<max(1, pagers) {
                group.addTask { drain(first: loop, stride: max(1, pagers), until: deadline) }
            }
            return await group.reduce(0, +)
        }
        let elapsed = MonotonicTime.elapsed(from: start, to: MonotonicTime.nanoseconds())
        guard pages > 0, elapsed > 0 else { return nil }
        return Double(pages) / (Double(elapsed) / 1e9)
    }

    /// One loop: whole drains, one after another, until `deadline` or cancellation; returns
    /// the pages it fetched. Synchronous on purpose: nothing between two pages but the
    /// store, a token copy and a counter (and one clock read per ``pagesPerClockRead``).
    /// Each loop fetches at least ``pagesPerClockRead`` pages, also one that starts after the
    /// deadline because every thread was busy: the calibration always has a figure, and the
    /// late pages extend the measured time with them.
    private func drain(first: Int, stride: Int, until deadline: UInt64) -> Int {
        var pages = 0
        var index = first
        var sinceClock = 0
        // A loop that starts after the deadline (a crowd of loops on few cores) pages nothing:
        // 100,000 loops of at least 64 pages each would otherwise page for seconds past it.
        // The first loop always pages, so that a starved pool still measures something.
        guard first == 0 || MonotonicTime.nanoseconds() < deadline else { return 0 }
        while !Task.isCancelled {
            var plan = planner.plan(index)
            var request = plan.request
            var drainPages = 0
            while true {
                guard let page = try? store.evaluatePage(request) else { return pages }
                pages += 1
                drainPages += 1
                sinceClock += 1
                if sinceClock >= Self.pagesPerClockRead {
                    sinceClock = 0
                    if MonotonicTime.nanoseconds() >= deadline { return pages }
                }
                guard let token = page.nextToken else { break }
                if let maxPages = plan.maxPages, drainPages >= maxPages { break }
                if plan.abandonsAfterPage() { break }
                request.token = token
            }
            index += stride
            if pages >= Self.pagesPerClockRead, MonotonicTime.nanoseconds() >= deadline { return pages }
        }
        return pages
    }
}
