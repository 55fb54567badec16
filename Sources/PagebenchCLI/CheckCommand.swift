import ArgumentParser
import PagebenchBase
import PagebenchEngine
import PagebenchMetrics
import PagebenchReport

#if canImport(Glibc)
import Glibc
#endif

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

    @Option(
        parsing: .unconditional,
        help: "Output format: text, markdown, json or junit (JUnit XML for Jenkins, GitLab, Azure; docs/ci.md)."
    )
    var format: Format = .text

    /// The formats a check report has (a CSV of verdicts is not offered).
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, markdown, json, junit
        var outputFormat: OutputFormat { OutputFormat(rawValue: rawValue)! }
    }

    @Option(
        parsing: .unconditional,
        help: "Write the report to this file (replaced atomically) instead of standard output."
    )
    var output: String?

    @Flag(
        help: """
            GitHub Actions: print ::error/::warning annotations for what fails the check (on standard output), \
            and append the markdown report to $GITHUB_STEP_SUMMARY when it is set (within GitHub's 1 MiB). \
            With --format json or junit, give --output FILE so that standard output holds only annotations.
            """
    )
    var github = false

    @Flag(help: "Do not fail on changed deterministic metrics (an intended change of behaviour).")
    var allowBehaviourChange = false

    @Flag(help: "Fail (exit 1) when a group is present in only one file, e.g. a scenario that stopped running.")
    var failOnUnmatched = false

    @Flag(
        help:
            "Also gate the figures reported by default (wall-clock rates and latencies, CPU time, memory, allocations counted through thread caches) at their thresholds: for a quiet machine of your own."
    )
    var gateWallClock = false

    @Flag(help: "Print the default thresholds (markdown) and exit.")
    var listThresholds = false

    init() {}

    func validate() throws {
        if listThresholds { return }
        guard baseline != nil, current != nil else {
            throw ValidationError("give both --baseline FILE and --current FILE")
        }
        if github, output == nil, format == .json || format == .junit {
            throw ValidationError(
                "--github prints annotations on standard output, which would break the \(format.rawValue) there: "
                    + "give --output FILE for the report"
            )
        }
        if let output, output.isEmpty { throw ValidationError("--output must name a file") }
    }

    func run() throws {
        if listThresholds {
            try CommandError.reporting { try StandardOutput.write(Thresholds.defaultsMarkdownTable()) }
            return
        }
        guard let baseline, let current else {
            throw CommandError.usage("give both --baseline FILE and --current FILE").report()  // validate() checked
        }
        let report = try CommandError.reporting {
            var rules = try thresholds.map(Thresholds.read(from:)) ?? Thresholds()
            if gateWallClock { rules.gateWallClock = true }
            // Each file is read a piece at a time and kept only as the samples judged, so memory
            // follows the groups and their repetitions, not the size of the files.
            var baselineSamples = CheckSamples(file: baseline)
            try CSVFile.forEachResult(baseline) { baselineSamples.add($0, cells: $1) }
            var currentSamples = CheckSamples(file: current)
            try CSVFile.forEachResult(current) { currentSamples.add($0, cells: $1) }
            return try RegressionChecker(thresholds: rules).checkFiles(
                baseline: baselineSamples,
                current: currentSamples,
                allowBehaviourChange: allowBehaviourChange,
                failOnUnmatched: failOnUnmatched
            )
        }
        try CommandError.reporting {
            let rendered = report.rendered(format.outputFormat)
            if let output {
                try TextFile.write(rendered, to: output)
            } else {
                try StandardOutput.write(rendered)
            }
            if github { try publishToGitHub(report) }
        }
        if report.fails { throw ExitCodes.regression.code }
    }

    /// `--github`: the annotations on standard output, the markdown report appended to the step
    /// summary file when `$GITHUB_STEP_SUMMARY` names one (docs/ci.md). The exit status stays
    /// the check's.
    private func publishToGitHub(_ report: CheckReport) throws {
        try StandardOutput.write(report.githubAnnotationLines)
        guard let variable = getenv("GITHUB_STEP_SUMMARY") else { return }
        let path = String(cString: variable)
        guard !path.isEmpty else { return }
        let shown = ControlCharacters.escaped(path)
        var appended = ""
        try AtomicFile.appendLocked(
            to: path,
            sizedBy: { existingBytes in
                appended = report.githubStepSummary(existingBytes: existingBytes)
                return appended
            }
        )
        if appended.isEmpty {
            StandardError.write(
                "pagebench: warning: \(shown) already holds GitHub's 1 MiB of step summary: the check's markdown was not "
                    + "appended\n"
            )
        } else if !appended.hasSuffix(report.markdown) {
            StandardError.write(
                "pagebench: warning: the check's markdown did not fit GitHub's 1 MiB step summary (\(shown)): it was cut "
                    + "at a line, marked where\n"
            )
        }
    }
}
