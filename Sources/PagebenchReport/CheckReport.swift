import PagebenchMetrics

/// The outcome of `pagebench check` for one measured metric: one vocabulary for the text,
/// markdown and JSON reports and the HTML report's gate section (docs/checking.md, "Verdicts").
/// "Regression" means gated and failing, nothing else: a change of a reported (ungated) metric
/// beyond its threshold is ``worse`` or ``better``, and never fails the check.
package enum Verdict: String, Sendable, Codable, CaseIterable {
    /// A gated metric is worse by more than its threshold, and the repetitions show the change
    /// is not noise: it fails the check.
    case regression
    /// A gated metric is better by more than its threshold, and the repetitions show it.
    case improvement
    /// A reported (not gated) metric is worse by more than its threshold, and the repetitions
    /// show it: printed with its noise floor, never failing the check.
    case worse = "worse (reported)"
    /// A reported (not gated) metric is better by more than its threshold.
    case better = "better (reported)"
    /// The whole confidence interval lies within ± the threshold (or the medians differ by no
    /// more than the absolute floor). Not "unchanged": a maximum may move +90 % within its 200 %.
    case withinThreshold = "within threshold"
    /// The repetitions cannot tell: the interval crosses the threshold, the test's evidence falls
    /// short, the build configurations differ, or one side has no values.
    case inconclusive
    /// The thresholds say not to judge this metric.
    case ignored

    /// Whether this verdict fails the check: only a gated regression does.
    package var fails: Bool { self == .regression }

    /// Whether the change was beyond the threshold and shown by the repetitions, either way.
    package var isShift: Bool { [.regression, .improvement, .worse, .better].contains(self) }
}

/// One measured metric of one matched identity: medians, change, interval, test and verdict.
package struct MetricVerdict: Sendable, Equatable, Codable {
    package var metric: String
    package var unit: String
    /// `higher` or `lower` (is better).
    package var polarity: String
    package var verdict: Verdict
    package var baselineMedian: Double?
    package var currentMedian: Double?
    package var baselineValues: [Double]
    package var currentValues: [Double]
    /// median(current) / median(baseline) − 1; positive means larger (better only when higher is better).
    package var relativeChange: Double?
    /// The bootstrap interval of ``relativeChange`` at ``Thresholds/confidence``.
    package var intervalLow: Double?
    package var intervalHigh: Double?
    /// Two-sided Mann–Whitney U p-value, when both sides have at least one value.
    package var rankTestP: Double?
    /// The relative threshold applied (0.05 = 5 %).
    package var threshold: Double
    /// The absolute floor applied, in ``unit``.
    package var absoluteFloor: Double
    /// Why the verdict is what it is, when that is not obvious from the numbers.
    package var note: String?
    /// Whether a regression of this metric fails the check (docs/contract.md H10; ``MetricGate``):
    /// a gated metric's shift is a ``Verdict/regression`` or ``Verdict/improvement``, a reported
    /// one's ``Verdict/worse`` or ``Verdict/better``.
    package var gated: Bool = true
    /// Why it is gated or only reported: `gated: process-own (instructions, callgrind)`,
    /// `reported: wall-clock, noise floor ±25 %`.
    package var gate: String = ""
}

/// A deterministic metric whose values differ (docs/contract.md H3): a behaviour change.
package struct BehaviourChange: Sendable, Equatable, Codable {
    package var metric: String
    /// The distinct values of the baseline's repetitions, in repetition order.
    package var baselineValues: [String]
    package var currentValues: [String]
    /// What changed: between the files, or between repetitions of one file.
    package var note: String
}

/// The comparison of one identity (scenario, configuration, pager, concurrency, stage) present in both files.
package struct IdentityComparison: Sendable, Equatable, Codable {
    package var scenario: String
    package var configHash: String
    package var pagerKind: String
    package var concurrency: Int
    /// The stage (1-based) of a staged run (H4); nil otherwise.
    package var stage: Int? = nil
    package var baselineRepetitions: Int
    package var currentRepetitions: Int
    package var behaviourChanges: [BehaviourChange]
    /// Rows refused because too many of their drains failed (``Thresholds/maxFailedDrainFraction``):
    /// each says which file and repetition, and the fraction.
    package var failedRows: [String] = []
    package var metrics: [MetricVerdict]
    /// Context differences that weaken the comparison (build configuration, seed, host, …).
    package var warnings: [String]

    package var label: String {
        ResultIdentity(
            scenario: scenario,
            configHash: configHash,
            pagerKind: pagerKind,
            concurrency: concurrency,
            stage: stage
        )
        .description
    }
}

