import PagebenchMetrics

/// Which measured metrics gate the check by default, and the noise floors the others are
/// reported with (SEMANTICS H10; ``MetricGate``).
extension Thresholds {
    /// The kind of figure `column` is.
    ///
    /// - Parameters:
    ///   - exactAllocations: both sides counted allocations exactly (`allocation_counting` = `exact`).
    ///   - remoteTarget: the rows paged a remote target (`target_kind` set).
    public static func gateKind(of column: ColumnDescriptor, exactAllocations: Bool, remoteTarget: Bool) -> MetricGate.Kind {
        let name = column.name
        if name == "instructions_per_page" { return .processOwn }
        if allocationColumns.contains(name) { return exactAllocations ? .processOwn : .cachedAllocations }
        if remoteTarget, name == targetLatencyColumn { return .targetLatency }
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
    public static let gatedByDefault: Set<MetricGate.Kind> = [.processOwn, .countedEvents, .targetLatency]

    /// The column gated for a remote target's rows: the target's median page latency.
    public static let targetLatencyColumn = "page_latency_p50_ns"

    /// The default rule of ``targetLatencyColumn`` on a remote target's rows: +50 %, several
    /// times its noise floor, and half of what a target twice as slow adds.
    public static let targetLatencyRule = Rule(relative: 0.50)

    /// Whether `column`'s verdict fails the check, and why.
    public func gate(for column: ColumnDescriptor, exactAllocations: Bool = false, remoteTarget: Bool = false) -> MetricGate {
        let kind = Self.gateKind(of: column, exactAllocations: exactAllocations, remoteTarget: remoteTarget)
        let gated = metrics[column.name]?.gate ?? (Self.gatedByDefault.contains(kind) || gateWallClock)
        let what: String?
        switch kind {
        case .processOwn: what = column.name == "instructions_per_page" ? "instructions, callgrind" : "allocations, counted exactly"
        case .countedEvents: what = column.unit
        default: what = nil
        }
        return MetricGate(
            kind: kind, gated: gated, noiseFloor: Self.noiseFloor(of: column.name, kind: kind, remoteTarget: remoteTarget),
            what: what)
    }

    /// The noise floor of `name` measured on the reference machine (results/aa-gate.md): the
    /// largest change of medians over 20 pairs of separate same-build runs of the scenarios
    /// there, for the figure's family; nil where no pair measured it.
    public static func noiseFloor(of name: String, kind: MetricGate.Kind, remoteTarget: Bool) -> Double? {
        let floors = remoteTarget ? targetNoiseFloors : inProcessNoiseFloors
        if let floor = floors[name] { return floor }
        if name.hasSuffix("_per_s") { return floors["_per_s"] }
        for suffix in ["_p50_ns", "_p90_ns", "_p99_ns", "_p999_ns", "_max_ns"] where name.hasSuffix(suffix) {
            return name.hasPrefix("cancel_") || name.hasPrefix("watch_") ? nil : floors[suffix]
        }
        return nil
    }

    /// In-process rows: measured by results/aa-gate/measure.sh (see results/aa-gate.md).
    static let inProcessNoiseFloors: [String: Double] = [:]

    /// Rows of a remote target (`pagebench serve` with a fixed service time): measured by
    /// results/aa-gate/measure.sh.
    static let targetNoiseFloors: [String: Double] = [:]
}
