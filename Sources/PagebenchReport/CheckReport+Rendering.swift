import Foundation
import PagebenchBase

extension CheckReport {
    /// The report as `format` (text, markdown, json or JUnit XML; csv is not offered for checks).
    package func rendered(_ format: OutputFormat) -> String {
        switch format {
        case .text, .csv: text
        case .markdown: markdown
        case .json: json
        case .junit: junit
        }
    }

    /// One line: the outcome and the counts.
    package var summaryLine: String {
        let regressions = count(.regression, gated: true)
        let improvements = count(.improvement, gated: true)
        let parts = [
            "\(regressions) regression\(regressions == 1 ? "" : "s")",
            "\(failedRows.count) failed row\(failedRows.count == 1 ? "" : "s")",
            "\(behaviourChangeCount) behaviour change\(behaviourChangeCount == 1 ? "" : "s")",
            "\(improvements) improvement\(improvements == 1 ? "" : "s")",
            "\(count(.withinThreshold, gated: true)) within threshold",
            "\(count(.inconclusive, gated: true)) inconclusive",
        ]
        let unmatched = onlyInBaseline.count + onlyInCurrent.count
        var line =
            "\(outcome.rawValue): " + parts.joined(separator: ", ")
            + " of gated metrics in \(comparisons.count) matched group"
            + (comparisons.count == 1 ? "" : "s")
        if unmatched > 0 { line += "; \(unmatched) unmatched" }
        // Neither gated nor reported: the thresholds said `"ignore": true`.
        if count(.ignored) > 0 { line += "; \(count(.ignored)) ignored by the thresholds" }
        let worse = count(.worse)
        let better = count(.better)
        if worse + better > 0 {
            line += "; reported, not gated: \(worse) worse and \(better) better beyond their thresholds"
        }
        return line
    }

    /// A verdict's figures as the reports print them: `before → after`, the change, and the
    /// evidence (interval, p, repetitions, threshold, note, gate). The JUnit and GitHub forms
    /// use it too, so every format says the same.
    func describe(_ verdict: MetricVerdict) -> (values: String, change: String, evidence: String) {
        let before = verdict.baselineMedian.map { NumberText.value($0, unit: verdict.unit) } ?? "—"
        let after = verdict.currentMedian.map { NumberText.value($0, unit: verdict.unit) } ?? "—"
        let change = verdict.relativeChange.map(NumberText.percent) ?? "—"
        var evidence: [String] = []
        if let low = verdict.intervalLow, let high = verdict.intervalHigh {
            evidence.append("CI \(NumberText.percent(low)) … \(NumberText.percent(high))")
        }
        if let p = verdict.rankTestP { evidence.append("p \(NumberText.number(p, digits: 2))") }
        evidence.append("n \(verdict.baselineValues.count)/\(verdict.currentValues.count)")
        evidence.append("threshold ±\(NumberText.number(verdict.threshold * 100, digits: 3)) %")
        if let note = verdict.note { evidence.append(note) }
        if !verdict.gate.isEmpty { evidence.append(verdict.gate) }
        return ("\(before) → \(after)", change, evidence.joined(separator: ", "))
    }

    /// The verdicts of `kind` of the gated metrics (`gated: true`) or of the reported ones.
    private func notable(_ kind: Verdict, gated: Bool) -> [(identity: String, verdict: MetricVerdict)] {
        allVerdicts.filter { $0.verdict.verdict == kind && $0.verdict.gated == gated }
    }

    /// The reported metrics that moved beyond their thresholds, worse ones first.
    private var reportedShifts: [(identity: String, verdict: MetricVerdict)] {
        notable(.worse, gated: false) + notable(.better, gated: false)
    }

    var behaviourChanges: [(identity: String, change: BehaviourChange)] {
        comparisons.flatMap { comparison in comparison.behaviourChanges.map { (comparison.label, $0) } }
    }

    private var warnings: [(identity: String, warning: String)] {
        comparisons.flatMap { comparison in comparison.warnings.map { (comparison.label, $0) } }
    }