/// A row group present in only one of the two files.
package struct UnmatchedIdentity: Sendable, Equatable, Codable {
    package var scenario: String
    package var configHash: String
    package var pagerKind: String
    package var concurrency: Int
    /// The stage (1-based) of a staged run (H4); nil otherwise.
    package var stage: Int? = nil
    package var repetitions: Int

    package var label: String {
        ResultIdentity(
            scenario: scenario,
            configHash: configHash,
            pagerKind: pagerKind,
            concurrency: concurrency,
            stage: stage
        )
        .description
    }
}

/// Everything `pagebench check` found, ready to render as text, markdown or JSON.
package struct CheckReport: Sendable, Equatable, Codable {
    package var baselineFile: String
    package var currentFile: String
    /// One line describing the method and its parameters.
    package var method: String
    /// What is gated and what only reported, with why (docs/contract.md H10): one line each.
    package var gates: [String] = []
    package var comparisons: [IdentityComparison]
    package var onlyInBaseline: [UnmatchedIdentity]
    package var onlyInCurrent: [UnmatchedIdentity]
    /// Whether behaviour changes were allowed (`--allow-behaviour-change`).
    package var behaviourChangeAllowed: Bool
    /// Whether a group present in only one file fails the check (`--fail-on-unmatched`).
    package var unmatchedFails: Bool = false

    /// Every metric verdict with its identity's label.
    package var allVerdicts: [(identity: String, verdict: MetricVerdict)] {
        comparisons.flatMap { comparison in comparison.metrics.map { (comparison.label, $0) } }
    }

    /// Verdicts of `verdict` over every metric, or only the gated (`gated: true`) or only the
    /// reported ones (`false`). A regression or improvement is always gated, a worse or better never.
    package func count(_ verdict: Verdict, gated: Bool? = nil) -> Int {
        comparisons.reduce(0) { $0 + $1.metrics.count { $0.verdict == verdict && (gated == nil || $0.gated == gated) } }
    }

    package var behaviourChangeCount: Int { comparisons.reduce(0) { $0 + $1.behaviourChanges.count } }

    /// Whether a gated metric regressed (a reported one never fails the check).
    package var hasRegression: Bool { count(.regression, gated: true) > 0 }

    /// Rows refused as failed runs, with their group's label.
    package var failedRows: [(identity: String, row: String)] {
        comparisons.flatMap { comparison in comparison.failedRows.map { (comparison.label, $0) } }
    }

    /// Whether the check fails: a regression, a row of failed drains, a behaviour change that was not allowed, or (with
    /// ``unmatchedFails``) a group present in only one file.
    package var fails: Bool { outcome.fails }

    /// The process exit status: 1 when ``fails``, else 0.
    package var exitStatus: Int32 { fails ? 1 : 0 }

    /// What the check decides as a whole, the first reason that applies: one case per way it
    /// passes or fails, for a renderer (text, markdown, JSON, the HTML report, CI formats) to switch over.
    package enum Outcome: String, Sendable, Codable, CaseIterable {
        /// A gated metric regressed (``Verdict/regression``).
        case regression = "REGRESSION"
        /// A row's drains mostly failed: it was refused, not compared.
        case failedRun = "FAILED RUN"
        /// A group is present in one file only, and `--fail-on-unmatched` was given.
        case unmatchedRows = "UNMATCHED ROWS"
        /// A deterministic metric differs (H3) and `--allow-behaviour-change` was not given.
        case behaviourChange = "BEHAVIOUR CHANGE"
        /// Passes, though a deterministic metric differs: `--allow-behaviour-change`.
        case behaviourChangeAllowed = "OK (behaviour change allowed)"
        /// Passes: nothing gated failed.
        case passed = "OK"

        /// Whether the check fails (exit 1).
        package var fails: Bool { ![.passed, .behaviourChangeAllowed].contains(self) }
    }

    /// The check's decision (``fails`` is `outcome.fails`).
    package var outcome: Outcome {
        if hasRegression { return .regression }
        if !failedRows.isEmpty { return .failedRun }
        if unmatchedFails && !(onlyInBaseline.isEmpty && onlyInCurrent.isEmpty) { return .unmatchedRows }
        if behaviourChangeCount > 0 { return behaviourChangeAllowed ? .behaviourChangeAllowed : .behaviourChange }
        return .passed
    }
}
