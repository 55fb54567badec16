import Foundation
import PagebenchMetrics
import Testing

@testable import PagebenchReport

@Suite struct ThresholdsTests {
    func parseError(_ text: String) -> MetricsError? {
        do {
            _ = try Thresholds.parse(text, file: "t.json")
            return nil
        } catch let error as MetricsError {
            return error
        } catch {
            return nil
        }
    }

    @Test func parsesEveryKey() throws {
        let thresholds = try Thresholds.parse(
            """
            {
              "scale": 2, "confidence": 0.9, "alpha": 0.01, "resamples": 500, "seed": 7,
              "metrics": {
                "pages_per_s": { "relative": 0.1 },
                "errors_other": { "absolute": 3 },
                "page_latency_max_ns": { "ignore": true }
              }
            }
            """,
            file: "t.json"
        )
        #expect(thresholds.scale == 2)
        #expect(thresholds.confidence == 0.9)
        #expect(thresholds.alpha == 0.01)
        #expect(thresholds.resamples == 500)
        #expect(thresholds.seed == 7)
        #expect(thresholds.metrics["pages_per_s"] == .init(relative: 0.1))
        #expect(thresholds.metrics["errors_other"] == .init(relative: 0.25, absolute: 3))
        #expect(thresholds.metrics["page_latency_max_ns"]?.ignore == true)
        let column = try #require(ResultRow.columnDescriptors.first { $0.name == "items_per_s" })
        #expect(thresholds.rule(for: column).relative == 0.10)  // default 5 % × scale 2
    }

    /// Issue 35: a latency's absolute floor takes a duration in the one grammar (`2ms`, `1m`).
    @Test func aLatencysAbsoluteFloorTakesADuration() throws {
        let thresholds = try Thresholds.parse(
            #"{"metrics": {"page_latency_p99_ns": {"absolute": "2ms"}, "drain_latency_p99_ns": {"absolute": "1m"}}}"#,
            file: "t.json"
        )
        #expect(thresholds.metrics["page_latency_p99_ns"]?.absolute == 2_000_000)
        #expect(thresholds.metrics["drain_latency_p99_ns"]?.absolute == 60_000_000_000)
        let error = try #require(parseError(#"{"metrics": {"page_latency_p99_ns": {"absolute": "2 fortnights"}}}"#))
        #expect(error.message.contains("or a duration (ns, us, ms, s, m or h"), "\(error.message)")
    }

