/// `check --github`: the check as GitHub Actions sees it (docs/ci.md): workflow-command
/// annotations for what fails the check, and the markdown report for the job's step summary.
extension CheckReport {
    /// GitHub shows at most this many annotations of one level (error, warning) per step.
    package static let githubAnnotationsPerLevel = 10

    /// The most bytes GitHub keeps of one step's summary file (`$GITHUB_STEP_SUMMARY`): 1 MiB.
    package static let githubStepSummaryLimitBytes = 1 << 20

    /// One annotation: its level, title and message, unescaped.
    package struct GitHubAnnotation: Sendable, Equatable {
        package enum Level: String, Sendable, CaseIterable {
            case error, warning
        }

        package var level: Level
        package var title: String
        package var message: String

        /// The workflow command, escaped by GitHub's rules: in the message `%`, CR and LF as
        /// `%25`, `%0D`, `%0A`; in a property (the title) also `:` and `,` as `%3A`, `%2C`.
        package var command: String {
            "::\(level.rawValue) title=\(Self.escape(title, property: true))::\(Self.escape(message, property: false))"
        }

        static func escape(_ text: String, property: Bool) -> String {
            var escaped = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "%": escaped += "%25"
                case "\r": escaped += "%0D"
                case "\n": escaped += "%0A"
                case ":" where property: escaped += "%3A"
                case "," where property: escaped += "%2C"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped
        }
    }

    /// What fails the check, as annotations: each gated regression, each behaviour change
    /// (a warning when allowed), each failed row, and each group in one file only (an error
    /// with `--fail-on-unmatched`, else a warning). Not the reported (not gated) shifts: they
    /// do not fail the check and are in the step summary.
    package var githubAnnotations: [GitHubAnnotation] {
        var annotations: [GitHubAnnotation] = []
        for (identity, verdict) in allVerdicts where verdict.gated && verdict.verdict == .regression {
            let parts = describe(verdict)
            annotations.append(
                GitHubAnnotation(
                    level: .error,
                    title: "pagebench check: \(verdict.metric) regressed",
                    message: "\(identity): \(verdict.metric) \(parts.values) (\(parts.change)); \(parts.evidence)"
                )
            )
        }
        for (identity, change) in behaviourChanges {
            annotations.append(
                GitHubAnnotation(
                    level: behaviourChangeAllowed ? .warning : .error,
                    title:
                        "pagebench check: behaviour change of \(change.metric)\(behaviourChangeAllowed ? " (allowed)" : "")",
                    message:
                        "\(identity): \(change.metric) \(change.baselineValues.joined(separator: " / ")) → "
                        + "\(change.currentValues.joined(separator: " / ")) (\(change.note))"
                )
            )
        }
        for (identity, row) in failedRows {
            annotations.append(
                GitHubAnnotation(level: .error, title: "pagebench check: failed run", message: "\(identity): \(row)")
            )
        }
        for (file, groups) in [("baseline", onlyInBaseline), ("current", onlyInCurrent)] {
            for group in groups {
                annotations.append(
                    GitHubAnnotation(
                        level: unmatchedFails ? .error : .warning,
                        title: "pagebench check: group only in the \(file) file",
                        message:
                            "\(group.label): only in \(file == "baseline" ? baselineFile : currentFile), not compared"
                    )
                )
            }
        }
        return annotations
    }

    /// The annotations as workflow-command lines, at most ``githubAnnotationsPerLevel`` of a
    /// level (GitHub drops the rest): when there are more, the last one shown says how many
    /// more there are, and that the step summary lists them all.
    package var githubAnnotationLines: String {
        var lines: [String] = []
        for level in GitHubAnnotation.Level.allCases {
            let ofLevel = githubAnnotations.filter { $0.level == level }
            let limit = Self.githubAnnotationsPerLevel
            if ofLevel.count <= limit {
                lines += ofLevel.map(\.command)
            } else {
                lines += ofLevel.prefix(limit - 1).map(\.command)
                let more = ofLevel.count - (limit - 1)
                lines.append(
                    GitHubAnnotation(
                        level: level,
                        title: "pagebench check: \(more) more \(level.rawValue)s",
                        message:
                            "\(more) more \(level.rawValue)s than GitHub shows per step; the step summary and the report list them all"
                    ).command
                )
            }
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    /// What to append to a step summary file that already holds `existingBytes` bytes: the
    /// markdown report, cut at a line so that the file stays within `limitBytes`, the cut
    /// marked by a line that says how much was left out and how to see all of it. Empty when
    /// not even that line fits.
    package func githubStepSummary(
        existingBytes: Int,
        limitBytes: Int = CheckReport.githubStepSummaryLimitBytes
    ) -> String {
        let text = (existingBytes > 0 ? "\n" : "") + markdown
        let room = limitBytes - existingBytes
        let total = Array(text.utf8).count
        if total <= room { return text }
        func cutLine(_ cutBytes: Int) -> String {
            "\n**Cut here: \(cutBytes) of the report's \(total) bytes did not fit GitHub's 1 MiB step summary; "
                + "`pagebench check --format markdown` prints all of it.**\n"
        }
        // The cut line's length depends on the count it prints; the widest count is `total`.
        let closing = "\n</details>\n"
        let reserve = Array(cutLine(total).utf8).count + Array(closing.utf8).count
        guard room > reserve else { return "" }
        let bytes = Array(text.utf8)
        var end = room - reserve
        while end > 0 && bytes[end - 1] != UInt8(ascii: "\n") { end -= 1 }
        var kept = String(decoding: bytes[..<end], as: UTF8.self)
        // A cut inside the collapsed table would leave it open and swallow what follows.
        if kept.contains("<details>") && !kept.contains("</details>") { kept += closing }
        return kept + cutLine(total - end)
    }
}
