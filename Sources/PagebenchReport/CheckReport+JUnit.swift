import PagebenchBase

/// `check --format junit`: the check as JUnit XML, the test-report format Jenkins, GitLab and
/// Azure Pipelines read (docs/ci.md).
///
/// The common schema: `<testsuites>` of `<testsuite>` of `<testcase name classname time>`, a
/// failing case holding `<failure message type>`, a skipped one `<skipped message>`. Built on
/// the report's verdicts, never judged again, so a case fails exactly where the check fails:
///
/// - one suite per matched group (its label), one case per measured metric: a gated
///   regression fails (`type="regression"`); a gated improvement or unchanged metric passes; a
///   gated inconclusive one, a metric only reported (not gated) and one the thresholds ignore
///   are skipped, their message saying which and why;
/// - one case per behaviour change (a deterministic metric that differs, H3), failing
///   (`type="behaviour change"`) unless `--allow-behaviour-change` (then skipped);
/// - one case per row refused as a failed run, failing (`type="failed run"`);
/// - a suite `unmatched groups` with one case per group in one file only: failing with
///   `--fail-on-unmatched`, else skipped.
///
/// Failures carry the figures (medians, change, interval, p, repetitions, threshold) in their
/// message and every value in their text; every case's `system-out` has its figures.
/// `time` is 0: a check measures nothing itself. Only elements and attributes of Jenkins'
/// strictest JUnit schema (xunit's junit-10.xsd) are written.
extension CheckReport {
    /// One test case of the JUnit form.
    struct JUnitCase: Equatable {
        enum Outcome: Equatable {
            case passed
            case failed(type: String, message: String, details: String)
            case skipped(message: String)
        }

        var name: String
        var classname: String
        var outcome: Outcome
        /// The figures, for `system-out`.
        var output: String
    }

    /// One test suite of the JUnit form.
    struct JUnitSuite: Equatable {
        var name: String
        var cases: [JUnitCase]

        var failures: Int { cases.count { if case .failed = $0.outcome { true } else { false } } }
        var skipped: Int { cases.count { if case .skipped = $0.outcome { true } else { false } } }
    }

    /// The suites: one per matched group, then the unmatched groups (when there are any).
    var junitSuites: [JUnitSuite] {
        var suites = comparisons.map { comparison in
            JUnitSuite(name: comparison.label, cases: junitCases(comparison))
        }
        let unmatched =
            onlyInBaseline.map { ($0, "baseline") } + onlyInCurrent.map { ($0, "current") }
        if !unmatched.isEmpty {
            suites.append(
                JUnitSuite(
                    name: "unmatched groups",
                    cases: unmatched.map { group, file in
                        let what =
                            "only in the \(file) file (\(group.repetitions) repetition\(group.repetitions == 1 ? "" : "s")), not compared"
                        return JUnitCase(
                            name: group.label,
                            classname: "unmatched groups",
                            outcome: unmatchedFails
                                ? .failed(
                                    type: "unmatched group",
                                    message: what + " (--fail-on-unmatched)",
                                    details: what
                                )
                                : .skipped(message: what),
                            output: what
                        )
                    }
                )
            )
        }
        return suites
    }

    private func junitCases(_ comparison: IdentityComparison) -> [JUnitCase] {
        let group = comparison.label
        var cases: [JUnitCase] = comparison.metrics.map { verdict in
            let parts = describe(verdict)
            let figures = "\(parts.values) (\(parts.change)); \(parts.evidence)"
            // Only what fails the check fails; decided by the gate and the verdict the report holds.
            let outcome: JUnitCase.Outcome
            if verdict.verdict == .ignored {
                outcome = .skipped(message: "ignored by the thresholds")
            } else if !verdict.gated {
                // A reported figure in the words of every other format (issue 35's vocabulary):
                // `worse (reported)`, `better (reported)`, or its verdict.
                outcome = .skipped(
                    message: verdict.verdict.isShift
                        ? "\(verdict.verdict.rawValue), not gated: \(figures)"
                        : "reported, not gated (\(verdict.verdict.rawValue)): \(figures)"
                )
            } else if verdict.verdict == .regression {
                outcome = .failed(
                    type: "regression",
                    message: "\(verdict.metric) regressed: \(figures)",
                    details: junitDetails(group, verdict)
                )
            } else if verdict.verdict == .inconclusive {
                outcome = .skipped(message: "inconclusive: \(figures)")
            } else {
                outcome = .passed  // a gated improvement, or a change within the threshold
            }
            return JUnitCase(name: verdict.metric, classname: group, outcome: outcome, output: figures)
        }
        for change in comparison.behaviourChanges {
            let figures =
                "\(change.baselineValues.joined(separator: " / ")) → \(change.currentValues.joined(separator: " / ")) (\(change.note))"
            let details = [
                "group: \(group)", "metric: \(change.metric) (deterministic, compared exactly: H3)",
                "baseline: \(change.baselineValues.joined(separator: " / "))",
                "current: \(change.currentValues.joined(separator: " / "))", "why: \(change.note)",
            ].joined(separator: "\n")
            cases.append(
                JUnitCase(
                    name: change.metric,
                    classname: group,
                    outcome: behaviourChangeAllowed
                        ? .skipped(message: "behaviour change allowed (--allow-behaviour-change): \(figures)")
                        : .failed(
                            type: "behaviour change",
                            message: "\(change.metric) changed: \(figures)",
                            details: details
                        ),
                    output: figures
                )
            )
        }
        for row in comparison.failedRows {
            let which = row.split(separator: ":", maxSplits: 1).first.map(String.init) ?? row
            cases.append(
                JUnitCase(
                    name: "failed row (\(which))",
                    classname: group,
                    outcome: .failed(type: "failed run", message: row, details: "group: \(group)\n\(row)"),
                    output: row
                )
            )
        }
        return cases
    }

