import Foundation
import PagebenchMetrics
import Testing

@testable import PagebenchReport

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `check --format junit` and `check --github` (docs/ci.md): built on the report's verdicts.
@Suite struct CheckReportCITests {
    /// Element names, attributes and text of a parsed XML document, and the first parse error.
    final class Collector: NSObject, XMLParserDelegate {
        struct Element {
            var name: String
            var attributes: [String: String]
            var text = ""
            var parent: Int?
        }

        var elements: [Element] = []
        var open: [Int] = []
        var error: Error?

        func parser(
            _ parser: XMLParser,
            didStartElement elementName: String,
            namespaceURI: String?,
            qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.append(Element(name: elementName, attributes: attributes, parent: open.last))
            open.append(elements.count - 1)
        }

        func parser(
            _ parser: XMLParser,
            didEndElement elementName: String,
            namespaceURI: String?,
            qualifiedName: String?
        ) {
            open.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let last = open.last { elements[last].text += string }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { error = parseError }

        func named(_ name: String) -> [Element] { elements.filter { $0.name == name } }

        /// The test cases with a child of `outcome` (`failure`, `skipped`).
        func cases(with outcome: String) -> [Element] {
            let parents = Set(named(outcome).compactMap(\.parent))
            return elements.indices.filter { parents.contains($0) }.map { elements[$0] }
        }
    }

    static func parse(_ xml: String) -> Collector {
        let collector = Collector()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = collector
        if !parser.parse(), collector.error == nil {
            collector.error = parser.parserError ?? CocoaError(.coderReadCorrupt)
        }
        return collector
    }

    /// A check with one gated regression (pages/s, with wall-clock gating), one behaviour
    /// change (pages), and the rest unchanged or only reported.
    static func regressionReport(allowBehaviourChange: Bool = false) throws -> CheckReport {
        var current = SyntheticResults()
        current.pagesPerSecond = 8_000
        current.pages = 1_300
        var thresholds = Thresholds()
        thresholds.gateWallClock = true
        return RegressionChecker(thresholds: thresholds).check(
            baseline: try roundTrip(SyntheticResults().rows(seed: 1)),
            current: try roundTrip(current.rows(seed: 2)),
            baselineFile: "baseline.csv",
            currentFile: "current.csv",
            allowBehaviourChange: allowBehaviourChange
        )
    }

    /// One case per measured metric and behaviour change; failures where the check fails
    /// (the gated regression, the behaviour change), skipped for what is inconclusive or not
    /// gated; the counts on `<testsuites>` and `<testsuite>` are the cases'.
    @Test func h3h10h12JUnitHasACasePerComparisonAndFailsWhereTheCheckFails() throws {
        let report = try Self.regressionReport()
        #expect(report.fails)
        let document = Self.parse(report.junit)
        #expect(document.error == nil)
        let cases = document.named("testcase")
        let comparison = try #require(report.comparisons.first)
        #expect(cases.count == comparison.metrics.count + comparison.behaviourChanges.count)
        let failed = document.cases(with: "failure")
        let regressions = comparison.metrics.filter { $0.gated && $0.verdict == .regression }.map(\.metric)
        #expect(regressions.contains("pages_per_s"))
        let changes = comparison.behaviourChanges.map(\.metric)
        #expect(changes.contains("pages"))
        #expect(failed.map { $0.attributes["name"] ?? "" } == regressions + changes)
        let failures = document.named("failure")
        #expect(Set(failures.map { $0.attributes["type"] ?? "" }) == ["regression", "behaviour change"])
        let regression = try #require(failures.first { $0.attributes["type"] == "regression" })
        for figure in ["baseline: median", "current: median", "change: −", "interval: ", "threshold: ±", "gate: gated"]
        {
            #expect(regression.text.contains(figure), "\(figure) in \(regression.text)")
        }
        #expect(regression.attributes["message"]?.hasPrefix("pages_per_s regressed: ") == true)
        let skippedExpected = comparison.metrics.count {
            !$0.gated || $0.verdict == .inconclusive || $0.verdict == .ignored
        }
        #expect(document.cases(with: "skipped").count == skippedExpected)
        let root = try #require(document.named("testsuites").first)
        #expect(root.attributes["tests"] == String(cases.count))
        #expect(root.attributes["failures"] == String(regressions.count + changes.count))
        #expect(root.attributes["skipped"] == nil)  // not in junit-10.xsd's <testsuites>
        #expect(
            document.named("testsuite").compactMap { Int($0.attributes["skipped"] ?? "") }.reduce(0, +)
                == skippedExpected
        )
        let suite = try #require(document.named("testsuite").first)
        #expect(suite.attributes["name"] == comparison.label)
        #expect(suite.attributes["failures"] == String(regressions.count + changes.count))
        #expect(cases.allSatisfy { $0.attributes["classname"] == comparison.label && $0.attributes["time"] == "0" })
    }

