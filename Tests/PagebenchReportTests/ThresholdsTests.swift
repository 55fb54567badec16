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
            """, file: "t.json")
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

    @Test func unknownMetricNamesTheLineColumnAndSuggests() throws {
        let error = try #require(parseError("{\n  \"metrics\": {\n    \"pages_per_sec\": {\"relative\": 0.1}\n  }\n}"))
        #expect(error.kind == .malformedInput)
        #expect(error.line == 3 && error.column == 5)
        #expect(error.description.hasPrefix("t.json:3:5: unknown metric \"pages_per_sec\"; did you mean \"pages_per_s\"?"))
    }

    @Test func deterministicMetricTakesNoThreshold() throws {
        let error = try #require(parseError("{\"metrics\": {\"pages\": {\"relative\": 0}}}"))
        #expect(error.message.contains("deterministic and compared exactly"))
        #expect(error.column == 14)
    }

    @Test func badValuesAreRejectedWithTheirPosition() throws {
        let negative = try #require(parseError("{\"metrics\": {\"pages_per_s\": {\"relative\": -0.1}}}"))
        #expect(negative.message.contains("must be a number ≥ 0"))
        #expect(negative.line == 1 && negative.column == 42)
        let percent = try #require(parseError("{\"metrics\": {\"pages_per_s\": {\"relative\": 500}}}"))
        #expect(percent.message.contains("write 0.05 for 5 %"))
        let confidence = try #require(parseError("{\"confidence\": 95}"))
        #expect(confidence.message.contains("between 0.5 and 0.999"))
        let type = try #require(parseError("{\"scale\": \"2\"}"))
        #expect(type.message.contains("must be a number"))
        let unknownKey = try #require(parseError("{\n\"sclae\": 2}"))
        #expect(unknownKey.line == 2 && unknownKey.column == 1)
        #expect(unknownKey.message.contains("unknown key \"sclae\""))
        let ruleKey = try #require(parseError("{\"metrics\": {\"pages_per_s\": {\"relativ\": 0.1}}}"))
        #expect(ruleKey.message.contains("expected \"relative\", \"absolute\" or \"ignore\""))
    }

    @Test func syntaxErrorsNameLineAndColumn() throws {
        let missingComma = try #require(parseError("{\n  \"scale\": 2\n  \"alpha\": 0.1\n}"))
        #expect(missingComma.line == 3 && missingComma.column == 3)
        #expect(missingComma.message.contains("expected ',' or '}'"))
        let trailing = try #require(parseError("{\"scale\": 2,}"))
        #expect(trailing.message.contains("expected a quoted key"))
        let duplicate = try #require(parseError("{\"scale\": 2, \"scale\": 3}"))
        #expect(duplicate.message.contains("appears twice"))
        let notObject = try #require(parseError("[1, 2]"))
        #expect(notObject.message.contains("expected a JSON object"))
        let empty = try #require(parseError(""))
        #expect(empty.message.contains("unexpected end of file"))
        let leadingZero = try #require(parseError("{\"scale\": 01}"))
        #expect(leadingZero.message.contains("invalid number"))
    }

    @Test func missingFileIsInputUnavailable() throws {
        #expect {
            _ = try Thresholds.read(from: "/nonexistent/thresholds.json")
        } throws: { ($0 as? MetricsError)?.kind == .inputUnavailable }
    }

    @Test func everyJudgedColumnHasADefaultAndTheReadmeDocumentsThem() throws {
        for column in Thresholds.judgedColumns {
            let rule = Thresholds.defaultRule(for: column)
            #expect(rule.relative > 0 && rule.relative <= 2, "\(column.name)")
        }
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        #expect(text.contains(Thresholds.defaultsMarkdownTable()), "README.md's default thresholds table is stale; paste Thresholds.defaultsMarkdownTable()")
    }
}