    /// Every figure of a failing verdict, one per line.
    private func junitDetails(_ group: String, _ verdict: MetricVerdict) -> String {
        func values(_ list: [Double]) -> String { list.map { NumberText.number($0) }.joined(separator: ", ") }
        func median(_ value: Double?) -> String { value.map { NumberText.value($0, unit: verdict.unit) } ?? "—" }
        var lines = [
            "group: \(group)",
            "metric: \(verdict.metric) (\(verdict.unit.isEmpty ? "count" : verdict.unit), \(verdict.polarity) is better)",
            "baseline: median \(median(verdict.baselineMedian)) of \(verdict.baselineValues.count): \(values(verdict.baselineValues))",
            "current: median \(median(verdict.currentMedian)) of \(verdict.currentValues.count): \(values(verdict.currentValues))",
            "change: \(verdict.relativeChange.map(NumberText.percent) ?? "—")",
        ]
        if let low = verdict.intervalLow, let high = verdict.intervalHigh {
            lines.append("interval: \(NumberText.percent(low)) … \(NumberText.percent(high))")
        }
        if let p = verdict.rankTestP { lines.append("rank test: p \(NumberText.number(p, digits: 2))") }
        lines.append(
            "threshold: ±\(NumberText.number(verdict.threshold * 100, digits: 3)) %, absolute floor "
                + NumberText.value(verdict.absoluteFloor, unit: verdict.unit)
        )
        if !verdict.gate.isEmpty { lines.append("gate: \(verdict.gate)") }
        if let note = verdict.note { lines.append("why: \(note)") }
        return lines.joined(separator: "\n")
    }

    /// The report as JUnit XML (see above).
    package var junit: String {
        let suites = junitSuites
        let tests = suites.reduce(0) { $0 + $1.cases.count }
        let failures = suites.reduce(0) { $0 + $1.failures }
        // No `skipped` on <testsuites>: Jenkins' xunit schema (junit-10.xsd) has it on
        // <testsuite> only, and every reader sums the suites'.
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="pagebench check" tests="\(tests)" failures="\(failures)" errors="0" time="0">

            """
        // Properties belong to a suite in the common schema (not to <testsuites>): each suite
        // says what it was checked against.
        var properties = "    <properties>\n"
        for (name, value) in [
            ("summary", summaryLine), ("baseline", baselineFile), ("current", currentFile), ("method", method),
        ] {
            properties += "      <property name=\"\(name)\" value=\"\(XMLText.attribute(value))\"/>\n"
        }
        properties += "    </properties>\n"
        for suite in suites {
            xml +=
                "  <testsuite name=\"\(XMLText.attribute(suite.name))\" tests=\"\(suite.cases.count)\" "
                + "failures=\"\(suite.failures)\" errors=\"0\" skipped=\"\(suite.skipped)\" time=\"0\">\n" + properties
            for testCase in suite.cases {
                xml +=
                    "    <testcase name=\"\(XMLText.attribute(testCase.name))\" "
                    + "classname=\"\(XMLText.attribute(testCase.classname))\" time=\"0\">\n"
                switch testCase.outcome {
                case .passed:
                    break
                case .failed(let type, let message, let details):
                    xml +=
                        "      <failure message=\"\(XMLText.attribute(message))\" type=\"\(XMLText.attribute(type))\">"
                        + XMLText.content(details) + "</failure>\n"
                case .skipped(let message):
                    xml += "      <skipped message=\"\(XMLText.attribute(message))\"/>\n"
                }
                xml += "      <system-out>\(XMLText.content(testCase.output))</system-out>\n"
                xml += "    </testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }
}