    /// An allowed behaviour change does not fail the check, so it is skipped, not failed.
    @Test func h3h12AnAllowedBehaviourChangeIsSkipped() throws {
        let document = Self.parse(try Self.regressionReport(allowBehaviourChange: true).junit)
        #expect(!document.cases(with: "failure").contains { $0.attributes["name"] == "pages" })
        #expect(document.cases(with: "skipped").contains { $0.attributes["name"] == "pages" })
    }

    /// A check that passes has no failure; an unmatched group is a skipped case, failing with
    /// `--fail-on-unmatched`.
    @Test func h12UnmatchedGroupsAreSkippedOrFailedAsTheCheckSays() throws {
        var other = SyntheticResults()
        other.scenario = "other"
        let baseline = try roundTrip(SyntheticResults().rows(seed: 1) + other.rows(seed: 3))
        let current = try roundTrip(SyntheticResults().rows(seed: 2))
        var report = RegressionChecker().check(
            baseline: baseline,
            current: current,
            baselineFile: "b.csv",
            currentFile: "c.csv"
        )
        #expect(!report.fails)
        var document = Self.parse(report.junit)
        #expect(document.named("failure").isEmpty)
        #expect(document.cases(with: "skipped").contains { $0.attributes["classname"] == "unmatched groups" })
        report.unmatchedFails = true
        #expect(report.fails)
        document = Self.parse(report.junit)
        #expect(document.cases(with: "failure").map { $0.attributes["classname"] } == ["unmatched groups"])
    }

