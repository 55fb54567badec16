import PagebenchMetrics
import Testing

@testable import PagebenchReport

@Suite struct ConfigurationComparisonTests {
    /// "What do clustered matches cost me compared with evenly spread ones?" in one table.
    func evenAndClustered() -> [(path: String, rows: [ResultRow])] {
        var even = SyntheticResults()
        even.noise = 0
        var clustered = even
        clustered.scenario = "clustered"
        clustered.configHash = "0000000000000bad"
        clustered.pagesPerSecond = 8_000
        clustered.emptyPagesWasted = 400
        return [("results/even.csv", even.rows(seed: 1)), ("results/clustered.csv", clustered.rows(seed: 2))]
    }

    @Test func oneColumnPerConfigurationWithDeltasAgainstTheFirst() throws {
        let table = ConfigurationComparison(files: evenAndClustered())
        #expect(table.configurations.map(\.label) == ["even", "clustered"])
        let section = try #require(table.sections.first)
        #expect(section.concurrency == 4)
        let pages = try #require(section.rows.first { $0.metric == "pages_per_s" })
        #expect(pages.values == [10_000, 8_000])
        #expect(pages.deltas[0] == nil)
        #expect(abs(pages.deltas[1]! + 0.2) < 1e-12)
        let empty = try #require(section.rows.first { $0.metric == "empty_pages_wasted" })
        #expect(empty.deltas[1] == 9)
        #expect(ConfigurationComparison.cellText(empty, 1) == "400 pages (+900 % worse)")
        #expect(ConfigurationComparison.cellText(pages, 1) == "8000 pages/s (−20 % worse)")
    }

    @Test func oneFileWithSeveralConfigurationsAndConcurrencies() throws {
        var four = SyntheticResults()
        four.noise = 0
        var sixteen = four
        sixteen.concurrency = 16
        var streaming = four
        streaming.pagerKind = "streaming"
        let table = ConfigurationComparison(
            files: [("all.csv", four.rows(seed: 1) + sixteen.rows(seed: 1) + streaming.rows(seed: 1))])
        #expect(table.configurations.map(\.label) == ["even / loop", "even / streaming"])
        #expect(table.sections.map(\.concurrency) == [4, 16])
        let sixteenPages = try #require(table.sections[1].rows.first { $0.metric == "pages_per_s" })
        #expect(sixteenPages.values[1] == nil)
        #expect(table.text.contains("—"))
    }

    @Test func sameConfigurationInTwoFilesIsLabelledByFile() {
        let rows = SyntheticResults().rows(seed: 1)
        let table = ConfigurationComparison(files: [("a/before.csv", rows), ("b/after.csv", rows)])
        #expect(table.configurations.map(\.label) == ["even (before.csv)", "even (after.csv)"])
    }

    @Test func csvOutputReadsBackWithTheStrictReader() throws {
        let table = ConfigurationComparison(files: evenAndClustered(), metrics: ["pages_per_s", "empty_page_rate"])
        let records = try CSVReader(file: "compare.csv").records(table.csv)
        #expect(records.first?.fields.map(\.text) == [
            "concurrency", "metric", "unit", "polarity", "even", "even delta", "clustered", "clustered delta",
        ])
        #expect(records.count == 3)
        let fields = records[1].fields.map(\.text)
        #expect(Array(fields.prefix(7)) == ["4", "pages_per_s", "pages/s", "higher", "10000.0", "", "8000.0"])
        #expect(abs(Double(fields[7])! + 0.2) < 1e-12)
    }

    @Test func markdownHasOneTablePerConcurrency() {
        let markdown = ConfigurationComparison(files: evenAndClustered()).markdown
        #expect(markdown.contains("#### Concurrency 4"))
        #expect(markdown.contains("| metric | even | clustered |"))
        #expect(markdown.contains("| `pages_per_s` | 10000 pages/s | 8000 pages/s (−20 % worse) |"))
    }

    @Test func unknownMetricIsRejectedWithASuggestion() {
        #expect {
            try ConfigurationComparison.validateMetrics(["pages_per_s", "empty_pages_rate"])
        } throws: { error in
            (error as? MetricsError)?.message.contains("did you mean 'empty_page_rate'") == true
        }
    }

    @Test("issue 27: a metric's stem suggests the metrics it begins, not nothing")
    func stemSuggestsItsMetrics() {
        #expect {
            try ConfigurationComparison.validateMetrics(["pages_per_drain"])
        } throws: { error in
            (error as? MetricsError)?.message.contains("did you mean 'pages_per_drain_mean' or 'pages_per_drain_max'?") == true
        }
    }
}
