import ArgumentParser
import Foundation
import PagebenchBase
import PagebenchHarness
import PagebenchPage
import PagebenchStore

/// Workload flags of `pagebench run`: each overrides one field of every scenario's workload.
package struct WorkloadOptions: ParsableArguments, Sendable {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "loop, streaming, apollo-loadAll, apollo-loadNext or apollo-watch (P16; needs per-second writes).",
            valueName: "kind"
        )
    )
    package var pager: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Concurrency values to sweep, comma-separated, e.g. 1,8,64. A pager costs about 30 KiB (its latencies go to histograms the phase shares); a phase that would not fit in the machine's memory in one process is refused (use --workers for more).",
            valueName: "list"
        )
    )
    package var concurrency: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "What each drain reads: partition:uniform, partition:zipf:1.1, partition:N, scan or segment:TOTAL; a comma-separated list sweeps them (scan,partition:uniform).",
            valueName: "spec"
        )
    )
    package var read: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Items evaluated per page (S1, S2); a comma-separated list sweeps them: --limit 10,25,100,250 runs each limit (with every --filter and --read listed), one labelled row each.",
            valueName: "n"
        )
    )
    package var limit: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "match, category=N, category!=N (N from 0 to 15), size>=BYTES, size<=BYTES, or none; a comma-separated list sweeps them (none,category=0).",
            valueName: "spec"
        )
    )
    package var filter: String?

    @Flag(help: "Read in descending key order (S13).")
    package var reverse = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("How far each drain reads: full, first:K or abandon:P.", valueName: "spec")
    )
    package var drain: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "closed, open-fixed:RATE or open-poisson:RATE. RATE is drains per second (0.001 to 10000000), not requests: a drain is every page of one pagination, so requests/s = drains/s × pages per drain (--drain first:1 makes them equal).",
            valueName: "spec"
        )
    )
    package var load: String?

    @Option(
        parsing: .unconditional,
        help: "Drains per measured phase (deterministic metrics are exact in this mode, H3)."
    )
    package var drains: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Length of each measured phase instead of a drain count: 30s, 500ms (a bare number is seconds).",
            valueName: "duration"
        ),
        transform: DurationOption.seconds("--duration")
    )
    package var duration: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Warm-up before each measured phase (excluded): 2s, 500ms (a bare number is seconds).",
            valueName: "duration"
        ),
        transform: DurationOption.seconds("--warmup")
    )
    package var warmup: Double?

    @Option(parsing: .unconditional, help: "Measured phases per concurrency value.")
    package var repetitions: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Fraction of drains the cancellation probe cancels at a random instant (H2).",
            valueName: "fraction"
        )
    )
    package var cancelFraction: Double?

    @Flag(help: "Let a duration-bound phase's drains finish instead of cancelling them at the end.")
    package var noCancelAtEnd = false

    @Option(parsing: .unconditional, help: "Retries of throttled or faulted requests (S21).")
    package var maxRetries: Int?

    @Option(parsing: .unconditional, help: "Seed of the workload's random choices (default: the store's seed).")
    package var workloadSeed: UInt64?

    @Flag(help: "Also run each phase with per-page timing off and report the ratio (measurement_overhead_ratio).")
    package var measureOverhead = false

    @Flag(help: "Do not time pages (no page latency).")
    package var noPageTiming = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "A load shape instead of fixed concurrency (H4): DURATION:PAGERS or DURATION:FROM-TO stages, e.g. 30s:0-64,60s:64,30s:64-0; rates with /s are open loop, e.g. 20s:100/s-2000/s. One row per stage; at most 1000 stages and 24h in all.",
            valueName: "spec"
        )
    )
    package var stages: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "What a ramp-down does to a removed pager: finish (its drain ends first) or cancel (timed, H2).",
            valueName: "mode"
        )
    )
    package var rampDown: String?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "apollo-watch: how long each drain watches its loaded pages (P16; default 1s; a bare number is seconds).",
            valueName: "duration"
        ),
        transform: DurationOption.seconds("--watch-seconds")
    )
    package var watchSeconds: Double?

    package init() {}

    /// Checks every given flag on its own (exit 64 on failure), each value of a sweep.
    package func check() throws(HarnessError) {
        for point in try sweep() {
            var scratch = Workload()
            scratch.concurrency = [1]
            try point.apply(to: &scratch)
            // A store that allows every flag (apollo-watch needs per-second writes, stages need a
            // store without writes): the store's own checks come with the scenario.
            try scratch.validate(
                store: StoreConfiguration(
                    partitions: StoreConfiguration.maximumSkewedPartitions,
                    writes: scratch.pager == .apolloWatch ? WritesConfiguration(per: .second) : nil
                )
            )
        }
    }

    /// The most points one sweep (`--limit` × `--filter` × `--read`) may have: each point is
    /// a scenario checked, labelled and run.
    package static let maximumSweepPoints = 1_000

    /// The points of the sweep these flags ask for (issue 26): the cross product of the
    /// `--limit`, `--filter` and `--read` lists, limits varying slowest, each point these
    /// options with one value of each. One point, these options, without lists.
    ///
    /// - Throws: ``HarnessError`` (`invalidArgument`) for an empty element, a value listed
    ///   twice, or more than ``maximumSweepPoints`` points (counted before any is built).
    package func sweep() throws(HarnessError) -> [WorkloadOptions] {
        func values(_ text: String?, _ name: String, example: String) throws(HarnessError) -> [String?] {
            guard let text else { return [nil] }
            let parts: [String]
            do {
                parts = try ListText.elements(of: text)
            } catch {
                throw HarnessError(.invalidArgument, "--\(name): " + error.problem(example: example))
            }
            if let repeated = parts.map({ $0.lowercased() }).firstRepeated() {
                throw HarnessError(
                    .invalidArgument,
                    "--\(name) lists '\(repeated.element)' twice; give each value once"
                )
            }
            return parts
        }
        let limits = try values(limit, "limit", example: "10,100")
        let filters = try values(filter, "filter", example: "none,category=0")
        let reads = try values(read, "read", example: "scan,partition:uniform")
        let (count, overflow) = limits.count.multipliedReportingOverflow(by: filters.count * reads.count)
        guard !overflow, count <= Self.maximumSweepPoints else {
            throw HarnessError(
                .invalidArgument,
                "--limit × --filter × --read: \(limits.count) × \(filters.count) × \(reads.count) = \(overflow ? "too many" : String(count)) points, "
                    + "more than the \(Self.maximumSweepPoints) one run sweeps; split the sweep across runs"
            )
        }
        var points: [WorkloadOptions] = []
        points.reserveCapacity(count)
        for limit in limits {
            for filter in filters {
                for read in reads {
                    var point = self
                    point.limit = limit
                    point.filter = filter
                    point.read = read
                    points.append(point)
                }
            }
        }
        return points
    }

    /// Applies the given flags to `workload`.
    ///
    /// - Throws: ``HarnessError`` (`invalidArgument`) naming the flag.
    package func apply(to workload: inout Workload) throws(HarnessError) {
        func flag<T>(_ name: String, _ body: () throws(HarnessError) -> T) throws(HarnessError) -> T {
            do {
                return try body()
            } catch {
                throw HarnessError(.invalidArgument, "--\(name): " + error.message)
            }
        }
        if let pager { workload.pager = try flag("pager") { () throws(HarnessError) in try PagerKind(parsing: pager) } }
        if let concurrency {
            var values: [Int] = []
            let parts: [String]
            do {
                parts = try ListText.elements(of: concurrency)
            } catch {
                throw HarnessError(.invalidArgument, "--concurrency: " + error.problem(example: "1,8,64"))
            }
            for part in parts {
                guard let value = Int(part) else {
                    throw HarnessError(
                        .invalidArgument,
                        "--concurrency: '\(part)' is not a whole number; write e.g. 1,8,64"
                    )
                }
                values.append(value)
            }
            workload.concurrency = values
        }
        for (name, list) in [("limit", limit), ("filter", filter), ("read", read)] where list?.contains(",") == true {
            throw HarnessError(.invalidArgument, "--\(name) lists several values: run each point of sweep() instead")
        }
        if let read { workload.read = try flag("read") { () throws(HarnessError) in try ReadRange(parsing: read) } }
        if let limit {
            guard let value = Int(limit.trimmingCharacters(in: .whitespaces)) else {
                throw HarnessError(
                    .invalidArgument,
                    "--limit: '\(limit)' is not a whole number; write e.g. 100 or a list 10,100"
                )
            }
            workload.limit = value
        }
        if let filter {
            if filter.lowercased() == "none" {
                workload.filter = nil
            } else {
                do {
                    workload.filter = try Filter(parsing: filter)
                } catch {
                    throw HarnessError(.invalidArgument, "--filter: " + error.message)
                }
            }
        }
        if reverse { workload.reverse = true }
        if let drain { workload.drain = try flag("drain") { () throws(HarnessError) in try DrainMode(parsing: drain) } }
        if let load { workload.load = try flag("load") { () throws(HarnessError) in try LoadModel(parsing: load) } }
        if drains != nil && duration != nil {
            throw HarnessError(.invalidArgument, "--drains and --duration exclude each other; give one")
        }
        if let drains { workload.bound = .drains(drains) }
        if let duration { workload.bound = .duration(seconds: duration) }
        if let warmup { workload.warmupSeconds = warmup }
        if let repetitions { workload.repetitions = repetitions }
        if let cancelFraction { workload.cancelFraction = cancelFraction }
        if noCancelAtEnd { workload.cancelAtEnd = false }
        if let maxRetries { workload.retry.maxRetries = maxRetries }
        if let workloadSeed { workload.seed = workloadSeed }
        if measureOverhead { workload.measureOverhead = true }
        if noPageTiming { workload.pageTiming = false }
        if let rampDown {
            workload.rampDown = try flag("ramp-down") { () throws(HarnessError) in try RampDown(parsing: rampDown) }
        }
        if let stages {
            let plan = try flag("stages") { () throws(HarnessError) in try StagePlan(parsing: stages) }
            // What the plan sets may not also be given (H4).
            if drains != nil || duration != nil {
                throw HarnessError(
                    .invalidArgument,
                    "--stages sets the phase's length; drop --\(drains != nil ? "drains" : "duration")"
                )
            }
            if plan.target == .pagers, concurrency != nil {
                throw HarnessError(
                    .invalidArgument,
                    "--stages with pagers sets the pagers (the pool is the plan's peak); drop --concurrency"
                )
            }
            if warmup.map({ $0 > 0 }) == true {
                throw HarnessError(
                    .invalidArgument,
                    "--stages ramps from its first stage; give a warm-up as a stage of its own instead of --warmup"
                )
            }
            // The plan replaces the scenario's phase shape, warm-up included.
            workload.warmupSeconds = 0
            if plan.target == .rate, let load, case .open(let rate, _) = workload.load, rate != 0 {
                throw HarnessError(
                    .invalidArgument,
                    "--stages with rates sets the rate; write --load \(load.split(separator: ":").first ?? "open-fixed") without a rate"
                )
            }
            workload.setStages(plan)
        }
        if let watchSeconds { workload.watchSeconds = watchSeconds }
    }
}