    /// Labels and files can hold anything: markup, `]]>`, quotes, control characters. The
    /// document stays well-formed and every attribute reads back as written (controls as
    /// visible `\u{…}` escapes, which XML 1.0 cannot hold otherwise).
    @Test func junitEscapesHostileText() throws {
        let hostile = "a\"b' <c> & ]]> </testcase>\u{1}\u{1B}[2J\u{7F}\u{FFFE}\r\n\tend"
        var report = try Self.regressionReport()
        report.comparisons[0].scenario = hostile
        report.comparisons[0].behaviourChanges[0].note = hostile
        report.baselineFile = hostile
        report.onlyInCurrent = [
            UnmatchedIdentity(scenario: hostile, configHash: "x", pagerKind: "loop", concurrency: 1, repetitions: 1)
        ]
        let xml = report.junit
        #expect(!xml.contains("]]>"))
        #expect(!xml.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" })
        let document = Self.parse(xml)
        #expect(document.error == nil, "\(String(describing: document.error))")
        let readable = "a\"b' <c> & ]]> </testcase>\\u{1}\\u{1B}[2J\\u{7F}\\u{FFFE}\r\n\tend"
        let suite = try #require(document.named("testsuite").first)
        #expect(
            suite.attributes["name"] == report.comparisons[0].label.replacingOccurrences(of: hostile, with: readable)
        )
        let property = document.named("property").first { $0.attributes["name"] == "baseline" }
        #expect(property?.attributes["value"] == readable)
        let behaviour = try #require(document.named("failure").first { $0.attributes["type"] == "behaviour change" })
        #expect(behaviour.text.contains(readable))
    }

    /// GitHub's workflow-command rules: `%`, CR and LF escaped in the message; also `:` and
    /// `,` in a property.
    @Test func githubAnnotationsEscapeByTheWorkflowCommandRules() {
        let annotation = CheckReport.GitHubAnnotation(
            level: .error,
            title: "a: b, 100% \r\n",
            message: "x: y, 50%\r\nz"
        )
        #expect(annotation.command == "::error title=a%3A b%2C 100%25 %0D%0A::x: y, 50%25%0D%0Az")
    }

    /// Errors for the gated regression and the behaviour change; a warning instead when the
    /// change is allowed; nothing for reported shifts.
    @Test func h10h12GithubAnnotatesWhatFailsTheCheck() throws {
        let report = try Self.regressionReport()
        let regressions = report.count(.regression, gated: true)
        let annotations = report.githubAnnotations
        let changes = report.behaviourChangeCount
        #expect(annotations.map(\.level) == Array(repeating: .error, count: regressions + changes))
        #expect(annotations[0].title == "pagebench check: pages_per_s regressed")
        #expect(annotations[0].message.hasPrefix(report.comparisons[0].label + ": pages_per_s "))
        #expect(annotations[0].message.contains("−2"))
        #expect(annotations[regressions].title == "pagebench check: behaviour change of pages")
        let allowed = try Self.regressionReport(allowBehaviourChange: true).githubAnnotations
        #expect(
            allowed.map(\.level) == Array(repeating: .error, count: regressions)
                + Array(repeating: .warning, count: changes)
        )
        var slower = SyntheticResults()
        slower.pagesPerSecond = 8_000
        let ungated = RegressionChecker().check(
            baseline: try roundTrip(SyntheticResults().rows(seed: 1)),
            current: try roundTrip(slower.rows(seed: 2)),
            baselineFile: "b.csv",
            currentFile: "c.csv"
        )
        #expect(ungated.githubAnnotations.isEmpty)
        #expect(ungated.githubAnnotationLines.isEmpty)
    }

    /// GitHub shows 10 annotations of a level per step: the 10th says how many more there are.
    @Test func githubAnnotationsStopAtGitHubsLimitAndSaySo() throws {
        var report = try Self.regressionReport()
        report.onlyInCurrent = (1...15).map {
            UnmatchedIdentity(scenario: "s\($0)", configHash: "h", pagerKind: "loop", concurrency: 1, repetitions: 1)
        }
        let lines = report.githubAnnotationLines.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("::warning ") }.count == 10)
        #expect(lines.last?.hasPrefix("::warning title=pagebench check%3A 6 more warnings::") == true)
        #expect(
            lines.filter { $0.hasPrefix("::warning ") }.dropLast().allSatisfy {
                $0.contains("only in the current file")
            }
        )
        #expect(
            lines.filter { $0.hasPrefix("::error ") }.count == report.count(.regression, gated: true)
                + report.behaviourChangeCount
        )
    }

    /// The step summary is the markdown report while it fits; past the limit it is cut at a
    /// line, with a line that says what was cut, the collapsed table closed, and the file
    /// never beyond the limit; when not even that fits, nothing is appended.
    @Test func githubStepSummaryStaysWithinTheLimit() throws {
        let report = try Self.regressionReport()
        let markdown = report.markdown
        #expect(report.githubStepSummary(existingBytes: 0) == markdown)
        #expect(report.githubStepSummary(existingBytes: 10) == "\n" + markdown)
        let size = markdown.utf8.count
        for existing in [0, 100, size / 2] {
            let limit = size - 200
            let summary = report.githubStepSummary(existingBytes: existing, limitBytes: limit)
            #expect(existing + summary.utf8.count <= limit, "existing \(existing)")
            #expect(summary.contains("**Cut here: "))
            #expect(summary.contains("did not fit GitHub's 1 MiB step summary"))
            if summary.contains("<details>") { #expect(summary.contains("</details>")) }
        }
        #expect(report.githubStepSummary(existingBytes: 1000, limitBytes: 1010).isEmpty)
    }
}
