import PagebenchBase
import PagebenchMetrics

extension HTMLReport {
    /// What `pagebench check --baseline FIRST --current SECOND` decides for a report of two
    /// files that share at least one group (issue 35): the same ``RegressionChecker`` with the
    /// same thresholds, not a second reading of the colours. Nil for any other report (one
    /// file, three or more, or two with no group in common: then they are not a baseline
    /// and a current run of one experiment).
    package var gateCheck: CheckReport? {
        guard case .decided(let report) = gate else { return nil }
        return report
    }

    /// What `check` does with the two files: decides, or refuses them (a row given twice: exit 65).
    enum Gate {
        case decided(CheckReport)
        case refused(String)
    }

    /// ``gateCheck``, or check's refusal of the two files; nil when they are not a baseline and a
    /// current file (not two files, or no group in common).
    var gate: Gate? {
        guard let checkThresholds, files.count == 2 else { return nil }
        let baseline = CheckSamples(files[0].rows, file: files[0].path)
        let current = CheckSamples(files[1].rows, file: files[1].path)
        do {
            return .decided(
                try RegressionChecker(thresholds: checkThresholds).checkFiles(baseline: baseline, current: current)
            )
        } catch {
            let report = RegressionChecker(thresholds: checkThresholds).check(baseline: baseline, current: current)
            return report.comparisons.isEmpty ? nil : .refused(String(describing: error))
        }
    }

    /// The gate's section when `check` would refuse the files instead of deciding.
    func gateRefusal(_ message: String) -> String {
        "<section class=\"answer gate\" id=\"gate\">\n<h2>What <code>pagebench check</code> decides</h2>\n"
            + "<p class=\"verdict failed\"><strong>Refused</strong> (exit 65): \(escape(message))</p>\n</section>\n"
    }

    /// The gate's section: passed or failed and why, what was gated and what only reported,
    /// and every verdict beyond its threshold, in `check`'s own words.
    func gateSection(_ report: CheckReport) -> String {
        let passed = !report.fails
        var html = "<section class=\"answer gate\" id=\"gate\">\n<h2>What <code>pagebench check</code> decides</h2>\n"
        html +=
            "<p class=\"verdict \(passed ? "passed" : "failed")\"><strong>\(passed ? "Passed" : "Failed")</strong>: "
            + escape(report.summaryLine) + "</p>\n"
        html +=
            "<p class=\"meta\">As <code>pagebench check --baseline \(escape(report.baselineFile)) --current "
            + "\(escape(report.currentFile))</code> would decide (exit \(report.exitStatus)), with the same thresholds. "
            + "A regression is a gated metric worse beyond its threshold; a reported metric beyond its threshold is "
            + "worse or better (reported) and never fails the check (docs/gate.md).</p>\n<ul class=\"gates\">\n"
        html += report.gates.map { "<li>\(escape($0))</li>\n" }.joined() + "</ul>\n"
        let order: [Verdict] = [.regression, .improvement, .inconclusive, .worse, .better]
        let findings = order.flatMap { kind in
            report.allVerdicts.filter { $0.verdict.verdict == kind && (kind != .inconclusive || $0.verdict.gated) }
        }
        if !findings.isEmpty {
            html +=
                "<div class=\"scroll\"><table class=\"gate\">\n<tr><th>verdict</th><th>group</th><th>metric</th>"
                + "<th>baseline → current</th><th>change</th><th>evidence and gate</th></tr>\n"
            for (identity, verdict) in findings {
                let parts = report.describe(verdict)
                let style = verdict.verdict == .regression || verdict.verdict == .worse ? " class=\"worse\"" : ""
                html +=
                    "<tr><td\(style)>\(escape(verdict.verdict.rawValue))</td><td>\(escape(identity))</td>"
                    + "<td><code>\(escape(verdict.metric))</code></td><td>\(escape(parts.values))</td>"
                    + "<td>\(escape(parts.change))</td><td>\(escape(parts.evidence))</td></tr>\n"
            }
            html += "</table></div>\n"
        }
        var lists: [(String, [String])] = [
            (
                "Behaviour changes"
                    + (report.behaviourChangeAllowed ? " (allowed)" : " (gated: deterministic, exactly)"),
                report.comparisons.flatMap { comparison in
                    comparison.behaviourChanges.map {
                        "\(comparison.label) \($0.metric): \($0.baselineValues.joined(separator: "/")) → "
                            + "\($0.currentValues.joined(separator: "/")) (\($0.note))"
                    }
                }
            ),
            ("Failed rows, not compared", report.failedRows.map { "\($0.identity): \($0.row)" }),
            ("Only in the baseline, not compared", report.onlyInBaseline.map(\.label)),
            ("Only in the current file, not compared", report.onlyInCurrent.map(\.label)),
        ]
        lists.append(
            (
                "Warnings",
                report.comparisons.flatMap { comparison in comparison.warnings.map { "\(comparison.label): \($0)" } }
            )
        )
        for (title, items) in lists where !items.isEmpty {
            html += "<h3>\(escape(title))</h3>\n<ul>\n" + items.map { "<li>\(escape($0))</li>\n" }.joined() + "</ul>\n"
        }
        return html + "</section>\n"
    }
}
