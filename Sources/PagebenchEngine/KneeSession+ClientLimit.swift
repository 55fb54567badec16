import PagebenchBase
import PagebenchMetrics

extension KneeSession {
    /// What limited a knee step on pagebench's side rather than the API's (issue 35): then the
    /// step measured the load generator, and the knee it gives is not the API's.
    public enum ClientLimit: Sendable, Equatable, CustomStringConvertible {
        /// Every pager was busy (missed starts) and the rate started sits at the pool's capacity
        /// by Little's law (pagers ÷ median drain time) while page latency stayed flat: the
        /// API kept up, the pool did not. `needed` pagers would offer the rate.
        case pagerPool(pagers: Int, missedStarts: Int, capacity: Double, medianDrainSeconds: Double, needed: Int)
        /// The client's own CPU was saturated (busy cores of `cores`).
        case clientCPU(busyCores: Double, cores: Int)

        public var description: String {
            switch self {
            case .pagerPool(let pagers, let missed, let capacity, let drain, let needed):
                "limited by pagebench's pager pool, not the API: every pager was busy (\(missed) missed starts), "
                    + "\(pagers) pagers ÷ \(NumberText.nanoseconds(UInt64(drain * 1e9))) median drain = \(NumberText.compact(capacity)) drains/s "
                    + "(Little's law), page latency flat; about \(needed) pagers (--pagers \(needed)) would offer this rate"
            case .clientCPU(let busy, let cores):
                "limited by pagebench's own CPU, not the API: \(NumberText.fixed(busy, 1)) of \(cores) cores busy; "
                    + "run the client on more cores or on another machine (--workers)"
            }
        }
    }

    /// The client-side limit of the step measured in `row`, if one explains it; `first` is the
    /// search's first step, against whose page latency "flat" is judged (at most 1.5 times it).
    public static func clientLimit(of row: ResultRow, first: ResultRow?) -> ClientLimit? {
        if row.durationSeconds > 0, row.cores > 0 {
            let busy = (row.cpuUserSeconds + row.cpuSystemSeconds) / row.durationSeconds
            if busy >= 0.9 * Double(row.cores) { return .clientCPU(busyCores: busy, cores: row.cores) }
        }
        guard let rate = row.plannedDrainsPerSecond, rate > 0, let started = row.startedDrainsPerSecond,
            let missed = row.missedStarts, let drain = row.drainLatency, drain.p50Nanoseconds > 0, row.concurrency > 0
        else { return nil }
        let duration = row.targetDurationSeconds ?? row.durationSeconds
        let startedCount = started * duration
        // Every slot busy: a share of the starts found no free pager.
        guard missed > 0, Double(missed) >= 0.01 * max(startedCount, 1) else { return nil }
        let medianDrainSeconds = Double(drain.p50Nanoseconds) / 1e9
        let capacity = Double(row.concurrency) / medianDrainSeconds
        guard started >= 0.8 * capacity else { return nil }
        if let page = row.pageLatency?.p50Nanoseconds, let before = first?.pageLatency?.p50Nanoseconds, before > 0,
            Double(page) > 1.5 * Double(before)
        {
            return nil  // the API slowed down: its own limit, not only the pool's
        }
        let needed = Int((rate * medianDrainSeconds * 1.25).rounded(.up))
        return .pagerPool(
            pagers: row.concurrency, missedStarts: missed, capacity: capacity, medianDrainSeconds: medianDrainSeconds,
            needed: max(needed, row.concurrency + 1))
    }
}
