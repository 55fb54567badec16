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

    /// Issue 35: per drain, a real target's bytes are its responses' (`response bytes/drain`),
    /// never "scanned bytes", and scanned items per drain appear wherever a source reports them.
    @Test func perDrainBytesAndScannedItemsAreNamedForWhatEachSourceReports() throws {
        var target = SyntheticResults().rows(seed: 1)[0]
        target.scenario = "orders"
        target.targetKind = "http"
        target.responseBytes = 800 * target.drains
        target.scannedBytes = nil
        target.scannedItems = 30 * target.drains
        var local = SyntheticResults().rows(seed: 2)[0]
        local.scannedItems = 20 * local.drains
        let table = ConfigurationComparison(files: [("a.csv", [target]), ("b.csv", [local])])
        let rows = try #require(table.sections.first).rows
        let response = try #require(rows.first { $0.metric == "response_bytes_per_drain" })
        #expect(response.values == [800, nil])
        let scanned = try #require(rows.first { $0.metric == "scanned_bytes_per_drain" })
        #expect(scanned.values[0] == nil)
        #expect(try #require(rows.first { $0.metric == "scanned_items_per_drain" }).values == [30, 20])
        #expect(ConfigurationComparison.titles["response_bytes_per_drain"] == "response bytes/drain")
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
        #expect(table.configurations.map(\.label) == ["pager=loop", "pager=streaming"])
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
        #expect(
            records.first?.fields.map(\.text) == [
                "concurrency", "metric", "unit", "polarity", "even", "even delta", "clustered", "clustered delta",
                "not_comparable",
            ]
        )
        #expect(records.count == 3)
        let fields = records[1].fields.map(\.text)
        #expect(Array(fields.prefix(7)) == ["4", "pages_per_s", "pages/s", "higher", "10000.0", "", "8000.0"])
        #expect(abs(Double(fields[7])! + 0.2) < 1e-12)
    }

    @Test func markdownHasOneTablePerConcurrency() {
        let markdown = ConfigurationComparison(files: evenAndClustered()).markdown
        #expect(markdown.contains("#### Concurrency 4"))
        #expect(markdown.contains("| metric | even | clustered |"))
        #expect(markdown.contains("| requests/s (`pages_per_s`) | 10000 pages/s | 8000 pages/s (−20 % worse) |"))
    }

    @Test func unknownMetricIsRejectedWithASuggestion() {
        #expect {
            try ConfigurationComparison.validateMetrics(["pages_per_s", "empty_pages_rate"])
        } throws: { error in
            (error as? MetricsError)?.message.contains("did you mean 'empty_page_rate'") == true
        }
    }

    // MARK: Labels (issue 26)

    /// Two runs of one scenario at limits 10 and 100, each file's rows labelled by its own
    /// run (`default`): the comparison names them by what differs, never by hash.
    @Test func filesOfOneScenarioAreLabelledByTheParametersThatDiffer() {
        var ten = SyntheticResults()
        ten.scenario = "default"
        ten.label = "default"
        ten.limit = 10
        ten.filter = "category=0"
        var hundred = ten
        hundred.limit = 100
        hundred.configHash = "1111111111111111"
        let table = ConfigurationComparison(files: [
            ("a/ten.csv", ten.rows(seed: 1)), ("b/hundred.csv", hundred.rows(seed: 2)),
        ])
        #expect(table.configurations.map(\.label) == ["limit=10", "limit=100"])
        #expect(!table.text.contains("default [00c0ffee]"))
    }

    /// Schema 5 files have no `label` column: their configurations get labels all the same,
    /// from the columns they have (limit, pager, load model).
    @Test func filesWithoutLabelsGetDerivedLabels() {
        var ten = SyntheticResults()
        ten.limit = 10
        var hundred = ten
        hundred.limit = 100
        hundred.configHash = "1111111111111111"
        let table = ConfigurationComparison(files: [("old.csv", ten.rows(seed: 1) + hundred.rows(seed: 2))])
        #expect(table.configurations.map(\.label) == ["limit=10", "limit=100"])
    }

    /// One run's labels were derived over exactly its configurations: they are kept, and so
    /// are labels scenarios gave, across files.
    @Test func labelsARunOrAScenarioGaveAreKept() {
        var fast = SyntheticResults()
        fast.label = "our filter, limit 100"
        var slow = fast
        slow.label = "our filter, limit 10"
        slow.limit = 10
        slow.configHash = "1111111111111111"
        let table = ConfigurationComparison(files: [("x.csv", fast.rows(seed: 1)), ("y.csv", slow.rows(seed: 2))])
        #expect(table.configurations.map(\.label) == ["our filter, limit 100", "our filter, limit 10"])
        var a = SyntheticResults()
        a.label = "limit=10"
        a.limit = 10
        var b = a
        b.label = "limit=100"
        b.limit = 100
        b.configHash = "1111111111111111"
        #expect(
            ConfigurationComparison(files: [("run.csv", a.rows(seed: 1) + b.rows(seed: 1))]).configurations.map(\.label)
                == ["limit=10", "limit=100"]
        )
    }

    // MARK: Like with like (issue 26)

    /// Limit 100 against limit 10: fewer round trips per drain is better, but pages/s and
    /// page latency count another unit, so they are marked, not called worse.
    @Test func ratesPerPageAcrossLimitsAreNotComparableAndTheDrainCostLeads() throws {
        var ten = SyntheticResults()
        ten.noise = 0
        ten.limit = 10
        ten.label = "limit=10"
        var hundred = ten
        hundred.limit = 100
        hundred.label = "limit=100"
        hundred.configHash = "1111111111111111"
        hundred.pages = 130
        hundred.emptyPagesWasted = 4
        hundred.pagesPerSecond = 1_900
        hundred.pageLatencyP50Nanoseconds = 900_000
        let table = ConfigurationComparison(files: [("limits.csv", ten.rows(seed: 1) + hundred.rows(seed: 1))])
        let section = try #require(table.sections.first)
        #expect(
            Array(section.rows.prefix(5).map(\.metric)) == [
                "pages_per_drain_mean", "empty_pages_per_drain", "scanned_bytes_per_drain", "scanned_items_per_drain",
                "items_per_drain",
            ]
        )
        let roundTrips = try #require(section.rows.first { $0.metric == "pages_per_drain_mean" })
        #expect(roundTrips.notComparable(at: 1) == nil)
        #expect(ConfigurationComparison.cellText(roundTrips, 1) == "1.3 pages (−89.2 % better)")
        let empty = try #require(section.rows.first { $0.metric == "empty_pages_per_drain" })
        #expect(empty.values == [0.4, 0.04])
        let rate = try #require(section.rows.first { $0.metric == "pages_per_s" })
        #expect(rate.notComparable(at: 1)?.contains("limits differ (10, 100)") == true)
        #expect(ConfigurationComparison.cellText(rate, 1) == "1900 pages/s (−81 %, not comparable)")
        let latency = try #require(section.rows.first { $0.metric == "page_latency_p50_ns" })
        #expect(!ConfigurationComparison.cellText(latency, 1).contains("worse"))
        #expect(table.text.contains("pages_per_s: not comparable, per page, and the limits differ"))
        #expect(table.text.contains("round trips/drain (pages_per_drain_mean)"))
        #expect(table.text.contains("not a regression check"))
        // Items/s between filters counts different items.
        var filtered = ten
        filtered.filter = "category=0"
        filtered.label = "filter=category=0"
        filtered.configHash = "2222222222222222"
        ten.filter = "none"
        let filters = ConfigurationComparison(files: [("f.csv", ten.rows(seed: 1) + filtered.rows(seed: 1))])
        #expect(
            filters.sections[0].rows.first { $0.metric == "items_per_s" }?.notComparable(at: 1)?.contains(
                "filters differ"
            ) == true
        )
        #expect(filters.sections[0].rows.first { $0.metric == "pages_per_s" }?.notComparable(at: 1) == nil)
        // One limit: the same rate is judged as before.
        let same = ConfigurationComparison(files: evenAndClustered())
        #expect(same.sections[0].rows.allSatisfy { $0.notComparable.allSatisfy { $0 == nil } })
    }

    /// Issue 35: REST against GraphQL at the same limit compares page for page, though a third
    /// column of the table used limit 100: comparability is judged per pair of columns compared
    /// (each change is against the first), not over the whole table.
    @Test func comparabilityIsJudgedPerPairOfColumns() throws {
        var rest = SyntheticResults()
        rest.noise = 0
        rest.limit = 10
        rest.label = "rest limit=10"
        rest.pagesPerSecond = 10_000
        var graphql = rest
        graphql.label = "graphql limit=10"
        graphql.configHash = "4444444444444444"
        graphql.pagesPerSecond = 8_000
        var restHundred = rest
        restHundred.limit = 100
        restHundred.label = "rest limit=100"
        restHundred.configHash = "5555555555555555"
        restHundred.pages = 130
        restHundred.pagesPerSecond = 1_900
        let table = ConfigurationComparison(
            files: [("apis.csv", rest.rows(seed: 1) + graphql.rows(seed: 1) + restHundred.rows(seed: 1))])
        let section = try #require(table.sections.first)
        let rate = try #require(section.rows.first { $0.metric == "pages_per_s" })
        #expect(rate.notComparable(at: 1) == nil)
        #expect(ConfigurationComparison.cellText(rate, 1) == "8000 pages/s (−20 % worse)")
        #expect(rate.notComparable(at: 2)?.contains("limits differ (10, 100)") == true)
        #expect(ConfigurationComparison.cellText(rate, 2).contains("not comparable"))
        #expect(table.csv.contains("rest limit=100: per page, and the limits differ (10, 100)"))
        #expect(!table.csv.contains("graphql limit=10: per page"))
        // The report keeps the request-latency plot for the comparable pair.
        let html = HTMLReport(files: [
            ("apis.csv", rest.rows(seed: 1) + graphql.rows(seed: 1) + restHundred.rows(seed: 1))
        ])
        .render()
        #expect(html.contains("id=\"plot-page-latency\""))
        #expect(html.contains("Only the configurations at the limit of the first (10)"))
    }

    /// A full scan against one partition: a drain is another range, so figures per drain
    /// are marked; items/s and bytes/s still compare.
    @Test func figuresPerDrainAcrossReadsAreNotComparable() throws {
        var partition = SyntheticResults()
        partition.noise = 0
        var scan = partition
        scan.configHash = "3333333333333333"
        scan.pages = 76_800
        let rows =
            partition.rows(seed: 1).map { row -> ResultRow in
                var copy = row
                copy.read = "partition:uniform"
                return copy
            }
            + scan.rows(seed: 1).map { row -> ResultRow in
                var copy = row
                copy.read = "scan"
                return copy
            }
        let table = ConfigurationComparison(files: [("reads.csv", rows)])
        #expect(table.configurations.map(\.label) == ["read=partition:uniform", "read=scan"])
        let section = try #require(table.sections.first)
        let trips = try #require(section.rows.first { $0.metric == "pages_per_drain_mean" })
        #expect(trips.notComparable(at: 1)?.contains("the reads differ (partition:uniform, scan)") == true)
        #expect(ConfigurationComparison.cellText(trips, 1).contains("not comparable"))
        #expect(section.rows.first { $0.metric == "drain_latency_p50_ns" }?.notComparable(at: 1) != nil)
        #expect(section.rows.first { $0.metric == "items_per_s" }?.notComparable(at: 1) == nil)
    }

    @Test("issue 27: a metric's stem suggests the metrics it begins, not nothing")
    func stemSuggestsItsMetrics() {
        #expect {
            try ConfigurationComparison.validateMetrics(["pages_per_drain"])
        } throws: { error in
            (error as? MetricsError)?.message.contains("did you mean 'pages_per_drain_mean' or 'pages_per_drain_max'?")
                == true
        }
    }
}