    /// Plain text for a terminal: summary, then every notable finding, then unmatched rows and warnings.
    package var text: String {
        var lines = [
            "pagebench check: " + summaryLine, "baseline: \(baselineFile)", "current:  \(currentFile)",
            "method:   \(method)",
        ]
        lines += gates.map { "          \($0)" }
        let sections: [(String, [(identity: String, verdict: MetricVerdict)])] = [
            ("Regressions", notable(.regression, gated: true)), ("Improvements", notable(.improvement, gated: true)),
            ("Inconclusive", notable(.inconclusive, gated: true)),
            ("Reported, not gated (beyond the threshold; another process moves these)", reportedShifts),
        ]
        for (title, found) in sections where !found.isEmpty {
            lines.append("")
            lines.append("\(title) (\(found.count)):")
            for (identity, verdict) in found {
                let parts = describe(verdict)
                // The reported section names its verdict: the same words as markdown and JSON.
                let label = verdict.gated ? "" : " \(verdict.verdict.rawValue)"
                lines.append(
                    "  \(identity)  \(verdict.metric)\(label)  \(parts.values)  \(parts.change)  (\(parts.evidence))"
                )
            }
        }
        if !failedRows.isEmpty {
            lines.append("")
            lines.append("Failed rows, not compared (\(failedRows.count)):")
            for (identity, row) in failedRows { lines.append("  \(identity)  \(row)") }
        }
        if !behaviourChanges.isEmpty {
            lines.append("")
            lines.append(
                "Behaviour changes (\(behaviourChanges.count))\(behaviourChangeAllowed ? ", allowed" : "; gated: deterministic"):"
            )
            for (identity, change) in behaviourChanges {
                lines.append(
                    "  \(identity)  \(change.metric)  \(change.baselineValues.joined(separator: "/")) → "
                        + "\(change.currentValues.joined(separator: "/"))  (\(change.note))"
                )
            }
        }
        for (title, groups) in [("Only in baseline", onlyInBaseline), ("Only in current", onlyInCurrent)]
        where !groups.isEmpty {
            lines.append("")
            lines.append("\(title) (\(groups.count)), not compared:")
            for group in groups {
                lines.append("  \(group.label)  (\(group.repetitions) repetition\(group.repetitions == 1 ? "" : "s"))")
            }
        }
        if !warnings.isEmpty {
            lines.append("")
            lines.append("Warnings:")
            for (identity, warning) in warnings { lines.append("  \(identity): \(warning)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// GitHub-flavoured markdown for a CI log or a pull request comment.
    package var markdown: String {
        func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
        var lines = [
            "### pagebench check: \(fails ? "❌" : "✅") \(summaryLine)", "",
            "Baseline `\(baselineFile)`, current `\(currentFile)`.", "",
            "Method: \(method).", "",
        ]
        lines += gates.map { "- \($0)" } + [""]
        let findings =
            notable(.regression, gated: true) + notable(.improvement, gated: true) + notable(.inconclusive, gated: true)
            + reportedShifts
        if !findings.isEmpty {
            lines += [
                "| verdict | group | metric | baseline → current | change | evidence |",
                "| --- | --- | --- | --- | --- | --- |",
            ]
            for (identity, verdict) in findings {
                let parts = describe(verdict)
                let label = verdict.verdict == .regression ? "**regression**" : verdict.verdict.rawValue
                lines.append(
                    "| \(label) | \(cell(identity)) "
                        + "| `\(verdict.metric)` | \(cell(parts.values)) | \(parts.change) | \(cell(parts.evidence)) |"
                )
            }
            lines.append("")
        }
        if !failedRows.isEmpty {
            lines.append("**Failed rows** (not compared):")
            lines.append("")
            for (identity, row) in failedRows { lines.append("- \(cell(identity)): \(row)") }
            lines.append("")
        }
        if !behaviourChanges.isEmpty {
            lines += [
                "**Behaviour changes** (deterministic metrics\(behaviourChangeAllowed ? ", allowed" : "; gated: deterministic")):",
                "",
                "| group | metric | baseline | current | note |", "| --- | --- | --- | --- | --- |",
            ]
            for (identity, change) in behaviourChanges {
                lines.append(
                    "| \(cell(identity)) | `\(change.metric)` | \(change.baselineValues.joined(separator: " / ")) "
                        + "| \(change.currentValues.joined(separator: " / ")) | \(change.note) |"
                )
            }
            lines.append("")
        }
        for (title, groups) in [("Only in baseline", onlyInBaseline), ("Only in current", onlyInCurrent)]
        where !groups.isEmpty {
            lines.append("**\(title)** (not compared): " + groups.map { "`\($0.label)`" }.joined(separator: ", "))
            lines.append("")
        }
        if !warnings.isEmpty {
            lines.append("**Warnings:**")
            lines.append("")
            for (identity, warning) in warnings { lines.append("- \(cell(identity)): \(warning)") }
            lines.append("")
        }
        lines += [
            "<details><summary>All \(allVerdicts.count) measured comparisons</summary>", "",
            "| group | metric | verdict | baseline → current | change | evidence |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for (identity, verdict) in allVerdicts {
            let parts = describe(verdict)
            lines.append(
                "| \(cell(identity)) | `\(verdict.metric)` | \(verdict.verdict.rawValue) | \(cell(parts.values)) "
                    + "| \(parts.change) | \(cell(parts.evidence)) |"
            )
        }
        lines += ["", "</details>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every field, as pretty-printed JSON with sorted keys; infinite changes are written as strings.
    package var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+inf",
            negativeInfinity: "-inf",
            nan: "nan"
        )
        struct Envelope: Encodable {
            var summary: String
            var outcome: Outcome
            var fails: Bool
            var exitStatus: Int32
            var report: CheckReport
        }
        do {
            let data = try encoder.encode(
                Envelope(summary: summaryLine, outcome: outcome, fails: fails, exitStatus: exitStatus, report: self)
            )
            return String(decoding: data, as: UTF8.self) + "\n"
        } catch {
            // Every field is a plain value; encoding cannot fail short of a Foundation bug.
            preconditionFailure("encoding a CheckReport failed: \(error)")
        }
    }
}
