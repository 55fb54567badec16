import PagebenchBase
import PagebenchMetrics

extension KneeSession {
    /// What limited a knee step on pagebench's side rather than the API's (issue 35): then the
    /// step measured the load generator, and the knee it gives is not the API's.
    package enum ClientLimit: Sendable, Equatable, CustomStringConvertible {
        /// Every pager was busy (missed starts) and the rate started sits at the pool's capacity
        /// by Little's law (pagers ÷ median drain time) while page latency stayed flat: the
        /// API kept up, the pool did not. `needed` pagers would offer the rate.
        case pagerPool(pagers: Int, missedStarts: Int, capacity: Double, medianDrainSeconds: Double, needed: Int)
        /// The client's own CPU was saturated (busy cores of `cores`).
        case clientCPU(busyCores: Double, cores: Int)

        package var description: String {
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

    /// The thresholds of ``clientLimit(of:first:)``, calibrated against steps whose limit was
    /// known by construction (results/knee-client-limit.md: a pool of 4 pagers against an API
    /// without a limit of its own, 64 pagers against it, 64 against an API of one worker, and
    /// in-process steps beyond the client's CPU; release build, load average 24–33 on 2 cores).
    enum ClientLimitThresholds {
        /// Missed starts, as a share of the drains started, that say every pager was busy. The
        /// seven pool-limited steps (started below the offered rate) missed 41–99 % of their
        /// starts, the grid's steps below the pool's capacity 0–4.4 % (a knee step at 0.26 of the
        /// pool's capacity: 23 %, which the occupancy rules out); 1 % before the calibration.
        static let missedStartsShare = 0.10
        /// The started rate ÷ the pool's capacity by Little's law (pagers ÷ median drain time).
        /// The pool-limited steps reached 0.61–0.93 (not 1: the median drain understates the
        /// mean when drains have a tail, and a pager takes time between drains on a loaded
        /// machine), the grid's steps below its capacity 0.02–0.44; 0.8 before, which missed 5 of
        /// the 7 pool-limited steps. Knee steps that achieved their rate with 23–34 % of their
        /// starts missed (0.52–0.67) are called pool-limited now: those drains waited for a pager.
        static let poolOccupancy = 0.5
        /// Page p50 ÷ the first step's at most this: the API kept up. Steps the API did not
        /// limit read 0.80–1.07 in a release build and up to 1.54 in a debug one (whose client
        /// CPU per page is in every page on a loaded machine); steps of the saturated
        /// one-worker API 2.01–6.66, and 3.06 or more where they also missed starts with the pool
        /// full. 1.5 before, which a debug build's pool-limited step crossed.
        static let flatPageLatency = 2.0
        /// Busy cores ÷ cores at or above this: the client's CPU is saturated. Kept, but on a
        /// shared machine it sees only a client that has its cores to itself: in-process steps
        /// that the client's CPU limited (99.9 % missed starts) used 0.17–0.23 of the 2 cores
        /// at load average 32, the rest went to other processes.
        static let busyCoresShare = 0.9
    }

    /// The client-side limit of the step measured in `row`, if one explains it; `first` is the
    /// search's first step, against whose page latency "flat" is judged (at most twice it,
    /// ``ClientLimitThresholds``).
    package static func clientLimit(of row: ResultRow, first: ResultRow?) -> ClientLimit? {
        if row.durationSeconds > 0, row.cores > 0 {
            let busy = (row.cpuUserSeconds + row.cpuSystemSeconds) / row.durationSeconds
            if busy >= ClientLimitThresholds.busyCoresShare * Double(row.cores) {
                return .clientCPU(busyCores: busy, cores: row.cores)
            }
        }
        guard let rate = row.plannedDrainsPerSecond, rate > 0, let started = row.startedDrainsPerSecond,
            let missed = row.missedStarts, let drain = row.drainLatency, drain.p50Nanoseconds > 0, row.concurrency > 0
        else { return nil }
        let duration = row.targetDurationSeconds ?? row.durationSeconds
        let startedCount = started * duration
        // Every slot busy: a share of the starts found no free pager.
        guard missed > 0, Double(missed) >= ClientLimitThresholds.missedStartsShare * max(startedCount, 1) else {
            return nil
        }
        let medianDrainSeconds = Double(drain.p50Nanoseconds) / 1e9
        let capacity = Double(row.concurrency) / medianDrainSeconds
        guard started >= ClientLimitThresholds.poolOccupancy * capacity else { return nil }
        if let page = row.pageLatency?.p50Nanoseconds, let before = first?.pageLatency?.p50Nanoseconds, before > 0,
            Double(page) > ClientLimitThresholds.flatPageLatency * Double(before)
        {
            return nil  // the API slowed down: its own limit, not only the pool's
        }
        let needed = Int((rate * medianDrainSeconds * 1.25).rounded(.up))
        return .pagerPool(
            pagers: row.concurrency,
            missedStarts: missed,
            capacity: capacity,
            medianDrainSeconds: medianDrainSeconds,
            needed: max(needed, row.concurrency + 1)
        )
    }
}