    @Test func unknownMetricNamesTheFieldAndSuggests() throws {
        let error = try #require(parseError("{\n  \"metrics\": {\n    \"pages_per_sec\": {\"relative\": 0.1}\n  }\n}"))
        #expect(error.kind == .malformedInput)
        #expect(
            error.description.hasPrefix(
                "t.json: metrics.pages_per_sec: unknown metric \"pages_per_sec\"; did you mean \"pages_per_s\"?"
            )
        )
    }

    @Test func deterministicMetricTakesNoThreshold() throws {
        let error = try #require(parseError("{\"metrics\": {\"pages\": {\"relative\": 0}}}"))
        #expect(error.message.hasPrefix("metrics.pages: "))
        #expect(error.message.contains("deterministic and compared exactly"))
    }

    @Test func badValuesAreRejectedNamingTheField() throws {
        let negative = try #require(parseError("{\"metrics\": {\"pages_per_s\": {\"relative\": -0.1}}}"))
        #expect(negative.message == "metrics.pages_per_s.relative: must be a number ≥ 0 (0.05 means 5 %)")
        let percent = try #require(parseError("{\"metrics\": {\"pages_per_s\": {\"relative\": 500}}}"))
        #expect(percent.message.hasPrefix("metrics.pages_per_s.relative: "))
        #expect(percent.message.contains("write 0.05 for 5 %"))
        // Issue 27: a bare 5 was taken as 500 %; a relative threshold above 1 is refused unless written as a percentage.
        let five = try #require(parseError("{\"metrics\": {\"pages_per_s\": {\"relative\": 5}}}"))
        #expect(five.message.contains("is 5, i.e. 500 %; write 0.05 for 5 % (or \"5%\")"))
        #expect(parseError("{\"metrics\": {\"pages_per_s\": {\"relative\": \"5%\"}}}") == nil)
        #expect(parseError("{\"metrics\": {\"page_latency_max_ns\": {\"relative\": \"300%\"}}}") == nil)
        #expect(parseError("{\"metrics\": {\"pages_per_s\": {\"relative\": \"5\"}}}") != nil)
        let confidence = try #require(parseError("{\"confidence\": 95}"))
        #expect(confidence.message.hasPrefix("confidence: must be between 0.5 and 0.999"))
        let type = try #require(parseError("{\"scale\": \"2\"}"))
        #expect(type.message.hasPrefix("scale: must be a number"))
        let whole = try #require(parseError("{\"resamples\": 500.5}"))
        #expect(whole.message == "resamples: must be a whole number")
        let unknownKey = try #require(parseError("{\n\"sclae\": 2}"))
        #expect(unknownKey.message.hasPrefix("sclae: unknown key \"sclae\"; expected one of \"scale\""))
        let ruleKey = try #require(parseError("{\"metrics\": {\"pages_per_s\": {\"relativ\": 0.1}}}"))
        #expect(ruleKey.message.hasPrefix("metrics.pages_per_s.relativ: "))
        #expect(ruleKey.message.contains("expected \"relative\", \"absolute\", \"ignore\" or \"gate\""))
        let ignore = try #require(parseError("{\"metrics\": {\"pages_per_s\": {\"ignore\": 1}}}"))
        #expect(ignore.message == "metrics.pages_per_s.ignore: must be true or false")
        let notRule = try #require(parseError("{\"metrics\": {\"pages_per_s\": 0.1}}"))
        #expect(notRule.message.contains("must be an object like {\"relative\": 0.1}"))
        let notMetrics = try #require(parseError("{\"metrics\": []}"))
        #expect(notMetrics.message.hasPrefix("metrics: must be an object mapping column names to rules"))
    }

    /// H10: `gateWallClock` and a metric's `gate` are read, and their values checked.
    @Test func gateKeysAreReadAndChecked() throws {
        let thresholds = try Thresholds.parse(
            """
            {"gateWallClock": true, "metrics": {"pages_per_s": {"gate": true}, "instructions_per_page": {"gate": false, "relative": 0.01}}}
            """,
            file: "t.json"
        )
        #expect(thresholds.gateWallClock)
        #expect(thresholds.metrics["pages_per_s"] == .init(relative: 0.05, gate: true))
        #expect(thresholds.metrics["instructions_per_page"] == .init(relative: 0.01, gate: false))
        let notBool = try #require(parseError("{\"gateWallClock\": 1}"))
        #expect(notBool.message.hasPrefix("gateWallClock: must be true or false"))
        let gate = try #require(parseError("{\"metrics\": {\"pages_per_s\": {\"gate\": \"yes\"}}}"))
        #expect(gate.message.hasPrefix("metrics.pages_per_s.gate: must be true or false"))
    }

    /// H10: by default exactly what another process cannot move is gated, and every verdict
    /// says why it is gated or only reported.
    @Test func h10DefaultGatesAreTheProcessOwnAndCountedFigures() throws {
        let thresholds = Thresholds()
        func column(_ name: String) throws -> ColumnDescriptor {
            try #require(ResultRow.columnDescriptors.first { $0.name == name })
        }
        let gated = Thresholds.judgedColumns.filter { thresholds.gate(for: $0).gated }.map(\.name)
        #expect(gated.contains("instructions_per_page"))
        #expect(gated.contains("errors_other") && gated.contains("retries"))
        for name in [
            "pages_per_s", "page_latency_p50_ns", "cpu_user_s", "peak_rss_bytes", "allocations_per_page",
            "harness_overhead_ratio",
        ] {
            #expect(!gated.contains(name), "\(name)")
            #expect(thresholds.gate(for: try column(name)).reason.hasPrefix("reported: "), "\(name)")
        }
        for name in ["missed_starts", "late_starts", "pages_after_cancel"] {
            #expect(
                thresholds.gate(for: try column(name)).reason.hasPrefix("reported: counts that follow timing"),
                "\(name)"
            )
        }
        #expect(thresholds.gate(for: try column("allocations_per_page"), exactAllocations: true).gated)
        #expect(thresholds.gate(for: try column("page_latency_p50_ns"), remoteTarget: true).gated)
        #expect(thresholds.rule(for: try column("page_latency_p50_ns"), remoteTarget: true).relative == 0.5)
        #expect(!thresholds.gate(for: try column("page_latency_p90_ns"), remoteTarget: true).gated)
        var optedIn = thresholds
        optedIn.gateWallClock = true
        #expect(Thresholds.judgedColumns.allSatisfy { optedIn.gate(for: $0).gated })
    }

    @Test func syntaxErrorsAreMalformedInput() throws {
        // Foundation's JSON reader, like for scenario files: it tolerates a trailing comma.
        for text in ["{\n  \"scale\": 2\n  \"alpha\": 0.1\n}", "", "{\"scale\": 2"] {
            let error = try #require(parseError(text), "\(text)")
            #expect(error.kind == .malformedInput)
            #expect(error.message.hasPrefix("not valid JSON"), "\(text): \(error.message)")
        }
        // A malformed number is found when its field is read, and named.
        let leadingZero = try #require(parseError("{\"scale\": 01}"))
        #expect(leadingZero.message.hasPrefix("scale: must be a number"))
        let notObject = try #require(parseError("[1, 2]"))
        #expect(notObject.message.contains("expected a JSON object"))
    }

    @Test func missingFileIsInputUnavailable() throws {
        #expect {
            _ = try Thresholds.read(from: "/nonexistent/thresholds.json")
        } throws: { ($0 as? MetricsError)?.kind == .inputUnavailable }
    }

    /// The table of default rules and gates lives in docs/gate.md (H10), where `check` is documented.
    @Test func everyJudgedColumnHasADefaultAndDocsGateDocumentsThem() throws {
        for column in Thresholds.judgedColumns {
            let rule = Thresholds.defaultRule(for: column)
            #expect(rule.relative > 0 && rule.relative <= 2, "\(column.name)")
        }
        let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/gate.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        #expect(
            text.contains(Thresholds.defaultsMarkdownTable()),
            "docs/gate.md's default thresholds table is stale; paste `pagebench check --list-thresholds` (Thresholds.defaultsMarkdownTable())"
        )
    }
}
