import Foundation
import PagebenchBase
import PagebenchMetrics
import Testing

@testable import PagebenchReport

/// `pagebench export` (docs/ci.md): github-action-benchmark, BMF, OpenMetrics and .hgrm from results rows.
@Suite struct ResultExportTests {
    static func export(_ columns: [String]? = nil) throws -> ResultExport {
        var other = SyntheticResults()
        other.scenario = "clustered"
        other.pagesPerSecond = 5_000
        return try ResultExport(
            rows: roundTrip(SyntheticResults().rows(seed: 1) + other.rows(seed: 2)),
            columns: columns
        )
    }

    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    /// Each polarity in its own file: pages/s (higher is better) only in the bigger-is-better
    /// array, latency only in the smaller-is-better one; the value is the median of the
    /// repetitions, `range` half their spread, with the column's unit.
    @Test func githubActionBenchmarkSplitsByPolarityWithMediansAndRanges() throws {
        let export = try Self.export()
        let rows = export.groups[0].rows
        let bigger = try #require(try Self.json(export.githubActionBenchmark(.higherIsBetter)) as? [[String: Any]])
        let smaller = try #require(try Self.json(export.githubActionBenchmark(.lowerIsBetter)) as? [[String: Any]])
        let name = "\(export.groups[0].identity.description) pages_per_s"
        let pages = try #require(bigger.first { $0["name"] as? String == name })
        let values = rows.map(\.pagesPerSecond)
        #expect(pages["value"] as? Double == Statistics.median(values))
        #expect(pages["unit"] as? String == "pages/s")
        #expect(pages["range"] as? String == "± " + NumberText.number((values.max()! - values.min()!) / 2))
        #expect(
            smaller.contains { $0["name"] as? String == "\(export.groups[0].identity.description) page_latency_p99_ns" }
        )
        #expect(!smaller.contains { ($0["name"] as? String)?.hasSuffix(" pages_per_s") == true })
        #expect(!bigger.contains { ($0["name"] as? String)?.hasSuffix(" page_latency_p99_ns") == true })
        // Neutral columns (duration_s) have no better direction: in neither file.
        #expect(!(bigger + smaller).contains { ($0["name"] as? String)?.hasSuffix(" duration_s") == true })
        #expect((bigger + smaller).allSatisfy { Set($0.keys) == ["name", "unit", "value", "range", "extra"] })
    }

    /// BMF: one benchmark per group, one measure per column, the median with the smallest and
    /// largest repetition as lower and upper values.
    @Test func bmfCarriesTheRepetitionsSpread() throws {
        let export = try Self.export(["pages_per_s", "pages"])
        let document = try #require(try Self.json(export.bencherMetricFormat) as? [String: [String: [String: Double]]])
        #expect(document.count == 2)
        let group = export.groups[1]
        let measure = try #require(document[group.identity.description]?["pages_per_s"])
        let values = group.rows.map(\.pagesPerSecond)
        #expect(
            measure == [
                "value": Statistics.median(values)!, "lower_value": values.min()!, "upper_value": values.max()!,
            ]
        )
        #expect(
            document[group.identity.description]?["pages"] == [
                "value": 1_200, "lower_value": 1_200, "upper_value": 1_200,
            ]
        )
        #expect(document[group.identity.description]?.count == 2)
    }

    @Test func anUnknownOrTextColumnIsRefused() throws {
        #expect(throws: MetricsError.self) { try Self.export(["scenario"]) }
        #expect(throws: MetricsError.self) { try Self.export(["no_such_column"]) }
    }

    /// OpenMetrics: base units (ns → seconds, `_per_s` → `_per_second`), a `# UNIT` only where
    /// the name ends in it, label values escaped, `# EOF` last.
    @Test func openMetricsUsesBaseUnitsAndEndsWithEOF() throws {
        var rows = try roundTrip(SyntheticResults().rows(seed: 1))
        for index in rows.indices { rows[index].label = "quote \" back \\ slash" }
        let text = try ResultExport(rows: rows, columns: ["pages_per_s", "page_latency_p50_ns", "peak_rss_bytes"])
            .openMetrics
        #expect(text.hasSuffix("\n# EOF\n"))
        let lines = text.split(separator: "\n")
        #expect(lines.contains("# TYPE pagebench_pages_per_second gauge"))
        #expect(!lines.contains { $0.hasPrefix("# UNIT pagebench_pages_per_second") })
        #expect(lines.contains("# UNIT pagebench_page_latency_p50_seconds seconds"))
        #expect(lines.contains("# UNIT pagebench_peak_rss_bytes bytes"))
        let sample = try #require(lines.first { $0.hasPrefix("pagebench_page_latency_p50_seconds{") })
        #expect(sample.contains("label=\"quote \\\" back \\\\ slash\""))
        let median = Statistics.median(rows.map { Double($0.pageLatency!.p50Nanoseconds) })!
        #expect(Double(sample.split(separator: " ").last!) == median / 1e9)
        #expect(!lines.contains { $0.hasPrefix("# HELP") && $0.contains("\"") })
    }

    /// .hgrm: the library's percentile distribution of the row's own histograms (page and
    /// drain latency, read back from their cells), not one rebuilt from percentiles; a row
    /// without a histogram is skipped for it.
    @Test func h12HgrmWritesEachRowsHistogram() throws {
        var recorder = LatencyRecorder()
        for value in 1...2_000 { recorder.record(nanoseconds: UInt64(value) * 1_000) }
        var drains = LatencyRecorder()
        for value in 1...30 { drains.record(nanoseconds: UInt64(value) * 1_000_000) }
        var rows = try roundTrip(SyntheticResults().rows(seed: 1))
        rows[0].pageLatencyHistogram = recorder.serialized()
        rows[1].drainLatencyHistogram = drains.serialized()
        rows = try roundTrip(rows)
        let (files, skipped) = try ResultExport(rows: rows).percentileDistributions(file: "r.csv")
        #expect(files.count == 2)
        #expect(skipped.count == 2 * rows.count - 2)
        #expect(skipped.first?.hasSuffix(": drain_latency_histogram") == true)
        #expect(files[0].fileName == "001-even-loop-c4-r1.page-latency-us.hgrm")
        #expect(files[1].fileName.hasPrefix("002-") && files[1].fileName.hasSuffix(".drain-latency-us.hgrm"))
        #expect(files[1].text == drains.percentileDistribution(nanosecondsPerUnit: 1_000))
        #expect(files[0].text == recorder.percentileDistribution(nanosecondsPerUnit: 1_000))
        let lines = files[0].text.split(separator: "\n")
        #expect(lines.first?.split(separator: " ") == ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"])
        // The 50 % line's value is the recorder's median in microseconds.
        let half = try #require(
            lines.first { $0.split(separator: " ").count == 4 && Double($0.split(separator: " ")[1]) == 0.5 }
        )
        #expect(Double(half.split(separator: " ")[0]) == Double(recorder.percentiles.p50Nanoseconds) / 1_000)
        #expect(lines.contains { $0.hasPrefix("#[Max     =") && $0.contains("Total count    =         2000") })
    }

    @Test func hgrmFileNamesAreSafe() {
        #expect(ResultExport.fileNamePart("../a b/ç") == "_._a_b__")
        #expect(ResultExport.fileNamePart("") == "_")
    }
}
