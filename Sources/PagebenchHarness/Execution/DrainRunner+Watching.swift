import PagebenchBase
import PagebenchMetrics
import PagebenchPager
import PagebenchStore
import Synchronization

extension DrainRunner {
    /// `apollo-watch` (P16): loads pages as `apollo-loadNext` does, then watches them through
    /// the store's change feed for the plan's watch time, recording each publication's watch
    /// latency (write committed → new output published) into the phase's watch latency histogram. The
    /// watch runs in a child task of this drain's task; the timer ends it, and so does the
    /// drain's cancellation. The re-fetches are not counted as pages.
    @inline(never)  // Its own async frame: see ``DrainRunner/run(_:into:pacing:)``.
    func runWatch(
        _ plan: DrainPlan,
        into metrics: inout TaskMetrics,
        pacing: inout Pacing,
        cancelled: borrowing Atomic<Bool>
    ) async -> DrainResult {
        guard let store = source.writesStore else {
            return DrainResult(ending: .failed(.invalidRequest), pages: 0, pagesAfterCancel: 0)
        }
        let pager = makeQueryPager(plan.request)
        defer { metrics.retries += pager.counters.retries }
        var result = await loadPages(pager, plan, into: &metrics, pacing: &pacing, cancelled: cancelled)
        guard result.ending == .finished, !cancelled.load(ordering: .relaxed) else { return result }
        let feed = StoreChangeFeed(store: store)
        let watch = pager.watch(feed, touches: feed.touches)
        let watchNanoseconds = plan.watchNanoseconds
        let latencies = await withTaskGroup(of: [UInt64]?.self) { group in
            group.addTask {
                var latencies: [UInt64] = []
                for await refresh in watch {
                    if let trigger = refresh.trigger {
                        latencies.append(
                            MonotonicTime.elapsed(from: trigger.committedAtNanoseconds, to: MonotonicTime.nanoseconds())
                        )
                    }
                }
                return latencies
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: watchNanoseconds)
                return nil
            }
            var collected: [UInt64] = []
            while let child = await group.next() {
                if let child { collected = child } else { group.cancelAll() }
            }
            return collected
        }
        // Watching drains report a watch latency histogram (P16), empty if no write landed.
        if metrics.watchLatency == nil { metrics.watchLatency = LatencyRecorder() }
        for latency in latencies { pacing.latencies.record(.watch, nanoseconds: latency) }
        if Task.isCancelled { result.ending = .cancelled }
        return result
    }
}
