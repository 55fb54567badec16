import PagebenchMetrics

/// Which measured metrics gate the check by default, and the noise floors the others are
/// reported with (docs/contract.md H10; ``MetricGate``).
extension Thresholds {
    /// The kind of figure `column` is.
    ///
    /// - Parameters:
    ///   - exactAllocations: both sides counted allocations exactly (`allocation_counting` = `exact`).
    ///   - remoteTarget: the rows paged a remote target (`target_kind` set).
    package static func gateKind(
        of column: ColumnDescriptor,
        exactAllocations: Bool,
        remoteTarget: Bool
    ) -> MetricGate.Kind {
        let name = column.name
        if name == "instructions_per_page" { return .processOwn }
        if allocationColumns.contains(name) { return exactAllocations ? .processOwn : .cachedAllocations }
        if remoteTarget, targetLatencyRules[name] != nil { return .targetLatency }
        if name.hasPrefix("errors_") || name.hasPrefix("target_errors_")
            || ["retries", "throttles", "consumed_capacity_units"].contains(name)
        {
            return .countedEvents
        }
        if ["missed_starts", "late_starts", "pages_after_cancel"].contains(name) { return .timingCounts }
        if name.hasPrefix("cpu_") { return .cpuTime }
        if name.hasPrefix("peak_") { return .memory }
        return .wallClock
    }

    /// The kinds gated unless the thresholds say otherwise.
    package static let gatedByDefault: Set<MetricGate.Kind> = [.processOwn, .countedEvents, .targetLatency]

    /// The columns gated for a remote target's rows, and their default rules (issue 35, docs/gate.md
    /// "A remote target's latency"):
    /// - `page_latency_min_ns`, the fastest page: the target's service time plus the bare round
    ///   trip. Another process's load adds to the slow side of the distribution, not to the
    ///   pages that found a CPU at once, so this moves with the target, hardly with the machine:
    ///   gated tightly, it sees a target 1.3 times slower in every page;
    /// - `page_latency_p50_ns`, the median, at +50 %: a slowdown of half the pages or more that
    ///   the fastest page does not show; the load moves the median by tens of percent here.
    package static let targetLatencyRules: [String: Rule] = [
        "page_latency_min_ns": Rule(relative: 0.10), "page_latency_p50_ns": Rule(relative: 0.50),
    ]

    /// The gated target latency columns in the order the docs name them.
    package static let targetLatencyColumns = ["page_latency_min_ns", "page_latency_p50_ns"]

    /// Whether `column`'s verdict fails the check, and why.
    package func gate(
        for column: ColumnDescriptor,
        exactAllocations: Bool = false,
        remoteTarget: Bool = false
    ) -> MetricGate {
        let kind = Self.gateKind(of: column, exactAllocations: exactAllocations, remoteTarget: remoteTarget)
        let gated = metrics[column.name]?.gate ?? (Self.gatedByDefault.contains(kind) || gateWallClock)
        let what: String?
        switch kind {
        case .processOwn:
            what = column.name == "instructions_per_page" ? "instructions, callgrind" : "allocations, counted exactly"
        case .countedEvents: what = column.unit
        default: what = nil
        }
        return MetricGate(
            kind: kind,
            gated: gated,
            noiseFloor: Self.noiseFloor(of: column.name, kind: kind, remoteTarget: remoteTarget),
            what: what
        )
    }

    /// The noise floor of `name` measured on the reference machine (results/aa-gate.md): the
    /// largest change of medians over 20 pairs of separate same-build runs of the scenarios
    /// there, for the figure's family (a fraction: 0.29 = ±29 %); nil where no pair measured it.
    package static func noiseFloor(of name: String, kind: MetricGate.Kind, remoteTarget: Bool) -> Double? {
        // The A/A runs counted allocations through the thread caches: their floors say nothing
        // of exact counts (about 1 %, results/allocation-exact.md).
        if kind == .processOwn, allocationColumns.contains(name) { return nil }
        let floors = remoteTarget ? targetNoiseFloors : inProcessNoiseFloors
        if let floor = floors[name] { return floor }
        if name.hasSuffix("_per_s") { return floors["_per_s"] }
        for suffix in LatencyPercentiles.columnSuffixes where name.hasSuffix(suffix) {
            return name.hasPrefix("cancel_") || name.hasPrefix("watch_") ? nil : floors[suffix]
        }
        return nil
    }

    /// In-process rows: the CI scenario set and results/aa-gate/in-process.json, 20 pairs of
    /// separate release runs of one build (results/aa-gate.md, 2026-11-26). Their phases last
    /// 5–40 ms on a 2-core VM shared with other builds, so tails move by hundreds of percent.
    /// `instructions_per_page`: one CI run in 40 counted the Apollo-style pagers 9 % higher
    /// (another thread took part: results/aa-gate/one-cpu.txt); the others repeat within 2.7 %.
    static let inProcessNoiseFloors: [String: Double] = [
        "instructions_per_page": 0.089, "_per_s": 4.66, "_p50_ns": 1.35, "_p90_ns": 20.41, "_p99_ns": 40.91,
        "_p999_ns": 105.8, "_max_ns": 431.9, "cpu_user_s": 1.66, "cpu_system_s": 5.34, "allocations": 32.17,
        "allocations_per_page": 32.17, "peak_allocated_bytes": 0.92, "peak_rss_bytes": 0.14,
        "harness_overhead_ratio": 2.13,
    ]

    /// Rows of a remote target: results/aa-gate/target.json against `pagebench serve` at a
    /// fixed 2 ms, 20 pairs (results/aa-gate.md); `page_latency_min_ns`: results/gate-power.md,
    /// 20 pairs against a fixed 4 ms at a load average of 6.5–23.5, 5 repetitions a side.
    static let targetNoiseFloors: [String: Double] = [
        "instructions_per_page": 0.005, "page_latency_min_ns": 0.058, "_per_s": 0.39, "_p50_ns": 0.29, "_p90_ns": 0.65,
        "_p99_ns": 0.84,
        "_p999_ns": 5.9, "_max_ns": 5.9, "cpu_user_s": 0.65, "cpu_system_s": 1.7, "allocations": 0.079,
        "allocations_per_page": 0.079, "peak_allocated_bytes": 0.055, "peak_rss_bytes": 0.11,
    ]
}
