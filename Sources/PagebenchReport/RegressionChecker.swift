import PagebenchBase
import PagebenchMetrics

/// Compares a baseline results file with a current one (docs/checking.md).
///
/// 1. Rows are grouped by ``ResultIdentity`` (scenario, configuration hash, pager kind,
///    concurrency, and stage for the stages of a staged run, H4); the repetitions of a group are its samples. Groups present on one side only
///    are listed as unmatched.
/// 2. Deterministic columns (docs/contract.md H3) are compared exactly: any difference between the
///    files, or between repetitions of one file, is a behaviour change. Runs bounded by
///    duration rather than drain count have time-dependent counts; they are skipped with a warning.
/// 3. Each measured column with a polarity gets a ``Verdict`` from its ``Thresholds/Rule``:
///    the relative change of the medians, a seeded percentile-bootstrap interval of the ratio
///    of medians and, with enough repetitions, the Mann–Whitney U test:
///    - regression / improvement (a gated metric), worse / better (reported, not gated): the
///      change is beyond the threshold (and the absolute floor) in the bad / good direction,
///      the interval excludes "no change", and the rank test (when the sample sizes can reach
///      alpha: 5 repetitions a side at alpha 0.01; not for a remote target's gated latency,
///      ``Thresholds/targetLatencyRules``) gives p < alpha;
///    - within threshold: the whole interval lies within ± the threshold, or the change of the
///      medians is within the absolute floor;
///    - inconclusive: anything else — the change may or may not exceed the threshold, the
///      repetitions cannot tell.
/// 4. Only the verdicts of gated metrics fail the check (docs/contract.md H10, ``MetricGate``): by
///    default what another process cannot move. Every verdict names its gate.
package struct RegressionChecker: Sendable {
    package var thresholds: Thresholds

    package init(thresholds: Thresholds = Thresholds()) {
        self.thresholds = thresholds
    }

    /// The method line printed with every report.
    package var methodDescription: String {
        "median of repetitions; \(NumberText.number(thresholds.confidence * 100)) % percentile-bootstrap interval of the "
            + "ratio of medians (\(thresholds.resamples) resamples, seed \(thresholds.seed)); Mann–Whitney U at "
            + "α = \(NumberText.number(thresholds.alpha)) where the repetitions can reach it (not for a remote target's gated "
            + "latency: threshold and interval); default thresholds × "
            + "\(NumberText.number(thresholds.scale))"
    }

    /// What the check gates and what it only reports, one line each (docs/contract.md H10).
    package var gatesDescription: [String] {
        let target = Thresholds.targetLatencyColumns.map { name in
            let relative =
                thresholds.metrics[name]?.relative ?? (Thresholds.targetLatencyRules[name]?.relative ?? 0)
                * thresholds.scale
            return "\(name) +\(NumberText.number(relative * 100)) %"
        }
        let gated =
            "gated: deterministic metrics exactly (H3); process-own counts: instructions_per_page (callgrind, "
            + "`run --count-instructions`) and allocations when both sides counted them exactly; counted events "
            + "(failed drains, retries, throttles); a remote target's page latency (\(target.joined(separator: ", ")))"
        if thresholds.gateWallClock {
            return [
                gated
                    + "; and, opted in, every other measured metric (wall-clock, CPU time, memory, cached allocation counts)"
            ]
        }
        return [
            gated,
            "reported, not gated: wall-clock rates, latencies and ratios, CPU time, memory, allocations counted through "
                + "thread caches; another process moves them, so each is shown with its noise floor (--gate-wall-clock gates them)",
        ]
    }

    /// Compares two files' rows, refusing files that have no identity in common.
    ///
    /// - Throws: ``MetricsError`` (`.malformedInput`) when not one group matches: the files describe
    ///   different experiments (another scenario set, or configuration hashes that changed), so
    ///   passing would hide everything; the message says to refresh the baseline.
    package func checkFiles(
        baseline: [ResultRow],
        current: [ResultRow],
        baselineFile: String,
        currentFile: String,
        allowBehaviourChange: Bool = false,
        failOnUnmatched: Bool = false
    ) throws -> CheckReport {
        try checkFiles(
            baseline: CheckSamples(baseline, file: baselineFile),
            current: CheckSamples(current, file: currentFile),
            allowBehaviourChange: allowBehaviourChange,
            failOnUnmatched: failOnUnmatched
        )
    }

    /// Compares two files read into ``CheckSamples`` (as `pagebench check` does, a row at a
    /// time), refusing a row given twice and files that have no identity in common.
    ///
    /// - Throws: ``MetricsError`` (`.malformedInput`): two rows of one identity and repetition
    ///   in one file (a file concatenated with itself, a scenario run twice: they would count
    ///   as two samples of one measurement); not one group in common (see above).
    package func checkFiles(
        baseline: CheckSamples,
        current: CheckSamples,
        allowBehaviourChange: Bool = false,
        failOnUnmatched: Bool = false
    ) throws -> CheckReport {
        for samples in [baseline, current] {
            if let duplicate = samples.duplicate {
                throw MetricsError(kind: .malformedInput, file: samples.file, message: duplicate)
            }
        }
        var report = check(baseline: baseline, current: current, allowBehaviourChange: allowBehaviourChange)
        report.unmatchedFails = failOnUnmatched
        if report.comparisons.isEmpty {
            let example =
                report.onlyInBaseline.first.map {
                    " (baseline has e.g. \($0.label), current \(report.onlyInCurrent.first?.label ?? "nothing"))"
                } ?? ""
            throw MetricsError(
                kind: .malformedInput,
                file: current.file,
                message: "no row matches the baseline \(baseline.file) by scenario, configuration hash, pager and "
                    + "concurrency\(example); if the scenarios or their configuration changed on purpose, refresh the "
                    + "baseline (pagebench baseline update)"
            )
        }
        return report
    }

    /// Compares two sets of rows. `baselineFile` and `currentFile` only label the report.
    package func check(
        baseline: [ResultRow],
        current: [ResultRow],
        baselineFile: String,
        currentFile: String,
        allowBehaviourChange: Bool = false
    ) -> CheckReport {
        check(
            baseline: CheckSamples(baseline, file: baselineFile),
            current: CheckSamples(current, file: currentFile),
            allowBehaviourChange: allowBehaviourChange
        )
    }

    /// Compares two files' samples; their file names label the report.
    package func check(baseline: CheckSamples, current: CheckSamples, allowBehaviourChange: Bool = false) -> CheckReport
    {
        var comparisons: [IdentityComparison] = []
        for identity in baseline.groups.keys.sorted() {
            guard let currentGroup = current.groups[identity], let baselineGroup = baseline.groups[identity] else {
                continue
            }
            comparisons.append(compare(identity, baselineGroup, currentGroup))
        }
        func unmatched(
            _ groups: [ResultIdentity: CheckSamples.Group],
            _ other: [ResultIdentity: CheckSamples.Group]
        )
            -> [UnmatchedIdentity]
        {
            groups.keys.filter { other[$0] == nil }.sorted().map { identity in
                UnmatchedIdentity(
                    scenario: identity.scenario,
                    configHash: identity.configHash,
                    pagerKind: identity.pagerKind,
                    concurrency: identity.concurrency,
                    stage: identity.stage,
                    repetitions: groups[identity]?.samples.count ?? 0
                )
            }
        }
        return CheckReport(
            baselineFile: baseline.file,
            currentFile: current.file,
            method: methodDescription,
            gates: gatesDescription,
            comparisons: comparisons,
            onlyInBaseline: unmatched(baseline.groups, current.groups),
            onlyInCurrent: unmatched(current.groups, baseline.groups),
            behaviourChangeAllowed: allowBehaviourChange
        )
    }

    /// One side of a comparison: a group's samples that are compared, in repetition order.
    private struct Side {
        let group: CheckSamples.Group
        /// Sample indices, repetition order, failed rows left out.
        let compared: [Int]

        var profiles: [CheckSamples.Profile] { compared.map { group.profiles[group.samples[$0].profile] } }

        /// The non-empty values of judged column `column`, in repetition order.
        func values(_ column: Int) -> [Double] { compared.compactMap { group.value($0, column) } }
    }

    private func compare(
        _ identity: ResultIdentity,
        _ baselineGroup: CheckSamples.Group,
        _ currentGroup: CheckSamples.Group
    )
        -> IdentityComparison
    {
        // Rows of mostly failed drains are refused, not compared.
        let baselineOrder = baselineGroup.inRepetitionOrder
        let currentOrder = currentGroup.inRepetitionOrder
        let refused =
            failedRows(baselineOrder.map { baselineGroup.samples[$0] }, file: "baseline")
            + failedRows(currentOrder.map { currentGroup.samples[$0] }, file: "current")
        let baseline = Side(
            group: baselineGroup,
            compared: baselineOrder.filter { !isFailed(baselineGroup.samples[$0]) }
        )
        let current = Side(group: currentGroup, compared: currentOrder.filter { !isFailed(currentGroup.samples[$0]) })
        let baselineProfiles = baseline.profiles
        let currentProfiles = current.profiles
        var warnings = contextWarnings(baselineProfiles, currentProfiles)
        let buildDiffers =
            Set(baselineProfiles.map(\.buildConfiguration)) != Set(currentProfiles.map(\.buildConfiguration))
        // Exact counting runs without jemalloc's thread caches: slower, and counted otherwise.
        let countingDiffers =
            Set(baselineProfiles.map(\.allocationCounting)) != Set(currentProfiles.map(\.allocationCounting))
        let exactAllocations = (baselineProfiles + currentProfiles).allSatisfy { $0.allocationCounting == "exact" }
        let durationBounded = (baselineProfiles + currentProfiles).contains { $0.durationBounded }
        let concurrentWrites = (baselineProfiles + currentProfiles).contains { $0.concurrentWrites }
        let remoteTarget = (baselineProfiles + currentProfiles).contains { !$0.targetKind.isEmpty }
        var changes: [BehaviourChange] = []
        var verdicts: [MetricVerdict] = []
        let bothSides = !baseline.compared.isEmpty && !current.compared.isEmpty
        if !bothSides {
            // Every row of one side was refused as failed: nothing left to compare.
        } else if durationBounded {
            warnings.append(
                "a run is bounded by duration, not drain count, so its counts depend on time: "
                    + "deterministic metrics not compared (bound the run with a drain count)"
            )
        } else if concurrentWrites {
            warnings.append(
                "several pagers page a store with writes, so which page sees which write depends on timing (S25): "
                    + "deterministic metrics not compared (they are exact at one pager with per-request writes)"
            )
        } else {
            for (index, column) in CheckSamples.deterministicColumns.enumerated() {
                if let change = Self.behaviourChange(
                    column.name,
                    baselineProfiles.map { $0.deterministic[index] },
                    currentProfiles.map { $0.deterministic[index] }
                ) {
                    changes.append(change)
                }
            }
        }
        for (index, column) in CheckSamples.judgedColumns.enumerated() where bothSides {
            let baselineValues = baseline.values(index)
            let currentValues = current.values(index)
            if baselineValues.isEmpty && currentValues.isEmpty { continue }  // does not apply to this run
            var verdict = judge(
                column.descriptor,
                baselineValues,
                currentValues,
                exactAllocations: exactAllocations,
                remoteTarget: remoteTarget
            )
            if buildDiffers, verdict.verdict != .ignored {
                verdict.verdict = .inconclusive
                verdict.note = "build configurations differ"
            } else if countingDiffers, verdict.verdict != .ignored {
                verdict.verdict = .inconclusive
                verdict.note = "allocation counting differs"
            }
            verdicts.append(verdict)
        }
        return IdentityComparison(
            scenario: identity.scenario,
            configHash: identity.configHash,
            pagerKind: identity.pagerKind,
            concurrency: identity.concurrency,
            stage: identity.stage,
            baselineRepetitions: baseline.compared.count,
            currentRepetitions: current.compared.count,
            behaviourChanges: changes,
            failedRows: refused,
            metrics: verdicts,
            warnings: warnings
        )
    }

    /// The rows whose failed drains exceed ``Thresholds/maxFailedDrainFraction``: their
    /// figures describe failures (a target that stopped answering, a store that failed), not
    /// the system under test, so they are refused rather than compared.
    func failedRows(_ samples: [CheckSamples.Sample], file: String) -> [String] {
        samples.filter(isFailed).map { sample in
            let failed = sample.failedDrains
            let fraction = Double(failed) / Double(failed + sample.drains)
            return "\(file) repetition \(sample.repetition): \(failed) of \(failed + sample.drains) drains failed "
                + "(\(NumberText.number(fraction * 100, digits: 3)) %, more than the \(NumberText.number(thresholds.maxFailedDrainFraction * 100, digits: 3)) % "
                + "maxFailedDrainFraction): not a measurement; rerun it"
        }
    }

    /// Whether more than ``Thresholds/maxFailedDrainFraction`` of the row's drains failed.
    func isFailed(_ sample: CheckSamples.Sample) -> Bool {
        let failed = sample.failedDrains
        return failed > 0 && Double(failed) / Double(failed + sample.drains) > thresholds.maxFailedDrainFraction
    }

    /// A deterministic column's fields per compared row of each side, in repetition order:
    /// a behaviour change when they are not one and the same value (H3).
    static func behaviourChange(_ name: String, _ baseline: [String], _ current: [String]) -> BehaviourChange? {
        func distinct(_ fields: [String]) -> [String] {
            var seen: [String] = []
            for field in fields where !seen.contains(field) { seen.append(field) }
            return seen
        }
        let before = distinct(baseline)
        let after = distinct(current)
        if before == after && before.count == 1 { return nil }
        let note: String
        if before.count > 1 || after.count > 1 {
            note =
                "differs between repetitions of the \(before.count > 1 ? "baseline" : "current") file (H3: same seed, same counts)"
        } else {
            note = "differs between baseline and current"
        }
        return BehaviourChange(metric: name, baselineValues: before, currentValues: after, note: note)
    }

    /// The verdict of one measured metric given its samples (see the type's documentation).
    ///
    /// - Parameters:
    ///   - exactAllocations: both sides counted allocations exactly
    ///     (``Thresholds/rule(for:exactAllocations:remoteTarget:)``).
    ///   - remoteTarget: the rows paged a remote target (its fastest and median page latency are gated).
    package func judge(
        _ column: ColumnDescriptor,
        _ baselineValues: [Double],
        _ currentValues: [Double],
        exactAllocations: Bool = false,
        remoteTarget: Bool = false
    ) -> MetricVerdict {
        let rule = thresholds.rule(for: column, exactAllocations: exactAllocations, remoteTarget: remoteTarget)
        let gate = thresholds.gate(for: column, exactAllocations: exactAllocations, remoteTarget: remoteTarget)
        var result = MetricVerdict(
            metric: column.name,
            unit: column.unit,
            polarity: column.polarity == .higherIsBetter ? "higher" : "lower",
            verdict: .inconclusive,
            baselineMedian: Statistics.median(baselineValues),
            currentMedian: Statistics.median(currentValues),
            baselineValues: baselineValues,
            currentValues: currentValues,
            relativeChange: nil,
            intervalLow: nil,
            intervalHigh: nil,
            rankTestP: nil,
            threshold: rule.relative,
            absoluteFloor: rule.absolute,
            note: nil,
            gated: gate.gated,
            gate: gate.reason
        )
        if rule.ignore {
            result.verdict = .ignored
            return result
        }
        guard let baselineMedian = result.baselineMedian, let currentMedian = result.currentMedian else {
            result.note = baselineValues.isEmpty ? "no values in the baseline" : "no values in the current file"
            return result
        }
        let change = Statistics.ratio(currentMedian, over: baselineMedian) - 1
        result.relativeChange = change
        // Seed per metric so metrics do not share one random stream, yet stay reproducible.
        let seed = thresholds.seed ^ StableHash.fnv1a64(column.name)
        let interval = Statistics.bootstrapRatioOfMedians(
            baseline: baselineValues,
            current: currentValues,
            confidence: thresholds.confidence,
            resamples: thresholds.resamples,
            seed: seed
        )
        result.intervalLow = interval.low - 1
        result.intervalHigh = interval.high - 1
        let p = Statistics.mannWhitneyP(baselineValues, currentValues)
        result.rankTestP = p

        // The rank test only where it can say yes: with too few repetitions it could never reach alpha.
        // Not for a remote target's gated latency (issue 35): there the repetitions of one run share
        // the machine's moment, so the runs differ by more than their repetitions and the rank test's
        // p is no false-alarm rate; with 5 a side it passes only at perfect separation, and one
        // overlapping pair called a target twice as slow (+73 %, interval +65 % … +78 %)
        // inconclusive. The threshold, set above the measured same-build floor, guards instead.
        let rankTestApplies =
            gate.kind != .targetLatency
            && Statistics.smallestMannWhitneyP(baselineValues.count, currentValues.count) < thresholds.alpha
        let intervalExcludesNoChange = interval.low > 1 || interval.high < 1
        let significant = intervalExcludesNoChange && (!rankTestApplies || p < thresholds.alpha)
        let withinFloor = abs(currentMedian - baselineMedian) <= rule.absolute
        let beyondThreshold = abs(change) > rule.relative && !withinFloor
        let worse = column.polarity == .higherIsBetter ? change < 0 : change > 0

        if beyondThreshold && significant {
            // One vocabulary (issue 35): "regression" only for a gated metric.
            result.verdict = gate.gated ? (worse ? .regression : .improvement) : (worse ? .worse : .better)
        } else if withinFloor || (interval.low - 1 >= -rule.relative && interval.high - 1 <= rule.relative) {
            result.verdict = .withinThreshold
        } else {
            result.verdict = .inconclusive
            if beyondThreshold {
                result.note =
                    intervalExcludesNoChange
                    ? "rank test p = \(NumberText.number(p, digits: 2)) ≥ α" : "interval includes no change"
            } else {
                result.note = "interval reaches beyond the threshold"
            }
        }
        return result
    }

    private func contextWarnings(_ baseline: [CheckSamples.Profile], _ current: [CheckSamples.Profile]) -> [String] {
        var warnings: [String] = []
        func check<Value: Hashable & CustomStringConvertible>(
            _ name: String,
            _ keyPath: KeyPath<CheckSamples.Profile, Value>,
            _ why: String
        ) {
            let before = Set(baseline.map { $0[keyPath: keyPath] })
            let after = Set(current.map { $0[keyPath: keyPath] })
            guard before != after else { return }
            let list = { (values: Set<Value>) in values.map(\.description).sorted().joined(separator: "/") }
            warnings.append("\(name) differs (\(list(before)) → \(list(after))): \(why)")
        }
        check("build_configuration", \.buildConfiguration, "measured metrics are not comparable")
        check("seed", \.seed, "deterministic metrics will differ")
        check("limit", \.limit, "pages and latencies are not comparable")
        check("load_model", \.loadModel, "latencies are not comparable")
        check("swift_version", \.swiftVersion, "a toolchain change may explain a difference")
        check("host", \.host, "a machine change may explain a difference")
        check("cores", \.cores, "a machine change may explain a difference")
        check(
            "allocation_counting",
            \.allocationCounting,
            "exact counting runs without jemalloc's thread caches (slower, every allocation counted): measured metrics are not comparable"
        )
        return warnings
    }
}
