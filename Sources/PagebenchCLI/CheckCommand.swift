import ArgumentParser
import PagebenchEngine
import PagebenchMetrics
import PagebenchReport

/// `pagebench check`: compares a results CSV with a baseline and exits 1 on a regression.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Compare results with a baseline: regressions, improvements and behaviour changes.",
        discussion: """
            Rows are matched by scenario, configuration hash, pager kind and concurrency; repetitions \
            are the samples. Deterministic metrics must be identical; measured metrics get a verdict \
            from a relative threshold, a bootstrap interval of the ratio of medians and a rank test \
            (docs/checking.md). Only what another process cannot move is gated by \
            default (deterministic counts, instructions_per_page from `run --count-instructions`, \
            exactly counted allocations, failed drains, retries and throttles, a remote target's \
            fastest page at +10 % and median page at +50 %); wall-clock rates and latencies, CPU time and memory are \
            reported with their noise floor, and gated with --gate-wall-clock or a metric's "gate": \
            true in --thresholds. Each verdict says why it is gated or only reported (docs/gate.md). Exit status: 0 no regression, 1 regression or \
            behaviour change (or, with --fail-on-unmatched, a group in one file only), 64 bad arguments, \
            65 malformed CSV or thresholds or files with no group in common, 66 missing file.
            """
    )

    @Option(parsing: .unconditional, help: "The baseline results CSV (e.g. results/baselines/ci.csv).")
    var baseline: String?

    @Option(parsing: .unconditional, help: "The results CSV to check.")
    var current: String?

    @Option(parsing: .unconditional, help: "A thresholds JSON file overriding the default per-metric thresholds.")
    var thresholds: String?

    @Option(parsing: .unconditional, help: "Output format.")
    var format: Format = .text

    /// The formats a check report has (a CSV of verdicts is not offered).
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, markdown, json
        var outputFormat: OutputFormat { OutputFormat(rawValue: rawValue)! }
    }

    @Flag(help: "Do not fail on changed deterministic metrics (an intended change of behaviour).")
    var allowBehaviourChange = false

    @Flag(help: "Fail (exit 1) when a group is present in only one file, e.g. a scenario that stopped running.")
    var failOnUnmatched = false

    @Flag(
        help: "Also gate the figures reported by default (wall-clock rates and latencies, CPU time, memory, allocations counted through thread caches) at their thresholds: for a quiet machine of your own.")
    var gateWallClock = false

    @Flag(help: "Print the default thresholds (markdown) and exit.")
    var listThresholds = false

    init() {}

    func validate() throws {
        if listThresholds { return }
        guard baseline != nil, current != nil else {
            throw ValidationError("give both --baseline FILE and --current FILE")
        }
    }

    func run() throws {
        if listThresholds {
            try CommandFailure.reporting { try StandardOutput.write(Thresholds.defaultsMarkdownTable()) }
            return
        }
        guard let baseline, let current else {
            throw CommandError.usage("give both --baseline FILE and --current FILE").report()  // validate() checked
        }
        let report = try CommandFailure.reporting {
            var rules = try thresholds.map(Thresholds.read(from:)) ?? Thresholds()
            if gateWallClock { rules.gateWallClock = true }
            // Each file is read a piece at a time and kept only as the samples judged, so memory
            // follows the groups and their repetitions, not the size of the files.
            var baselineSamples = CheckSamples(file: baseline)
            try CSVFile.forEachResult(baseline) { baselineSamples.add($0, cells: $1) }
            var currentSamples = CheckSamples(file: current)
            try CSVFile.forEachResult(current) { currentSamples.add($0, cells: $1) }
            return try RegressionChecker(thresholds: rules).checkFiles(
                baseline: baselineSamples, current: currentSamples,
                allowBehaviourChange: allowBehaviourChange, failOnUnmatched: failOnUnmatched)
        }
        try CommandFailure.reporting { try StandardOutput.write(report.rendered(format.outputFormat)) }
        if report.fails { throw ExitCodes.regression.code }
    }
}

