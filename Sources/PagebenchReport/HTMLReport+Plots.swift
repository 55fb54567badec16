import PagebenchBase
import PagebenchMetrics

/// Which plots a report shows, in what order, and what every plot is drawn with (a section
/// with its caption, a chart with its key, a placeholder naming what is missing).
extension HTMLReport {
    /// The plot sections these rows mean something for, most telling first, and what was
    /// left out with how to get it.
    func plotSections(_ groups: [Group]) -> (plots: [String], notShown: [String]) {
        var plots: [String] = []
        var notShown: [String] = []
        let allRows = files.flatMap(\.rows)
        // Rows of a fixed configuration: not knee steps, not stages.
        let plain = groups.map {
            Group(label: $0.label, rows: $0.rows.filter { $0.stage == nil && !Self.isKneeStep($0) })
        }
        .filter { !$0.rows.isEmpty }
        let plainRows = plain.flatMap(\.rows)
        if allRows.contains(where: Self.isKneeStep) {
            plots.append(
                section(
                    "Latency against throughput (knee)",
                    kneePlot(),
                    "Each open-loop step with an SLO verdict (pagebench knee, or run --slo): corrected drain latency p99 (from each drain's intended start, H5) against the drains it completed per second; filled discs held every SLO, rings broke one; the dashed red line is the SLO's bound (the rows' slos column, or report --slo); the band marks the knee, the highest offered rate that held."
                )
            )
            plots.append(
                section(
                    "Latency against requests/s (knee)",
                    kneePlot(requests: true),
                    "The same steps against the requests (pages) per second each one measured: SLOs and capacity are often per request."
                )
            )
        }
        if allRows.contains(where: { $0.stage != nil }) || timeSeries?.contains(where: { $0.stage != nil }) == true {
            plots.append(
                section(
                    "Stages: plan against achieved",
                    stageRowsPlot(),
                    "Per stage (H4), from the rows: what the plan offered (rate stages: drains/s, the stage's mean; pager stages: the pagers listed above) against the drains/s achieved while the stage ran, with the requests/s beside."
                )
            )
            if timeSeries?.contains(where: { $0.stage != nil }) == true {
                let charts = stagePlots()
                let captions = [
                    "From the time series, per interval: requests (pages)/s (solid) and drains/s (dashed); dashed grey lines mark where each stage begins.",
                    "The plan (dashed: target pagers, or offered drains/s in open loop) against what was achieved (solid: pagers admitted, or drains/s) per interval.",
                    "Page (request) latency p50 (solid) and p99 (dashed) per interval; log scale.",
                ]
                let titles = [
                    "Stages over time: throughput", "Stages over time: plan against achieved",
                    "Stages over time: latency",
                ]
                for (index, chart) in charts.enumerated() {
                    plots.append(section(titles[index], chart, captions[index]))
                }
            }
        }
        let limits = Set(plainRows.compactMap(\.limit))
        if limits.count > 1 {
            plots.append(
                section(
                    "Round trips and empty pages against the limit",
                    limitPlot(plain),
                    "Per drain, median over repetitions: round trips (pages fetched, solid) and wasted empty pages (dashed) at each limit; one pair of lines per configuration apart from the limit, per concurrency."
                )
            )
        }
        if plain.contains(where: { Set($0.rows.map(\.concurrency)).count > 1 }) {
            plots.append(
                section(
                    "Throughput against concurrency",
                    throughputPlot(plain),
                    "Median requests (pages)/s (solid) and drains/s (dashed) of the repetitions; whiskers span the slowest to the fastest repetition."
                )
            )
        }
        if !plainRows.isEmpty {
            plots.append(
                section(
                    "Drain latency percentiles",
                    latencyPlot(plain, id: "plot-drain-latency", "drain latency", \.drainLatency),
                    "Time to drain a query from its actual start; median over repetitions of each percentile; log scale."
                )
            )
            // Judged per pair, as the table does (issue 35): the configurations at the first one's
            // limit are compared page for page; one at another limit is left out and named.
            let firstLimits: Set<Int> = Set(plain[0].rows.compactMap(\.limit))
            let sameLimit = plain.filter { Set($0.rows.compactMap(\.limit)) == firstLimits }
            let otherLimit = plain.filter { Set($0.rows.compactMap(\.limit)) != firstLimits }
            if limits.count <= 1 || sameLimit.count > 1 {
                let caption =
                    "Latency of one request (page); median over repetitions of each percentile; log scale."
                    + (otherLimit.isEmpty
                        ? ""
                        : " Only the configurations at the limit of the first (\(firstLimits.sorted().map { String($0) }.joined(separator: ", "))): a page holds up to limit items, so "
                            + otherLimit.map(\.label).joined(separator: ", ")
                            + " (another limit) is compared by drain latency.")
                plots.append(
                    section(
                        "Page latency percentiles",
                        latencyPlot(sameLimit, id: "plot-page-latency", "page latency", \.pageLatency),
                        caption
                    )
                )
            } else {
                notShown.append(
                    "page latency percentiles (a page holds up to limit items, and the limits differ: compare drain latency)"
                )
            }
        }
        let selectivities = Set(
            plainRows.compactMap { row in
                row.scannedItems.flatMap { $0 > 0 ? (Double(row.items) / Double($0) * 1e4).rounded() : nil }
            }
        )
        if selectivities.count > 1 {
            plots.append(
                section(
                    "Empty pages against selectivity",
                    emptyPagePlot(plain),
                    "Empty-page rate (pages with no items but a token ÷ all pages, H1) against selectivity (items returned ÷ items scanned), one point per concurrency."
                )
            )
        }
        if plainRows.contains(where: { $0.cancellationLatency != nil }) {
            plots.append(
                section(
                    "Cancellation latency",
                    cancellationPlot(plain),
                    "From the cancel request to the pager's task having returned (H2): box p50–p99, bar at p50, ticks at p90 and p99.9, whiskers to the maximum; log scale."
                )
            )
        } else if !plainRows.isEmpty {
            notShown.append("cancellation latency (nothing was cancelled: run --cancel-fraction 0.1)")
        }
        if timeSeries?.isEmpty == false {
            plots.append(
                section(
                    "Memory over a run",
                    memoryPlot(),
                    "jemalloc allocated bytes (solid) and resident set size (dashed) per second of the run; the shaded interval is warm-up."
                )
            )
        } else {
            notShown.append("memory over a run (run --timeseries FILE, then report --timeseries FILE)")
        }
        if history?.isEmpty == false {
            plots.append(
                section(
                    "History across commits",
                    historyPlot(),
                    "Median pages/s per commit, in the order the commits were first measured."
                )
            )
        } else {
            notShown.append("history across commits (run --history FILE on each commit, then report --history FILE)")
        }
        return (plots, notShown)
    }

