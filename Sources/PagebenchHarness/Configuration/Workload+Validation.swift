import PagebenchBase
import PagebenchPage
import PagebenchStore

extension Workload {
    /// The most concurrent pagers (or open-loop slots) a run may ask for.
    public static let maximumConcurrency = 100_000
    /// The most partitions a Zipf partition choice supports (its table holds one entry each).
    public static let maximumZipfPartitions = 1_000_000
    /// The open-loop arrival rates a fixed-rate workload takes, in drains per second: from one
    /// drain per 1,000 s (a slower schedule's instants, summed over a phase's drains, would
    /// pass what a clock holds) to 10 million.
    public static let openLoopRates: ClosedRange<Double> = 0.001...10_000_000

    /// Checks every field against the store it will run on and throws a ``HarnessError``
    /// (`invalidScenario`) naming the first bad field (`workload.limit`), its value and what
    /// is accepted.
    public func validate(store: StoreConfiguration) throws(HarnessError) {
        func fail(_ field: String, _ problem: String) -> HarnessError { .invalidField("workload." + field, problem) }

        guard !concurrency.isEmpty else { throw fail("concurrency", "give at least one value, e.g. [1, 8, 64]") }
        if let bad = concurrency.first(where: { $0 < 1 || $0 > Self.maximumConcurrency }) {
            throw fail("concurrency", "every value must be between 1 and \(Self.maximumConcurrency), got \(bad)")
        }
        if let repeated = concurrency.firstRepeated()?.element {
            // Two phases would make rows of one identity; repetitions are what repeats a phase.
            throw fail(
                "concurrency",
                "lists \(repeated) twice; give each value once and use repetitions to repeat a phase"
            )
        }
        switch read {
        case .scan:
            break
        case .segment(let total):
            guard total >= 1, total <= 1_000_000 else {
                throw fail("read", "segment:TOTAL needs 1 ≤ TOTAL ≤ 1000000, got \(total)")
            }
        case .partition(.uniform):
            break
        case .partition(.fixed(let partition)):
            guard partition >= 0, partition < store.partitions else {
                throw fail(
                    "read",
                    "partition \(partition) does not exist; the store has partitions 0 to \(store.partitions - 1)"
                )
            }
        case .partition(.zipf(let exponent)):
            guard exponent.isFinite, exponent > 0, exponent <= 10 else {
                throw fail("read", "the zipf exponent must be greater than 0 and at most 10, got \(exponent)")
            }
            guard store.partitions <= Self.maximumZipfPartitions else {
                throw fail(
                    "read",
                    "partition:zipf supports at most \(Self.maximumZipfPartitions) partitions, the store has \(store.partitions); use partition:uniform"
                )
            }
        }
        if let limit, limit < 1 || limit > PageRequest.maximumLimit {
            throw fail(
                "limit",
                "must be between 1 and \(PageRequest.maximumLimit), got \(limit); omit it for the store's default (S1)"
            )
        }
        switch drain {
        case .full:
            break
        case .firstPages(let pages):
            guard pages >= 1 else { throw fail("drain", "first:K needs K ≥ 1 pages, got \(pages)") }
        case .abandon(let probability):
            guard probability >= 0, probability <= 1 else {
                throw fail("drain", "abandon:P needs a probability between 0 and 1, got \(probability)")
            }
        }
        if pager == .apolloLoadAll, drain != .full {
            throw fail(
                "drain",
                "'\(drain)' cannot be used with the apollo-loadAll pager, which always loads every page; use apollo-loadNext or streaming"
            )
        }
        if let stages {
            try validateStages(stages)
        } else {
            if case .open(let rate, _) = load, !Self.openLoopRates.contains(rate) {
                throw fail(
                    "load",
                    rate == 0
                        ? "'\(load)' needs a rate, e.g. '\(load):200' (drains per second); only rate stages may leave it out"
                        : "the open-loop rate must be from \(Self.openLoopRates.lowerBound) to 10000000 drains per second, got \(rate)"
                )
            }
            if rampDown != .finish {
                throw fail("rampDown", "applies to pager stages only; give workload.stages (or --stages) too")
            }
        }
        switch bound {
        case .drains(let count):
            guard count >= 1, count <= 1_000_000_000 else {
                throw fail("drains", "must be between 1 and 1000000000, got \(count)")
            }
        case .duration(let seconds):
            guard seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                throw fail("durationSeconds", "must be greater than 0 and at most 86400, got \(seconds)")
            }
        }
        guard warmupSeconds.isFinite, warmupSeconds >= 0, warmupSeconds <= 3_600 else {
            throw fail("warmupSeconds", "must be between 0 and 3600, got \(warmupSeconds)")
        }
        guard repetitions >= 1, repetitions <= 1_000 else {
            throw fail("repetitions", "must be between 1 and 1000, got \(repetitions)")
        }
        guard cancelFraction.isFinite, cancelFraction >= 0, cancelFraction <= 1 else {
            throw fail("cancelFraction", "must be between 0 and 1 (a fraction of drains), got \(cancelFraction)")
        }
        guard retry.maxRetries >= 0, retry.maxRetries <= 100 else {
            throw fail("retry.maxRetries", "must be between 0 and 100, got \(retry.maxRetries)")
        }
        guard retry.initialBackoffNanoseconds >= 0 else {
            throw fail("retry.initialBackoff", "must not be negative")
        }
        guard retry.maxBackoffNanoseconds >= retry.initialBackoffNanoseconds else {
            throw fail(
                "retry.maxBackoff",
                "must be at least retry.initialBackoff (\(WorkloadText.durationText(retry.initialBackoffNanoseconds))), got \(WorkloadText.durationText(retry.maxBackoffNanoseconds))"
            )
        }
        guard retry.multiplier.isFinite, retry.multiplier >= 1, retry.multiplier <= 100 else {
            throw fail("retry.multiplier", "must be between 1 and 100, got \(retry.multiplier)")
        }
        guard retry.jitter.isFinite, retry.jitter >= 0, retry.jitter <= 1 else {
            throw fail("retry.jitter", "must be between 0 and 1, got \(retry.jitter)")
        }
        guard yieldEveryPages >= 1, yieldEveryPages <= 1_000_000 else {
            throw fail("yieldEveryPages", "must be between 1 and 1000000, got \(yieldEveryPages)")
        }
        if measureOverhead && !pageTiming {
            throw fail("measureOverhead", "compares timing on with timing off, so pageTiming must be true")
        }
        // Checked whatever the pager, as every number given is (issue 24).
        guard watchSeconds.isFinite, watchSeconds > 0, watchSeconds <= 3_600 else {
            throw fail("watchSeconds", "must be greater than 0 and at most 3600, got \(watchSeconds)")
        }
        if measureOverhead && load != .closed {
            // H7: the arrival rate sets an open loop's pages/s, timed or not.
            throw fail(
                "measureOverhead",
                "compares pages/s with timing on and off, which an open loop's arrival rate sets; measure it in closed loop"
            )
        }
        if pager == .apolloWatch {
            // Writes must land while the pagers only watch: per-request writes would come
            // only with the watch's own re-fetches, each of which would write again.
            guard store.writes?.per == .second else {
                throw fail(
                    "pager",
                    "apollo-watch watches for writes (P16): the store needs writes at a per-second rate "
                        + "(store \"writes\": {\"insertRate\": 100, \"per\": \"second\"}, or --insert-rate 100 --write-rate-unit second)"
                )
            }
        }
        // A staged phase shares one store across its stages, so S25's counts would mix what
        // each stage's writes did; writes are measured at a fixed load.
        if stages != nil, store.writes != nil {
            throw fail("stages", "cannot be combined with a store with writes (S22): give a fixed concurrency or rate")
        }
    }

    /// The checks of a staged workload (H4): what the plan sets (length, pool or rate) must
    /// not be given otherwise, and what a ramp has no place for (warm-up, the overhead rerun)
    /// is refused.
    private func validateStages(_ plan: StagePlan) throws(HarnessError) {
        func fail(_ field: String, _ problem: String) -> HarnessError { .invalidField("workload." + field, problem) }
        guard bound == .duration(seconds: Double(plan.durationNanoseconds) / 1e9) else {
            throw fail(
                "stages",
                "the stages set the phase's length (\(WorkloadText.durationText(plan.durationNanoseconds))); drop drains and durationSeconds"
            )
        }
        guard plan.durationNanoseconds <= 86_400_000_000_000 else {
            throw fail(
                "stages",
                "the stages last \(WorkloadText.durationText(plan.durationNanoseconds)); a phase lasts at most 24h"
            )
        }
        guard warmupSeconds == 0 else {
            throw fail(
                "warmupSeconds",
                "a staged workload ramps from its first stage; give a warm-up as a stage of its own (its row shows it)"
            )
        }
        guard !measureOverhead else {
            throw fail(
                "measureOverhead",
                "cannot rerun a stage plan with timing off; measure overhead at a fixed concurrency"
            )
        }
        switch plan.target {
        case .pagers:
            guard load == .closed else {
                throw fail(
                    "load",
                    "pager stages are closed loop; for open loop give the stages as rates (e.g. '20s:100/s-2000/s')"
                )
            }
            let peak = Int(plan.peak)
            guard peak <= Self.maximumConcurrency else {
                throw fail("stages", "the plan asks for \(peak) pagers; at most \(Self.maximumConcurrency)")
            }
            guard concurrency == [peak] else {
                throw fail(
                    "concurrency",
                    "pager stages set the pagers (the pool is the plan's peak, \(peak)); drop concurrency"
                )
            }
        case .rate:
            guard case .open(let rate, _) = load else {
                throw fail(
                    "load",
                    "rate stages are open loop: give load 'open-fixed' or 'open-poisson' (without a rate)"
                )
            }
            guard rate == 0 else {
                throw fail(
                    "load",
                    "the stages set the rate; write '\(LoadModel.open(drainsPerSecond: 0, poisson: load.isPoisson))' without ':\(rate)'"
                )
            }
            guard plan.peak <= Self.openLoopRates.upperBound else {
                throw fail("stages", "the open-loop rate must be at most 10000000 drains per second, got \(plan.peak)")
            }
            guard concurrency.count == 1 else {
                throw fail(
                    "concurrency",
                    "a rate plan runs on one number of slots (drains in flight at most); give one value, e.g. 64"
                )
            }
            guard rampDown == .finish else {
                throw fail(
                    "rampDown",
                    "applies to pager stages; a rate plan keeps its slots and changes the arrival rate"
                )
            }
        }
    }
}
