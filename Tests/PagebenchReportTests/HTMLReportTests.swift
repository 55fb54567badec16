import Foundation
import PagebenchMetrics
import Testing

@testable import PagebenchReport

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct HTMLReportTests {
    /// Collects element names and attributes, and the first parse error.
    final class Collector: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String])] = []
        var error: Error?
        func parser(
            _ parser: XMLParser,
            didStartElement elementName: String,
            namespaceURI: String?,
            qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.append((elementName, attributes))
        }
        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { error = parseError }
    }

    func parse(_ html: String) -> Collector {
        let collector = Collector()
        let parser = XMLParser(data: Data(html.utf8))
        parser.delegate = collector
        let ok = parser.parse()
        if !ok && collector.error == nil { collector.error = parser.parserError ?? CocoaError(.coderReadCorrupt) }
        return collector
    }

    static func fixtureReport() -> HTMLReport {
        var even = SyntheticResults()
        var clustered = SyntheticResults()
        clustered.scenario = "clustered & <hot>"  // must be escaped
        clustered.pagesPerSecond = 7_000
        clustered.emptyPagesWasted = 300
        var rows: [ResultRow] = []
        for concurrency in [1, 4, 16] {
            even.concurrency = concurrency
            even.pagesPerSecond = 3_000 * Double(concurrency).squareRoot()
            clustered.concurrency = concurrency
            rows += even.rows(seed: UInt64(concurrency)) + clustered.rows(seed: UInt64(concurrency + 50))
        }
        var history: [ResultRow] = []
        for (index, commit) in ["aaaaaaa1", "bbbbbbb2", "ccccccc3"].enumerated() {
            var run = SyntheticResults()
            run.gitCommit = commit
            run.timestampUTC = "2026-11-2\(index)T00:00:00Z"
            run.pagesPerSecond = 10_000 - Double(index) * 500
            history += run.rows(seed: UInt64(index))
        }
        return HTMLReport(files: [("results/fixture.csv", rows)], history: history, timeSeries: syntheticTimeSeries())
    }

    /// Issue 35: "What was compared" says what a target row's API was sent: a filter, limit or
    /// read the target did not send reads "—", never the synthetic store's default; a file too
    /// old to say reads "?".
    @Test func whatWasComparedShowsWhatATargetWasSent() throws {
        var row = SyntheticResults().rows(seed: 1)[0]
        row.scenario = "orders-open"
        row.label = "orders-open"
        row.targetKind = "http"
        row.filter = ""
        row.limit = nil
        row.read = "partition:uniform"
        row.responseBytes = 12_345 * row.drains
        row.scannedBytes = nil
        row.scannedItems = nil
        let html = HTMLReport(files: [("results/target.csv", [row])], history: nil, timeSeries: nil).render()
        let compared = try #require(html.range(of: "<h2>What was compared</h2>"))
        let table = html[compared.upperBound...].split(separator: "</table>")[0]
        #expect(
            table.contains(
                "<td>orders-open</td><td>\(row.pagerKind)</td><td>—</td><td>—</td><td>partition:uniform</td>"
            ),
            "\(table)"
        )
        #expect(!table.contains("category=0"))
    }

    @Test func reportIsWellFormedAndHasEveryPlot() throws {
        let html = Self.fixtureReport().render()
        let collector = parse(html)
        #expect(collector.error == nil, "not well-formed: \(String(describing: collector.error))")
        let svgIDs = collector.elements.filter { $0.name == "svg" }.compactMap { $0.attributes["id"] }
        // Issue 26: only the plots these rows mean something for, most telling first; one
        // limit and one selectivity: no plot against the limit or the selectivity.
        #expect(
            svgIDs == [
                "plot-throughput", "plot-drain-latency", "plot-page-latency", "plot-cancellation", "plot-memory",
                "plot-history",
            ]
        )
        #expect(Set(svgIDs).isSubset(of: HTMLReport.plotIDs))
        // Every plot has data drawn in it.
        for id in svgIDs {
            let start = try #require(html.range(of: "id=\"\(id)\""))
            let end = try #require(html.range(of: "</svg>", range: start.upperBound..<html.endIndex))
            let svg = html[start.lowerBound..<end.lowerBound]
            #expect(
                svg.contains("<polyline") || svg.contains("<circle") || svg.contains("class=\"box\""),
                "\(id) is empty"
            )
        }
        #expect(html.contains("clustered &amp; &lt;hot&gt;"))
        // Values land on the axes in their units (page p50 is about 200 µs, cancellation about 40 µs).
        for id in ["plot-page-latency", "plot-cancellation"] {
            let start = try #require(html.range(of: "id=\"\(id)\""))
            let end = try #require(html.range(of: "</svg>", range: start.upperBound..<html.endIndex))
            #expect(html[start.lowerBound..<end.lowerBound].contains("µs</text>"), "\(id) axis has no µs tick")
        }
        #expect(!html.contains("clustered & <hot>"))
    }

    /// Issue 24: a results file whose rates are near the largest Double (well formed, no row
    /// rule breaks) hung `report`: a log axis's decades reached infinity, which is never above
    /// an infinite domain. Every axis stays finite and the report is drawn.
    @Test func valuesNearTheLargestDoubleAreDrawn() {
        var huge = SyntheticResults()
        huge.pagesPerSecond = .greatestFiniteMagnitude
        huge.pageLatencyP50Nanoseconds = 4e16  // × 12 × 3 for the drain maximum: near UInt64.max
        var tiny = SyntheticResults()
        tiny.scenario = "tiny"
        tiny.pagesPerSecond = .leastNonzeroMagnitude
        let html = HTMLReport(
            files: [("results/huge.csv", huge.rows(seed: 1) + tiny.rows(seed: 2))],
            history: nil,
            timeSeries: nil
        )
        .render()
        #expect(parse(html).error == nil)
        #expect(!html.contains("nan") && !html.contains("inf"))
    }

    /// H5: the rows of a knee search draw latency against throughput with the knee marked;
    /// a report without knee steps has no such plot.
    @Test func kneeStepsDrawTheCurveWithTheKnee() throws {
        var rows: [ResultRow] = []
        for (rate, p99, held) in [
            (100.0, 20_000_000, 1), (200.0, 22_000_000, 1), (400.0, 30_000_000, 1), (800.0, 900_000_000, 0),
        ] {
            var row = ResultRow()
            row.scenario = "slow-store"
            row.loadModel = "open-fixed"
            row.plannedDrainsPerSecond = rate
            row.drainsPerSecond = rate * 0.98
            row.drainLatencyCorrected = LatencyPercentiles(
                p50Nanoseconds: UInt64(p99 / 2),
                p90Nanoseconds: UInt64(p99 / 2),
                p99Nanoseconds: UInt64(p99),
                p999Nanoseconds: UInt64(p99),
                maxNanoseconds: UInt64(p99)
            )
            row.sloHeld = held
            rows.append(row)
        }
        let html = HTMLReport(files: [("results/knee.csv", rows)], history: nil, timeSeries: nil).render()
        #expect(parse(html).error == nil)
        let start = try #require(html.range(of: "id=\"plot-knee\""))
        let end = try #require(html.range(of: "</svg>", range: start.upperBound..<html.endIndex))
        let svg = html[start.lowerBound..<end.lowerBound]
        #expect(svg.contains("<circle"))
        #expect(svg.contains("knee 400 drains/s"), "\(svg)")
        #expect(!Self.fixtureReport().render().contains("plot-knee"))
    }

    /// H4: a staged run's time series gives throughput, latency percentiles and pagers over
    /// time with a marker at each stage boundary; its stage rows stay out of the plots
    /// against concurrency and get a comparison section each.
    @Test func stagedRunsArePlottedOverTimeWithStageBoundaries() throws {
        var series: [TimeSeriesRow] = []
        let plan: [(stage: Int, seconds: ClosedRange<Int>)] = [(1, 1...5), (2, 6...10), (3, 11...15)]
        for (stage, seconds) in plan {
            for second in seconds {
                var row = TimeSeriesRow(
                    scenario: "ramp",
                    pagerKind: "streaming",
                    concurrency: 64,
                    repetition: 1,
                    elapsedSeconds: Double(second),
                    isWarmup: false,
                    pagesPerSecond: 1_000 * Double(second),
                    pageLatencyP99Nanoseconds: 4_000_000,
                    allocatedBytes: 1_000_000,
                    rssBytes: 2_000_000
                )
                row.pageLatencyP50Nanoseconds = 2_000_000
                row.stage = stage
                row.plannedPagers = stage == 2 ? 64 : Double(second) * 64 / 5
                row.activePagers = Int(row.plannedPagers!.rounded())
                series.append(row)
            }
        }
        var rows: [ResultRow] = []
        for stage in 1...3 {
            var row = ResultRow()
            row.scenario = "ramp"
            row.configHash = "00aa00aa00aa00aa"
            row.concurrency = 64
            row.repetition = 1
            row.stage = stage
            row.pagesPerSecond = 1_000 * Double(stage)
            rows.append(row)
        }
        let html = HTMLReport(files: [("results/ramp.csv", rows)], timeSeries: series).render()
        #expect(parse(html).error == nil)
        for id in HTMLReport.stagePlotIDs {
            let start = try #require(html.range(of: "id=\"\(id)\""), "\(id)")
            let end = try #require(html.range(of: "</svg>", range: start.upperBound..<html.endIndex))
            let svg = html[start.lowerBound..<end.lowerBound]
            #expect(svg.contains("<polyline"), "\(id)")
            // Boundaries at the plan's start, after 5 s and after 10 s.
            #expect(svg.components(separatedBy: "class=\"marker\"").count - 1 == 3, "\(id)")
            #expect(svg.contains("stage 2") && svg.contains("stage 3"), "\(id)")
        }
        // Latencies of 2 and 4 ms are plotted as such (not as their bit patterns).
        let latency = try #require(html.range(of: "id=\"plot-stage-latency\""))
        let latencyEnd = try #require(html.range(of: "</svg>", range: latency.upperBound..<html.endIndex))
        #expect(html[latency.lowerBound..<latencyEnd.lowerBound].contains(" ms</text>"))
        // The stage rows are not points of pages/s against concurrency: their plan against
        // what they achieved comes first instead (issue 26).
        #expect(!html.contains("id=\"plot-throughput\""))
        let first = try #require(html.range(of: "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\""))
        #expect(html[first.upperBound...].hasPrefix("plot-stage-plan"))
        #expect(html.contains("achieved: pagers admitted") && html.contains("plan: target pagers"))
        for stage in 1...3 { #expect(html.contains("Concurrency 64 stage \(stage)</h3>")) }
        #expect(!Self.fixtureReport().render().contains("plot-stage-"))
        // Issue 35: stages no SLO judged say so, and how to ask whether latency held.
        #expect(html.contains("No SLO judged these stages: run them with --slo"))
    }

    /// Issue 35: a staged hold ("300 req/s for a minute: did latency hold?") says whether its
    /// SLOs held, stage by stage; its latency over time carries the SLO's bound; the plan is
    /// drawn as its ramps (a ramp up, then a hold), not a line through the stage means; one
    /// page is "1 page".
    @Test func aStagedHoldSaysWhetherItsSLOsHeldAndDrawsTheBoundAndThePlan() throws {
        var series: [TimeSeriesRow] = []
        for second in 1...10 {
            var row = TimeSeriesRow(
                scenario: "hold",
                pagerKind: "streaming",
                concurrency: 64,
                repetition: 1,
                elapsedSeconds: Double(second),
                isWarmup: false,
                pagesPerSecond: 300,
                pageLatencyP99Nanoseconds: second > 7 ? 90_000_000 : 4_000_000,
                allocatedBytes: 1_000_000,
                rssBytes: 2_000_000
            )
            row.stage = second <= 5 ? 1 : 2
            row.plannedDrainsPerSecond = second <= 5 ? Double(second) * 60 : 300
            series.append(row)
        }
        func stageRows(p99: [UInt64]) -> [ResultRow] {
            (1...2).map { stage in
                var row = ResultRow()
                row.scenario = "hold"
                row.configHash = "00bb00bb00bb00bb"
                row.loadModel = "open-fixed"
                row.concurrency = 64
                row.repetition = 1
                row.stage = stage
                row.stageStartSeconds = stage == 1 ? 0 : 5
                row.targetDurationSeconds = 5
                row.stageRateFrom = stage == 1 ? 0 : 300
                row.stageRateTo = 300
                row.plannedDrainsPerSecond = stage == 1 ? 150 : 300
                row.drainsPerSecond = stage == 1 ? 150 : 300
                row.pagesPerSecond = row.drainsPerSecond
                row.drains = 1
                row.pages = 1
                row.slos = "drain_latency_corrected_p99_ns<50ms"
                let p = p99[stage - 1]
                row.drainLatencyCorrected = LatencyPercentiles(
                    p50Nanoseconds: p / 2,
                    p90Nanoseconds: p,
                    p99Nanoseconds: p,
                    p999Nanoseconds: p,
                    maxNanoseconds: p
                )
                row.sloHeld = p < 50_000_000 ? 1 : 0
                return row
            }
        }
        let held = HTMLReport(
            files: [("results/hold.csv", stageRows(p99: [20_000_000, 30_000_000]))],
            timeSeries: series
        ).render()
        #expect(parse(held).error == nil)
        #expect(held.contains("Every SLO held in every stage: <strong>drain_latency_corrected_p99_ns&lt;50ms</strong>"))
        let broke = HTMLReport(
            files: [("results/hold.csv", stageRows(p99: [20_000_000, 80_000_000]))],
            timeSeries: series
        ).render()
        #expect(broke.contains("SLOs broke: <strong>stage 2 drain_latency_corrected_p99_ns 80ms"), "\(broke)")
        // The SLO's bound over the latency over time.
        let latency = try #require(held.range(of: "id=\"plot-stage-latency\""))
        let latencyEnd = try #require(held.range(of: "</svg>", range: latency.upperBound..<held.endIndex))
        #expect(
            held[latency.lowerBound..<latencyEnd.lowerBound].contains("SLO: drain_latency_corrected_p99_ns&lt;50ms")
        )
        // The plan as its ramps: four points (0→300 over stage 1, then 300 held), not two means.
        let plan = try #require(held.range(of: "id=\"plot-stage-plan\""))
        let planEnd = try #require(held.range(of: "</svg>", range: plan.upperBound..<held.endIndex))
        let planSVG = String(held[plan.lowerBound..<planEnd.lowerBound])
        #expect(planSVG.contains("plan: offered drains/s") && planSVG.contains("achieved: drains/s (stage mean)"))
        let polyline = try #require(planSVG.range(of: "<polyline"))
        let points = planSVG[polyline.upperBound...].prefix { $0 != ">" }
        #expect(points.components(separatedBy: ",").count - 1 == 4, "\(points)")
        #expect(held.contains("1 page") && !held.contains(">1 pages"))
    }

    /// Issue 26: a knee CSV opens with the knee plot: requests/s along the top, the SLO's
    /// bound drawn, broken steps as rings (as the caption says), the verdict first.
    @Test func aKneeReportOpensWithTheKneeItsBoundAndRequestsPerSecond() throws {
        var rows: [ResultRow] = []
        for (rate, p99, held) in [
            (100.0, 20_000_000, 1), (200.0, 22_000_000, 1), (400.0, 30_000_000, 1), (800.0, 900_000_000, 0),
        ] {
            var row = ResultRow()
            row.scenario = "slow-store"
            row.configHash = String(format: "%016x", Int(rate))
            row.loadModel = "open-fixed"
            row.concurrency = 16
            row.plannedDrainsPerSecond = rate
            row.drainsPerSecond = rate * 0.98
            row.pagesPerSecond = rate * 0.98 * 21
            row.drainLatencyCorrected = LatencyPercentiles(
                p50Nanoseconds: UInt64(p99 / 2),
                p90Nanoseconds: UInt64(p99 / 2),
                p99Nanoseconds: UInt64(p99),
                p999Nanoseconds: UInt64(p99),
                maxNanoseconds: UInt64(p99)
            )
            row.sloHeld = held
            rows.append(row)
        }
        var report = HTMLReport(files: [("results/knee.csv", rows)])
        report.objectives = try ServiceLevelObjective.parseAll(["drain_latency_corrected_p99_ns<50ms"])
        let html = report.render()
        #expect(parse(html).error == nil)
        let first = try #require(html.range(of: "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\""))
        #expect(html[first.upperBound...].hasPrefix("plot-knee"))
        let end = try #require(html.range(of: "</svg>", range: first.upperBound..<html.endIndex))
        let svg = html[first.lowerBound..<end.lowerBound]
        #expect(svg.contains("class=\"level\"") && svg.contains("SLO: drain_latency_corrected_p99_ns&lt;50ms"))
        // Issue 35: requests/s are each step's measured ones, in a plot of their own, not a
        // median pages per drain times drains/s on a second axis.
        #expect(!html.contains("median of the steps"))
        #expect(
            html.contains("id=\"plot-knee-requests\"")
                && html.contains("requests (pages)/s completed, measured per step")
        )
        #expect(svg.contains("fill=\"#ffffff\" stroke="), "a broken step is a ring")
        #expect(svg.contains("knee 400 drains/s, 8232 requests/s"), "\(svg)")
        #expect(!html.contains("plot-cancellation") && !html.contains("plot-throughput"))
        let verdict = try #require(html.range(of: "<p class=\"verdict\">"))
        #expect(html[verdict.upperBound...].hasPrefix("The knee: <strong>400 drains/s</strong> offered held every SLO"))
    }

    /// Issue 26: the knee's rows record the SLOs they were judged on (`slos`), so a report
    /// made from the CSV alone draws the bound; without the column (files of schema 5) it
    /// draws none, and `report --slo` still overrides.
    @Test func aKneeReportDrawsTheBoundRecordedInTheRows() throws {
        var rows: [ResultRow] = []
        for (rate, p99, held) in [(100.0, 20_000_000, 1), (800.0, 900_000_000, 0)] {
            var row = ResultRow()
            row.scenario = "slow-store"
            row.configHash = "00000000000000aa"
            row.loadModel = "open-fixed"
            row.concurrency = 16
            row.plannedDrainsPerSecond = rate
            row.drainsPerSecond = rate
            row.pagesPerSecond = rate * 21
            row.drainLatencyCorrected = LatencyPercentiles(
                p50Nanoseconds: UInt64(p99 / 2),
                p90Nanoseconds: UInt64(p99 / 2),
                p99Nanoseconds: UInt64(p99),
                p999Nanoseconds: UInt64(p99),
                maxNanoseconds: UInt64(p99)
            )
            row.sloHeld = held
            row.slos = "drain_latency_corrected_p99_ns<60ms;error_rate<1%"
            rows.append(row)
        }
        #expect(
            HTMLReport(files: [("knee.csv", rows)]).render().contains("SLO: drain_latency_corrected_p99_ns&lt;60ms")
        )
        var overridden = HTMLReport(files: [("knee.csv", rows)])
        overridden.objectives = try ServiceLevelObjective.parseAll(["drain_latency_corrected_p99_ns<50ms"])
        let html = overridden.render()
        #expect(html.contains("SLO: drain_latency_corrected_p99_ns&lt;50ms") && !html.contains("p99_ns&lt;60ms"))
        let unrecorded = rows.map { row in
            var row = row
            row.slos = ""
            return row
        }
        #expect(!HTMLReport(files: [("knee.csv", unrecorded)]).render().contains("SLO: drain_latency"))
    }

    /// Issue 26: a limit sweep answers with round trips and empty pages per drain against the
    /// limit; page latency (per page, another unit per limit) is left out, saying why.
    @Test func aLimitSweepAnswersWithRoundTripsAgainstTheLimit() throws {
        var ten = SyntheticResults()
        ten.limit = 10
        ten.label = "limit=10 filter=category=0"
        ten.filter = "category=0"
        var hundred = ten
        hundred.limit = 100
        hundred.label = "limit=100 filter=category=0 and a long name that must never be cut in the key"
        hundred.configHash = "1111111111111111"
        hundred.pages = 130
        hundred.emptyPagesWasted = 4
        let html = HTMLReport(files: [("results/limits.csv", ten.rows(seed: 1) + hundred.rows(seed: 2))]).render()
        #expect(parse(html).error == nil)
        let first = try #require(html.range(of: "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\""))
        #expect(html[first.upperBound...].hasPrefix("plot-limit"))
        #expect(
            !html.contains("id=\"plot-page-latency\"")
                && html.contains("page latency percentiles (a page holds up to limit items")
        )
        #expect(
            html.contains("<th>round trips/drain</th>") && html.contains("<th>requests/s</th>")
                && html.contains("<th>drains/s</th>")
        )
        #expect(html.contains("costs the fewest round trips per drain (1.3, against 12"))
        #expect(html.contains("a long name that must never be cut in the key"))
        #expect(!html.contains("…"))
        #expect(html.contains("not comparable"))
    }

    /// Issue 35: a report of a baseline and a current file says what `check` decides — passed
    /// or failed, what was gated and why — from the checker itself, in its words.
    @Test func baselineAndCurrentShowTheGatesVerdict() throws {
        var baseline = SyntheticResults()
        baseline.instructionsPerPage = 5_000
        var slower = baseline
        slower.instructionsPerPage = 5_500  // +10 %: gated at 3 %
        slower.pagesPerSecond = 8_500  // −15 %: reported
        let baselineRows = try roundTrip(baseline.rows(seed: 1))
        let slowerRows = try roundTrip(slower.rows(seed: 2))
        let html = HTMLReport(files: [("base.csv", baselineRows), ("cur.csv", slowerRows)]).render()
        #expect(parse(html).error == nil)
        let check = RegressionChecker().check(
            baseline: baselineRows,
            current: slowerRows,
            baselineFile: "base.csv",
            currentFile: "cur.csv"
        )
        #expect(check.fails)
        #expect(html.contains("id=\"gate\""))
        #expect(html.contains("<strong>Failed</strong>: " + check.summaryLine))
        #expect(html.contains("pagebench check --baseline base.csv --current cur.csv</code> would decide (exit 1)"))
        #expect(html.contains("<td class=\"worse\">regression</td>"))
        #expect(html.contains("<td class=\"worse\">worse (reported)</td>"))
        #expect(html.contains("gated: process-own (instructions, callgrind"))
        for line in check.gates { #expect(html.contains(escape(line))) }
        // The same build again passes; one file alone has no gate to show.
        let same = HTMLReport(files: [("base.csv", baselineRows), ("again.csv", try roundTrip(baseline.rows(seed: 3)))])
            .render()
        #expect(same.contains("<strong>Passed</strong>: OK: 0 regressions"))
        #expect(!HTMLReport(files: [("base.csv", baselineRows)]).render().contains("id=\"gate\""))
        // A file holding a row twice is refused by check (exit 65), and the report says so.
        let twice = HTMLReport(files: [("base.csv", baselineRows), ("twice.csv", slowerRows + slowerRows)]).render()
        #expect(twice.contains("<strong>Refused</strong> (exit 65): ") && twice.contains("a measurement counted twice"))
        // --gate-wall-clock as check takes it: the throughput drop fails too.
        var wallClock = HTMLReport(files: [("base.csv", baselineRows), ("cur.csv", slowerRows)])
        wallClock.checkThresholds?.gateWallClock = true
        #expect(
            wallClock.render().contains(
                "<td class=\"worse\">regression</td><td>even [00c0ffee00c0ffee] loop ×4</td><td><code>pages_per_s</code>"
            )
        )
    }

    @Test func reportIsSelfContained() {
        let html = Self.fixtureReport().render()
        #expect(!html.contains("<script"))
        #expect(!html.contains("<link"))
        #expect(!html.contains("@import"))
        #expect(!html.contains("url("))
        let addresses = html.components(separatedBy: "http").dropFirst().map { String($0.prefix(30)) }
        #expect(
            addresses.allSatisfy { $0.hasPrefix("://www.w3.org/") },
            "only XML namespaces may name an address: \(addresses)"
        )
    }

    @Test func missingInputsGivePlaceholdersNotEmptyAxes() throws {
        var report = Self.fixtureReport()
        report.history = nil
        report.timeSeries = nil
        let html = report.render()
        let collector = parse(html)
        #expect(collector.error == nil)
        let placeholders = collector.elements.filter { $0.name == "p" && $0.attributes["class"] == "empty" }.compactMap
        { $0.attributes["id"] }
        #expect(placeholders.isEmpty)
        // Issue 26: plots without data are left out, and the page says how to get them.
        #expect(!html.contains("id=\"plot-memory\"") && !html.contains("id=\"plot-history\""))
        #expect(html.contains("Not shown") && html.contains("--timeseries FILE") && html.contains("--history FILE"))
    }

    @Test func writesAtomicallyCreatingDirectories() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pagebench-report-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("nested/report.html").path
        try HTMLReport.write(Self.fixtureReport().render(), to: path)
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.hasPrefix("<!DOCTYPE html>"))
    }
}