    func section(_ heading: String, _ plot: String, _ caption: String) -> String {
        "<section>\n<h2>\(escape(heading))</h2>\n\(plot)<p class=\"caption\">\(escape(caption))</p>\n</section>\n"
    }

    /// A chart and its key (the legend, as a table under it).
    func drawn(_ chart: SVGChart) -> String { chart.render() + chart.key() }

    func placeholder(_ id: String, _ message: String) -> String {
        "<p class=\"empty\" id=\"\(id)\">\(escape(message))</p>\n"
    }

    func bytes(_ value: Double) -> String { NumberText.value(value, unit: "bytes") }

    func nanoseconds(_ value: Double) -> String { NumberText.value(value, unit: "ns") }

    /// The phase a time-series row belongs to: one line (or pair of lines) of a plot over time,
    /// in the order of scenario, pager kind, concurrency and repetition.
    struct TimeSeriesPhase: Hashable, Comparable {
        var scenario: String, pagerKind: String, concurrency: Int, repetition: Int

        init(_ row: TimeSeriesRow) {
            (scenario, pagerKind, concurrency, repetition) = (
                row.scenario, row.pagerKind, row.concurrency, row.repetition
            )
        }

        /// The run as the stage plots name it: scenario and repetition.
        var shortName: String { "\(scenario) #\(repetition)" }

        static func < (a: TimeSeriesPhase, b: TimeSeriesPhase) -> Bool {
            (a.scenario, a.pagerKind, a.concurrency, a.repetition) < (
                b.scenario, b.pagerKind, b.concurrency, b.repetition
            )
        }
    }
}
