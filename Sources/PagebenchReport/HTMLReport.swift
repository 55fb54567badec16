import PagebenchBase
import PagebenchMetrics

/// One self-contained HTML page (`pagebench report`): inline SVG drawn here, inline CSS, no
/// scripts and nothing fetched from the network. The markup is well-formed XML (XHTML
/// syntax), so it can be checked with any XML parser.
///
/// For a baseline and a current file it opens with what `pagebench check` decides (issue 35,
/// ``gateCheck``). It answers first (issue 26): what was compared (a row per configuration, by label), the
/// headline figures with differences against the first configuration and a sentence of
/// verdict; then only the plots these rows mean something for, each with its key (legend) as
/// a table under it, so that no name is cut:
/// - `plot-knee` first for knee steps: corrected drain latency p99 against drains/s achieved,
///   requests/s along the top, the SLO's bound drawn (``objectives``), broken steps as rings;
/// - `plot-stage-plan` for stages (H4): plan against achieved per stage, and from a time
///   series `plot-stage-throughput`, `plot-stage-pagers`, `plot-stage-latency`;
/// - `plot-limit` when the limits differ: round trips and empty pages per drain against it;
/// - `plot-throughput` (requests/s and drains/s) when a configuration has several concurrencies;
/// - `plot-drain-latency`, and `plot-page-latency` unless the limits differ;
/// - `plot-empty-pages` when selectivities differ; `plot-cancellation` when drains were
///   cancelled; `plot-memory` with a time series; `plot-history` with a history file.
/// What is left out is named with how to get it.
public struct HTMLReport: Sendable {
    public static let plotIDs = [
        "plot-knee", "plot-stage-plan", "plot-limit", "plot-throughput", "plot-drain-latency", "plot-page-latency",
        "plot-empty-pages", "plot-cancellation", "plot-memory", "plot-history",
    ]
    /// The plots of staged runs (H4), shown when a row or the time series has a stage.
    public static let stagePlotIDs = ["plot-stage-throughput", "plot-stage-latency", "plot-stage-pagers"]

    public var files: [(path: String, rows: [ResultRow])]
    public var history: [ResultRow]?
    public var timeSeries: [TimeSeriesRow]?
    public var title = "pagebench report"
    /// SLOs to draw on the knee plot (`report --slo`): the CSV records each step's verdict,
    /// not the bound it was judged on.
    public var objectives: [ServiceLevelObjective] = []
    /// Lines per plot before the report keeps only each configuration's highest concurrency.
    public var maximumSeries = 8
    /// The thresholds of the gate's verdict shown for a baseline and a current file
    /// (``gateCheck``, `report --thresholds`); nil leaves the gate out.
    public var checkThresholds: Thresholds? = Thresholds()

    public init(files: [(path: String, rows: [ResultRow])], history: [ResultRow]? = nil, timeSeries: [TimeSeriesRow]? = nil) {
        self.files = files
        self.history = history
        self.timeSeries = timeSeries
    }

    /// A configuration (column of ``ConfigurationComparison``) with its rows.
    struct Group {
        var label: String
        var rows: [ResultRow]
    }

    var groups: [Group] {
        let table = ConfigurationComparison(files: files, metrics: [])
        return table.configurations.map { configuration in
            let rows = files.first { $0.path == configuration.file }?.rows.filter {
                $0.scenario == configuration.scenario && $0.configHash == configuration.configHash
                    && $0.pagerKind == configuration.pagerKind
            } ?? []
            return Group(label: configuration.label, rows: rows)
        }
    }

    /// The whole page: what was compared and the answer first (``answer(_:)``), then only
    /// the plots these rows mean something for, then every figure side by side.
    public func render() -> String {
        let groups = groups
        let rowCount = files.reduce(0) { $0 + $1.rows.count }
        let contexts = Set(files.flatMap { $0.rows.map { "\($0.gitCommit.prefix(12)) · \($0.buildConfiguration) · Swift \($0.swiftVersion) · \($0.host) · \($0.cores) cores" } })
        var body = "<h1>\(escape(title))</h1>\n"
        body += "<p class=\"meta\">\(rowCount) rows from " + files.map { "<code>\(escape($0.path))</code>" }.joined(separator: ", ")
            + ". " + contexts.sorted().map(escape).joined(separator: "; ") + ".</p>\n"
        switch gate {
        case .decided(let check): body += gateSection(check)
        case .refused(let message): body += gateRefusal(message)
        case nil: break
        }
        body += answer(groups)
        let (plots, notShown) = plotSections(groups)
        body += "<div class=\"plots\">\n" + plots.joined() + "</div>\n"
        if !notShown.isEmpty {
            body += "<p class=\"meta\">Not shown, as these rows have nothing for them: " + notShown.map(escape).joined(separator: "; ") + ".</p>\n"
        }
        body += "<h2>Every figure side by side</h2>\n" + comparisonTable()
        return """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title>\(escape(title))</title>
            <style>
            body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 16px auto; max-width: 1800px; padding: 0 16px; color: #1a1a1a; background: #fafafa; }
            h1 { font-size: 24px; margin-bottom: 4px; } h2 { font-size: 18px; margin: 20px 0 6px; } h3 { font-size: 15px; margin: 14px 0 4px; }
            p.meta, p.caption { color: #555; font-size: 13px; margin: 4px 0 8px; }
            p.verdict { font-size: 15px; margin: 6px 0; }
            section { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 16px 12px; margin: 0; min-width: 0; }
            section.answer { margin: 12px 0 16px; }
            div.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 720px), 1fr)); gap: 16px; }
            svg.plot { display: block; width: 100%; max-width: 960px; height: auto; }
            svg .chart-title { font-size: 15px; font-weight: 600; fill: #1a1a1a; }
            svg .tick, svg .band { font-size: 12px; fill: #333; }
            svg .axis-label { font-size: 13px; fill: #1a1a1a; }
            svg .grid { stroke: #e4e4e4; stroke-width: 1; } svg .frame { fill: none; stroke: #888; stroke-width: 1; }
            p.empty { color: #8a5a00; background: #fff7e0; padding: 12px; border-radius: 4px; }
            div.scroll { overflow-x: auto; }
            table { border-collapse: collapse; font-size: 13px; background: #fff; }
            th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; } th:first-child, td:first-child { text-align: left; }
            table.key { border: none; margin: 4px 0 0; font-size: 13px; } table.key td { border: none; padding: 1px 6px 1px 0; text-align: left; vertical-align: middle; }
            table.headline td { white-space: nowrap; } span.delta { font-size: 11px; } th.group { text-align: left; background: #f0f0f0; }
            td.better { color: #006b3c; } td.worse { color: #b00020; } td.not-comparable { color: #777; font-style: italic; }
            p.verdict.passed strong { color: #006b3c; } p.verdict.failed strong { color: #b00020; } ul.gates { font-size: 13px; color: #333; }
            </style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    /// The headline figures, per configuration: what a person asks first (issue 26).
    static let headlineMetrics = [
        "pages_per_drain_mean", "empty_pages_per_drain", "empty_page_rate", "items_per_s", "drains_per_s", "pages_per_s",
        "drain_latency_p50_ns", "drain_latency_p99_ns", "peak_rss_bytes",
    ]
    /// The headline of knee steps: offered against achieved, the corrected p99 and the verdict.
    static let kneeHeadlineMetrics = [
        "target_drains_per_s", "drains_per_s", "pages_per_s", "drain_latency_corrected_p99_ns", "slo_held", "missed_starts",
        "peak_rss_bytes",
    ]
    static let headlineTitles: [String: String] = [
        "pages_per_drain_mean": "round trips/drain", "empty_pages_per_drain": "empty pages/drain", "empty_page_rate": "empty-page rate",
        "items_per_s": "items/s", "drains_per_s": "drains/s", "pages_per_s": "requests/s", "drain_latency_p50_ns": "drain p50",
        "drain_latency_p99_ns": "drain p99", "peak_rss_bytes": "peak RSS", "target_drains_per_s": "offered drains/s",
        "drain_latency_corrected_p99_ns": "drain p99 (corrected)", "slo_held": "SLOs held", "missed_starts": "missed starts",
    ]

    /// The first screen: what was compared, the headline table with differences against the
    /// first configuration, and a sentence of verdict per question the rows can answer.
    func answer(_ groups: [Group]) -> String {
        let rows = files.flatMap(\.rows)
        let knee = rows.contains(where: Self.isKneeStep)
        var html = "<section class=\"answer\">\n<h2>What was compared</h2>\n<div class=\"scroll\"><table>\n"
        html += "<tr><th>configuration</th><th>pager</th><th>limit</th><th>filter</th><th>read</th><th>load</th><th>concurrency</th><th>rows</th><th>scenario [config_hash]</th></tr>\n"
        // Knee steps in the order of their rates.
        let listed = knee ? groups.sorted { ($0.rows.first?.plannedDrainsPerSecond ?? 0) < ($1.rows.first?.plannedDrainsPerSecond ?? 0) } : groups
        for group in listed {
            guard let row = group.rows.first else { continue }
            let levels = Set(group.rows.map(\.concurrency)).sorted().map(String.init).joined(separator: ", ")
            let cells = [
                group.label, row.pagerKind, row.limit.map(String.init) ?? Self.notSent(row), Self.column(row.filter, row),
                Self.column(row.read, row), row.labelParameters.first { $0.name == "load" }?.value ?? row.loadModel, levels,
                String(group.rows.count), "\(row.scenario) [\(row.configHash)]",
            ]
            html += "<tr>" + cells.map { "<td>\(escape($0))</td>" }.joined() + "</tr>\n"
        }
        html += "</table></div>\n"
        let table = ConfigurationComparison(files: files, metrics: knee ? Self.kneeHeadlineMetrics : Self.headlineMetrics)
        html += "<h2>Headline</h2>\n"
        for sentence in verdicts(table, rows: rows) { html += "<p class=\"verdict\">\(sentence)</p>\n" }
        let metrics = (knee ? Self.kneeHeadlineMetrics : Self.headlineMetrics).filter { metric in
            table.sections.contains { $0.rows.contains { $0.metric == metric } }
        }
        html += "<div class=\"scroll\"><table class=\"headline\">\n<tr><th>configuration</th>"
            + metrics.map { "<th>\(escape(Self.headlineTitles[$0] ?? $0))</th>" }.joined() + "</tr>\n"
        for section in table.sections {
            if table.sections.count > 1 { html += "<tr><th colspan=\"\(metrics.count + 1)\" class=\"group\">\(escape(section.title))</th></tr>\n" }
            // Knee steps read in the order of their rates, each on its own: a step is not a change of another.
            let rate = { (index: Int) in section.rows.first { $0.metric == "target_drains_per_s" }?.values[index] ?? 0 }
            let order = knee ? table.configurations.indices.sorted { rate($0) < rate($1) } : Array(table.configurations.indices)
            for index in order {
                let configuration = table.configurations[index]
                let cells = metrics.map { metric in section.rows.first { $0.metric == metric } }
                guard cells.contains(where: { $0?.values[index] != nil }) else { continue }
                html += "<tr><td>\(escape(configuration.label))</td>"
                for cell in cells {
                    guard let cell, let value = cell.values[index] else {
                        html += "<td>—</td>"
                        continue
                    }
                    let verdict = knee ? "" : ConfigurationComparison.verdict(cell, index)
                    html += "<td\(verdict.isEmpty ? "" : " class=\"\(verdict.replacingOccurrences(of: " ", with: "-"))\"")>"
                        + escape(NumberText.value(value, unit: cell.unit))
                    if !knee, let delta = cell.deltas[index] {
                        html += "<br/><span class=\"delta\">\(escape(NumberText.percent(delta)))\(verdict.isEmpty ? "" : " " + escape(verdict))</span>"
                    }
                    html += "</td>"
                }
                html += "</tr>\n"
            }
        }
        html += "</table></div>\n<p class=\"caption\">"
            + (knee
                ? "One row per knee step, by offered rate; requests/s are pages/s. A step held when every SLO held and it achieved enough of its rate (knee --min-achieved).</p>\n"
                : "Medians over repetitions; changes against the first configuration"
                    + (table.sections.count > 1 ? " at the same concurrency (and stage)" : "")
                    + ". A figure per page is marked not comparable where a configuration's limit differs from the first's (a page is then another unit).</p>\n")
        return html + "</section>\n"
    }

    /// One sentence per question the rows can answer: the knee, each stage against its plan,
    /// and what each configuration costs per drain.
    func verdicts(_ table: ConfigurationComparison, rows: [ResultRow]) -> [String] {
        func code(_ text: String) -> String { "<strong>\(escape(text))</strong>" }
        func count(_ value: Double) -> String { escape(NumberText.number(value, digits: 3)) }
        var sentences: [String] = []
        let steps = rows.filter(Self.isKneeStep).sorted { $0.plannedDrainsPerSecond! < $1.plannedDrainsPerSecond! }
        if !steps.isEmpty {
            let held = steps.filter { $0.sloHeld == 1 }
            if let knee = held.last {
                let next = steps.first { $0.plannedDrainsPerSecond! > knee.plannedDrainsPerSecond! && $0.sloHeld != 1 }
                sentences.append(
                    "The knee: \(code(NumberText.compact(knee.plannedDrainsPerSecond!) + " drains/s")) offered held every SLO, "
                        + (knee.startedDrainsPerSecond.map { "starting \(escape(NumberText.compact($0))) drains/s, " } ?? "")
                        + "completing \(escape(NumberText.compact(knee.drainsPerSecond))) drains/s and \(escape(NumberText.compact(knee.pagesPerSecond))) requests/s"
                        + (knee.drainLatencyCorrected.map { " with a corrected drain p99 of \(escape(NumberText.nanoseconds($0.p99Nanoseconds)))" } ?? "")
                        + (next.map { "; the next step, \(escape(NumberText.compact($0.plannedDrainsPerSecond!))) drains/s, broke one." } ?? "; no faster step broke one: the knee may be higher."))
            } else {
                sentences.append("No step held every SLO: the knee is below \(escape(NumberText.compact(steps[0].plannedDrainsPerSecond!))) drains/s.")
            }
            return sentences
        }
        let staged = rows.filter { $0.stage != nil }.sorted { ($0.scenario, $0.repetition, $0.stage!) < ($1.scenario, $1.repetition, $1.stage!) }
        if !staged.isEmpty {
            let short = staged.filter { row in
                guard let rate = row.plannedDrainsPerSecond, rate > 0 else { return false }
                return row.drainsPerSecond < rate * 0.9
            }
            let parts = staged.map { row in
                "stage \(row.stage!) \(escape(NumberText.compact(row.drainsPerSecond))) drains/s, \(escape(NumberText.compact(row.pagesPerSecond))) requests/s"
                    + (row.plannedDrainsPerSecond.map { " of \(escape(NumberText.compact($0))) offered" } ?? "")
            }
            // Issue 35: the question of a hold is whether its SLOs held, stage by stage.
            sentences.append(Self.stageSLOVerdict(staged, objectives: objectives))
            sentences.append(
                "Stages achieved " + parts.joined(separator: "; ") + ". "
                    + (short.isEmpty
                        ? (staged.contains { $0.plannedDrainsPerSecond != nil } ? "Every stage achieved at least 90 % of its plan." : "")
                        : "Short of the plan (under 90 %): " + short.map { "stage \($0.stage!)" }.joined(separator: ", ") + "."))
            return sentences
        }
        for section in table.sections {
            func values(_ metric: String) -> [Double?]? { section.rows.first { $0.metric == metric }?.values }
            let at = table.sections.count > 1 ? "At \(escape(section.title)): " : ""
            let labels = table.configurations.map(\.label)
            guard let trips = values("pages_per_drain_mean") else { continue }
            let present = labels.indices.filter { trips[$0] != nil }
            guard let first = present.first else { continue }
            if present.count == 1 {
                let empty = values("empty_pages_per_drain")?[first] ?? nil
                sentences.append(
                    at + "\(code(labels[first])) costs \(count(trips[first]!)) round trips"
                        + (empty.map { " and \(count($0)) empty pages" } ?? "") + " per drain"
                        + (values("drain_latency_p50_ns")?[first].map { ", drains in \(escape(NumberText.nanoseconds(UInt64($0)))) (p50)" } ?? "")
                        + (values("drains_per_s")?[first].map { ", \(escape(NumberText.compact($0))) drains/s" } ?? "")
                        + (values("pages_per_s")?[first].map { " (\(escape(NumberText.compact($0))) requests/s)" } ?? "") + ".")
                continue
            }
            func best(_ metric: String, lowest: Bool) -> (index: Int, value: Double, worst: Int, worstValue: Double)? {
                guard let list = values(metric) else { return nil }
                let known = present.compactMap { index in list[index].map { (index, $0) } }
                guard let low = known.min(by: { $0.1 < $1.1 }), let high = known.max(by: { $0.1 < $1.1 }) else { return nil }
                return lowest ? (low.0, low.1, high.0, high.1) : (high.0, high.1, low.0, low.1)
            }
            var parts: [String] = []
            if let trips = best("pages_per_drain_mean", lowest: true), trips.index != trips.worst {
                parts.append("\(code(labels[trips.index])) costs the fewest round trips per drain (\(count(trips.value)), against \(count(trips.worstValue)) for \(code(labels[trips.worst])))")
            }
            if let empty = best("empty_pages_per_drain", lowest: true), empty.worstValue > 0, empty.index != empty.worst {
                parts.append("\(code(labels[empty.index])) wastes the fewest empty pages (\(count(empty.value)) per drain, against \(count(empty.worstValue)) for \(code(labels[empty.worst])))")
            }
            if let fast = best("drain_latency_p50_ns", lowest: true), fast.index != fast.worst {
                parts.append("\(code(labels[fast.index])) drains fastest (p50 \(escape(NumberText.nanoseconds(UInt64(fast.value)))), against \(escape(NumberText.nanoseconds(UInt64(fast.worstValue)))) for \(code(labels[fast.worst])))")
            }
            if let rate = best("drains_per_s", lowest: false), rate.index != rate.worst {
                let requests = values("pages_per_s")?[rate.index] ?? nil
                parts.append("\(code(labels[rate.index])) completes the most drains per second (\(escape(NumberText.compact(rate.value)))"
                    + (requests.map { ", \(escape(NumberText.compact($0))) requests/s" } ?? "") + ")")
            }
            if !parts.isEmpty { sentences.append(at + parts.joined(separator: "; ") + ".") }
        }
        return sentences
    }

    /// The plot sections these rows mean something for, most telling first, and what was
    /// left out with how to get it.
    func plotSections(_ groups: [Group]) -> (plots: [String], notShown: [String]) {
        var plots: [String] = []
        var notShown: [String] = []
        let allRows = files.flatMap(\.rows)
        // Rows of a fixed configuration: not knee steps, not stages.
        let plain = groups.map { Group(label: $0.label, rows: $0.rows.filter { $0.stage == nil && !Self.isKneeStep($0) }) }
            .filter { !$0.rows.isEmpty }
        let plainRows = plain.flatMap(\.rows)
        if allRows.contains(where: Self.isKneeStep) {
            plots.append(section("Latency against throughput (knee)", kneePlot(),
                "Each open-loop step with an SLO verdict (pagebench knee, or run --slo): corrected drain latency p99 (from each drain's intended start, H5) against the drains it completed per second; filled discs held every SLO, rings broke one; the dashed red line is the SLO's bound (the rows' slos column, or report --slo); the band marks the knee, the highest offered rate that held."))
            plots.append(section("Latency against requests/s (knee)", kneePlot(requests: true),
                "The same steps against the requests (pages) per second each one measured: SLOs and capacity are often per request."))
        }
        if allRows.contains(where: { $0.stage != nil }) || timeSeries?.contains(where: { $0.stage != nil }) == true {
            plots.append(section("Stages: plan against achieved", stageRowsPlot(),
                "Per stage (H4), from the rows: what the plan offered (rate stages: drains/s, the stage's mean; pager stages: the pagers listed above) against the drains/s achieved while the stage ran, with the requests/s beside."))
            if timeSeries?.contains(where: { $0.stage != nil }) == true {
                let charts = stagePlots()
                let captions = [
                    "From the time series, per interval: requests (pages)/s (solid) and drains/s (dashed); dashed grey lines mark where each stage begins.",
                    "The plan (dashed: target pagers, or offered drains/s in open loop) against what was achieved (solid: pagers admitted, or drains/s) per interval.",
                    "Page (request) latency p50 (solid) and p99 (dashed) per interval; log scale.",
                ]
                let titles = ["Stages over time: throughput", "Stages over time: plan against achieved", "Stages over time: latency"]
                for (index, chart) in charts.enumerated() { plots.append(section(titles[index], chart, captions[index])) }
            }
        }
        let limits = Set(plainRows.compactMap(\.limit))
        if limits.count > 1 {
            plots.append(section("Round trips and empty pages against the limit", limitPlot(plain),
                "Per drain, median over repetitions: round trips (pages fetched, solid) and wasted empty pages (dashed) at each limit; one pair of lines per configuration apart from the limit, per concurrency."))
        }
        if plain.contains(where: { Set($0.rows.map(\.concurrency)).count > 1 }) {
            plots.append(section("Throughput against concurrency", throughputPlot(plain),
                "Median requests (pages)/s (solid) and drains/s (dashed) of the repetitions; whiskers span the slowest to the fastest repetition."))
        }
        if !plainRows.isEmpty {
            plots.append(section("Drain latency percentiles", latencyPlot(plain, id: "plot-drain-latency", "drain latency", \.drainLatency),
                "Time to drain a query from its actual start; median over repetitions of each percentile; log scale."))
            // Judged per pair, as the table does (issue 35): the configurations at the first one's
            // limit are compared page for page; one at another limit is left out and named.
            let firstLimits: Set<Int> = Set(plain[0].rows.compactMap(\.limit))
            let sameLimit = plain.filter { Set($0.rows.compactMap(\.limit)) == firstLimits }
            let otherLimit = plain.filter { Set($0.rows.compactMap(\.limit)) != firstLimits }
            if limits.count <= 1 || sameLimit.count > 1 {
                let caption = "Latency of one request (page); median over repetitions of each percentile; log scale."
                    + (otherLimit.isEmpty
                        ? ""
                        : " Only the configurations at the limit of the first (\(firstLimits.sorted().map { String($0) }.joined(separator: ", "))): a page holds up to limit items, so "
                            + otherLimit.map(\.label).joined(separator: ", ") + " (another limit) is compared by drain latency.")
                plots.append(section("Page latency percentiles", latencyPlot(sameLimit, id: "plot-page-latency", "page latency", \.pageLatency), caption))
            } else {
                notShown.append("page latency percentiles (a page holds up to limit items, and the limits differ: compare drain latency)")
            }
        }
        let selectivities = Set(plainRows.compactMap { row in row.scannedItems.flatMap { $0 > 0 ? (Double(row.items) / Double($0) * 1e4).rounded() : nil } })
        if selectivities.count > 1 {
            plots.append(section("Empty pages against selectivity", emptyPagePlot(plain),
                "Empty-page rate (pages with no items but a token ÷ all pages, H1) against selectivity (items returned ÷ items scanned), one point per concurrency."))
        }
        if plainRows.contains(where: { $0.cancellationLatency != nil }) {
            plots.append(section("Cancellation latency", cancellationPlot(plain),
                "From the cancel request to the pager's task having returned (H2): box p50–p99, bar at p50, ticks at p90 and p99.9, whiskers to the maximum; log scale."))
        } else if !plainRows.isEmpty {
            notShown.append("cancellation latency (nothing was cancelled: run --cancel-fraction 0.1)")
        }
        if timeSeries?.isEmpty == false {
            plots.append(section("Memory over a run", memoryPlot(), "jemalloc allocated bytes (solid) and resident set size (dashed) per second of the run; the shaded interval is warm-up."))
        } else {
            notShown.append("memory over a run (run --timeseries FILE, then report --timeseries FILE)")
        }
        if history?.isEmpty == false {
            plots.append(section("History across commits", historyPlot(), "Median pages/s per commit, in the order the commits were first measured."))
        } else {
            notShown.append("history across commits (run --history FILE on each commit, then report --history FILE)")
        }
        return (plots, notShown)
    }

    private func section(_ heading: String, _ plot: String, _ caption: String) -> String {
        "<section>\n<h2>\(escape(heading))</h2>\n\(plot)<p class=\"caption\">\(escape(caption))</p>\n</section>\n"
    }

    /// A chart and its key (the legend, as a table under it).
    private func drawn(_ chart: SVGChart) -> String { chart.render() + chart.key() }

    private func placeholder(_ id: String, _ message: String) -> String {
        "<p class=\"empty\" id=\"\(id)\">\(escape(message))</p>\n"
    }

    private func bytes(_ value: Double) -> String { NumberText.value(value, unit: "bytes") }
    private func nanoseconds(_ value: Double) -> String { NumberText.value(value, unit: "ns") }

    // MARK: Plots

    func throughputPlot(_ groups: [Group]) -> String {
        var series: [SVGChart.Series] = []
        for group in groups {
            // A stage's concurrency is the pool of its plan, not its load: stages are plotted over time.
            let byConcurrency = Dictionary(grouping: group.rows.filter { $0.stage == nil }, by: \.concurrency)
            var item = SVGChart.Series(name: group.label + " · requests/s", points: [])
            var drains = SVGChart.Series(name: group.label + " · drains/s", points: [], dashed: true)
            for concurrency in byConcurrency.keys.sorted() {
                let values = byConcurrency[concurrency]!.map(\.pagesPerSecond)
                guard let median = Statistics.median(values) else { continue }
                item.points.append((Double(concurrency), median))
                if values.count > 1, let low = values.min(), let high = values.max() {
                    item.ranges.append((Double(concurrency), low, high))
                }
                if let rate = Statistics.median(byConcurrency[concurrency]!.map(\.drainsPerSecond)) {
                    drains.points.append((Double(concurrency), rate))
                }
            }
            if !item.points.isEmpty { series.append(item) }
            if !drains.points.isEmpty { series.append(drains) }
        }
        guard !series.isEmpty else { return placeholder("plot-throughput", "No rows to plot.") }
        let concurrencies = series.flatMap { $0.points.map(\.x) }
        let logX = (concurrencies.max() ?? 1) / max(concurrencies.min() ?? 1, 1) >= 8
        var chart = SVGChart(id: "plot-throughput", title: "Requests and drains per second against concurrency", xLabel: "concurrent pagers", yLabel: "per second")
        chart.xScale = logX ? .log : .linear
        chart.xFormat = { NumberText.number($0, digits: 3) }
        // Configurations a hundred times apart stay readable on a log axis.
        let throughputs = series.flatMap { $0.points.map(\.y) }.filter { $0 > 0 }
        if let low = throughputs.min(), let high = throughputs.max(), high / low >= 50 {
            chart.yScale = .log
            chart.yLabel = "per second (log scale)"
        }
        chart.yFormat = NumberText.compact
        chart.series = Array(series.prefix(maximumSeries * 2))
        return drawn(chart)
    }

    func emptyPagePlot(_ groups: [Group]) -> String {
        var series: [SVGChart.Series] = []
        for group in groups {
            var item = SVGChart.Series(name: group.label, points: [], connect: false)
            for (_, rows) in Dictionary(grouping: group.rows.filter { $0.stage == nil }, by: \.concurrency)
                .sorted(by: { $0.key < $1.key })
            {
                let selectivities = rows.compactMap { row in row.scannedItems.flatMap { $0 > 0 ? Double(row.items) / Double($0) : nil } }
                guard let selectivity = Statistics.median(selectivities), let rate = Statistics.median(rows.map(\.emptyPageRate))
                else { continue }
                item.points.append((selectivity, rate))
            }
            if !item.points.isEmpty { series.append(item) }
        }
        guard !series.isEmpty else {
            return placeholder("plot-empty-pages", "No rows with scanned items: selectivity is unknown.")
        }
        let xs = series.flatMap { $0.points.map(\.x) }.filter { $0 > 0 }
        var chart = SVGChart(id: "plot-empty-pages", title: "Empty-page rate against selectivity", xLabel: "selectivity (items returned ÷ items scanned)", yLabel: "empty-page rate")
        if let low = xs.min(), let high = xs.max(), high / low >= 20 { chart.xScale = .log }
        chart.xFormat = { NumberText.number($0, digits: 2) }
        chart.yFormat = { NumberText.percent($0).replacingOccurrences(of: "+", with: "") }
        chart.series = Array(series.prefix(maximumSeries * 2))
        return drawn(chart)
    }

    /// The series of a percentile plot: one per configuration × concurrency (× stage), or only
    /// each configuration's highest concurrency when that would be too many lines.
    func percentileSeries(_ groups: [Group], _ keyPath: KeyPath<ResultRow, LatencyPercentiles?>)
        -> [(name: String, percentiles: [[Double]])]
    {
        var all: [(name: String, concurrency: Int, group: String, percentiles: [[Double]])] = []
        for group in groups {
            let levels = Dictionary(grouping: group.rows) { [$0.concurrency, $0.stage ?? 0] }
            for (level, rows) in levels.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                let values = rows.compactMap { $0[keyPath: keyPath] }
                guard !values.isEmpty else { continue }
                let percentiles = values.map {
                    [$0.p50Nanoseconds, $0.p90Nanoseconds, $0.p99Nanoseconds, $0.p999Nanoseconds, $0.maxNanoseconds].map { Double($0) }
                }
                let stage = level[1] == 0 ? "" : " stage \(level[1])"
                all.append(("\(group.label) ×\(level[0])\(stage)", level[0], group.label, percentiles))
            }
        }
        if all.count > maximumSeries {
            let highest = Dictionary(grouping: all, by: \.group).compactMap { $0.value.max { $0.concurrency < $1.concurrency } }
            all = all.filter { item in highest.contains { $0.name == item.name } }
        }
        return all.prefix(maximumSeries * 2).map { ($0.name, $0.percentiles) }
    }

    func latencyPlot(_ groups: [Group], id: String, _ what: String, _ keyPath: KeyPath<ResultRow, LatencyPercentiles?>) -> String {
        let labels = ["p50", "p90", "p99", "p99.9", "max"]
        let series: [SVGChart.Series] = percentileSeries(groups, keyPath).map { name, samples in
            var item = SVGChart.Series(name: name, points: [])
            for index in labels.indices {
                let values = samples.map { $0[index] }
                guard let median = Statistics.median(values) else { continue }
                item.points.append((Double(index), max(median, 1)))
                if values.count > 1, let low = values.min(), let high = values.max() {
                    item.ranges.append((Double(index), max(low, 1), max(high, 1)))
                }
            }
            return item
        }
        guard !series.isEmpty else {
            return placeholder(id, "No \(what) in these rows (per-page timing off, or nothing measured).")
        }
        var chart = SVGChart(id: id, title: "\(what.prefix(1).uppercased() + what.dropFirst()) percentiles", xLabel: "percentile", yLabel: "latency (log scale)")
        chart.xScale = .categorical(labels)
        chart.yScale = .log
        chart.yFormat = nanoseconds
        chart.series = series
        return drawn(chart)
    }

    func memoryPlot() -> String {
        guard let timeSeries, !timeSeries.isEmpty else {
            return placeholder("plot-memory", "No time series given: run with --timeseries FILE and pass it to pagebench report --timeseries FILE.")
        }
        struct PhaseKey: Hashable, Comparable {
            var scenario: String, pagerKind: String, concurrency: Int, repetition: Int
            static func < (a: PhaseKey, b: PhaseKey) -> Bool {
                (a.scenario, a.pagerKind, a.concurrency, a.repetition) < (b.scenario, b.pagerKind, b.concurrency, b.repetition)
            }
        }
        var runs = Dictionary(grouping: timeSeries) {
            PhaseKey(scenario: $0.scenario, pagerKind: $0.pagerKind, concurrency: $0.concurrency, repetition: $0.repetition)
        }
        if runs.count > maximumSeries / 2 { runs = runs.filter { $0.key.repetition == runs.keys.map(\.repetition).min() } }
        let keys = Array(runs.keys.sorted().prefix(maximumSeries / 2))
        var series: [SVGChart.Series] = []
        for key in keys {
            let rows = runs[key]!.sorted { $0.elapsedSeconds < $1.elapsedSeconds }
            let name = "\(key.scenario) \(key.pagerKind) ×\(key.concurrency) #\(key.repetition)"
            series.append(SVGChart.Series(name: name + " allocated", points: rows.map { ($0.elapsedSeconds, Double($0.allocatedBytes)) }))
            series.append(SVGChart.Series(name: name + " RSS", points: rows.map { ($0.elapsedSeconds, Double($0.rssBytes)) }, dashed: true))
        }
        var chart = SVGChart(id: "plot-memory", title: "Memory over the run", xLabel: "seconds since start", yLabel: "bytes")
        chart.series = series
        chart.yFormat = bytes
        chart.yTickUnit = 1_048_576
        chart.xFormat = { NumberText.number($0, digits: 3) + " s" }
        let warmupEnd = timeSeries.filter(\.isWarmup).map(\.elapsedSeconds).max()
        if let warmupEnd, let start = timeSeries.map(\.elapsedSeconds).min() {
            chart.bands = [(min(0, start), warmupEnd, "warm-up")]
        }
        return drawn(chart)
    }

    /// The three plots of staged runs over time: throughput, latency, and pagers (or rate),
    /// each with the stage boundaries marked (from the first run's time series).
    func stagePlots() -> [String] {
        let staged = (timeSeries ?? []).filter { $0.stage != nil }
        guard !staged.isEmpty else {
            return Self.stagePlotIDs.map {
                placeholder($0, "No staged time series given: run the stages with --timeseries FILE and pass it to pagebench report --timeseries FILE.")
            }
        }
        struct PhaseKey: Hashable, Comparable {
            var scenario: String, pagerKind: String, concurrency: Int, repetition: Int
            static func < (a: PhaseKey, b: PhaseKey) -> Bool {
                (a.scenario, a.pagerKind, a.concurrency, a.repetition) < (b.scenario, b.pagerKind, b.concurrency, b.repetition)
            }
            var name: String { "\(scenario) #\(repetition)" }
        }
        let runs = Dictionary(grouping: staged) {
            PhaseKey(scenario: $0.scenario, pagerKind: $0.pagerKind, concurrency: $0.concurrency, repetition: $0.repetition)
        }.mapValues { $0.sorted { $0.elapsedSeconds < $1.elapsedSeconds } }
        let keys = Array(runs.keys.sorted().prefix(maximumSeries / 2))
        // A stage begins where the previous stage's last interval ends.
        var markers: [(x: Double, caption: String)] = []
        if let first = keys.first.flatMap({ runs[$0] }) {
            markers.append((0, "stage \(first[0].stage ?? 1)"))
            for (previous, row) in zip(first, first.dropFirst()) where row.stage != previous.stage {
                markers.append((previous.elapsedSeconds, "stage \(row.stage ?? 0)"))
            }
        }
        func chart(_ id: String, _ title: String, _ yLabel: String) -> SVGChart {
            var chart = SVGChart(id: id, title: title, xLabel: "seconds since the plan started", yLabel: yLabel)
            chart.xFormat = { NumberText.number($0, digits: 3) + " s" }
            chart.markers = markers
            return chart
        }
        func points(_ rows: [TimeSeriesRow], _ value: (TimeSeriesRow) -> Double?) -> [(x: Double, y: Double)] {
            rows.compactMap { row in value(row).map { (row.elapsedSeconds, $0) } }
        }

        var throughput = chart("plot-stage-throughput", "Requests and drains per second over the stages", "per second")
        throughput.yFormat = NumberText.compact
        for key in keys {
            throughput.series.append(SVGChart.Series(name: "requests (pages)/s (\(key.name))", points: points(runs[key]!) { $0.pagesPerSecond }))
            throughput.series.append(SVGChart.Series(name: "drains/s (\(key.name))", points: points(runs[key]!) { $0.drainsPerSecond }, dashed: true))
        }

        var latency = chart("plot-stage-latency", "Page latency over the stages", "page latency (log scale)")
        latency.yScale = .log
        latency.yFormat = nanoseconds
        for key in keys {
            let rows = runs[key]!
            latency.series.append(SVGChart.Series(name: "page latency p50 (\(key.name))", points: points(rows) { $0.pageLatencyP50Nanoseconds.map { Double($0) } }))
            latency.series.append(
                SVGChart.Series(name: "page latency p99 (\(key.name))", points: points(rows) { $0.pageLatencyP99Nanoseconds.map { Double($0) } }, dashed: true))
        }
        latency.series = latency.series.filter { !$0.points.isEmpty }
        // Issue 35: the SLO's bound against latency over time, where the SLO bounds a latency
        // percentile (the page latency it draws, or a drain latency: the bound still reads).
        let bounds = objectives.isEmpty ? ServiceLevelObjective.recorded(in: files.flatMap(\.rows).filter { $0.stage != nil }) : objectives
        for objective in bounds where objective.column.hasSuffix("_ns") && objective.column.contains("latency") {
            latency.levels.append((objective.bound, "SLO: \(objective.description)"))
        }

        let closedLoop = staged.contains { $0.plannedPagers != nil }
        var load = chart(
            "plot-stage-pagers", closedLoop ? "Pagers over the stages" : "Arrival rate over the stages",
            closedLoop ? "pagers" : "drains/s")
        load.yFormat = NumberText.compact
        for key in keys {
            let rows = runs[key]!
            if closedLoop {
                load.series.append(SVGChart.Series(name: "achieved: pagers admitted (\(key.name))", points: points(rows) { $0.activePagers.map { Double($0) } }))
                load.series.append(SVGChart.Series(name: "plan: target pagers (\(key.name))", points: points(rows) { $0.plannedPagers }, dashed: true))
            } else {
                load.series.append(SVGChart.Series(name: "achieved: drains/s (\(key.name))", points: points(rows) { $0.drainsPerSecond }))
                load.series.append(SVGChart.Series(name: "plan: offered drains/s (\(key.name))", points: points(rows) { $0.plannedDrainsPerSecond }, dashed: true))
            }
        }
        load.series = load.series.filter { !$0.points.isEmpty }
        // Requests/s and drains/s differ by the pages per drain: a log axis keeps both readable.
        let rates = throughput.series.flatMap { $0.points.map(\.y) }.filter { $0 > 0 }
        if let low = rates.min(), let high = rates.max(), high / low >= 20 {
            throughput.yScale = .log
            throughput.yLabel = "per second (log scale)"
        }
        return [throughput, load, latency].map { $0.series.isEmpty ? placeholder($0.id, "No values to plot.") : drawn($0) }
    }

    /// Whether a staged run's SLOs held, stage by stage (`report --slo`, else the SLOs the rows
    /// were judged on): "Every SLO held in every stage", the stages and bounds that broke, or
    /// that no SLO judged the stages (issue 35: "did latency hold?" is the question).
    static func stageSLOVerdict(_ staged: [ResultRow], objectives given: [ServiceLevelObjective]) -> String {
        let objectives = given.isEmpty ? ServiceLevelObjective.recorded(in: staged) : given
        guard !objectives.isEmpty else {
            return "No SLO judged these stages: run them with --slo (e.g. drain_latency_corrected_p99_ns&lt;100ms) to ask whether latency held."
        }
        var broken: [String] = []
        for row in staged {
            for objective in objectives {
                if case .broke(let value, _) = objective.judge(row) {
                    broken.append("stage \(row.stage!) \(objective.column) \(objective.formatted(value)) (\(objective.description))")
                }
            }
        }
        let names = objectives.map(\.description).joined(separator: ", ")
        guard !broken.isEmpty else { return "Every SLO held in every stage: <strong>\(escape(names))</strong>." }
        return "SLOs broke: <strong>" + escape(broken.joined(separator: "; ")) + "</strong>."
    }

    /// A workload column of "What was compared": its value; for a target row that left it
    /// empty, "—" (nothing of the kind was sent to that API, issue 35); "?" for a file too old
    /// to say (schema 5 and earlier).
    static func column(_ value: String, _ row: ResultRow) -> String {
        value.isEmpty ? notSent(row) : value
    }

    /// "—" for a target row's workload column that does not apply, "?" where a file is too old to say.
    static func notSent(_ row: ResultRow) -> String { row.targetKind.isEmpty ? "?" : "—" }

    /// A step of a knee search: an open-loop row at an offered rate with an SLO verdict.
    static func isKneeStep(_ row: ResultRow) -> Bool {
        row.sloHeld != nil && row.plannedDrainsPerSecond != nil && row.drainLatencyCorrected != nil && row.stage == nil
    }

    /// Corrected drain latency p99 against achieved drains/s (or, `requests`, against each
    /// step's measured requests/s: issue 35, not a median ratio times drains/s) for every knee
    /// step, held and broken apart, with the knee (the highest offered rate that held) marked.
    func kneePlot(requests: Bool = false) -> String {
        let throughput: (ResultRow) -> Double = requests ? { $0.pagesPerSecond } : { $0.drainsPerSecond }
        let steps = files.flatMap { file in file.rows.filter(Self.isKneeStep).map { (file.path, $0) } }
        var held = SVGChart.Series(name: "step held every SLO", points: [], connect: false)
        var broke = SVGChart.Series(name: "step broke an SLO", points: [], connect: false, hollow: true)
        for (_, row) in steps.sorted(by: { throughput($0.1) < throughput($1.1) }) {
            guard let latency = row.drainLatencyCorrected?.p99Nanoseconds else { continue }
            let point = (x: throughput(row), y: Double(latency))
            if row.sloHeld == 1 { held.points.append(point) } else { broke.points.append(point) }
        }
        var chart = SVGChart(
            id: requests ? "plot-knee-requests" : "plot-knee",
            title: "Corrected drain latency p99 against " + (requests ? "requests/s" : "drains/s"),
            xLabel: requests ? "requests (pages)/s completed, measured per step" : "drains/s completed",
            yLabel: "drain latency p99, corrected")
        chart.yScale = .log
        chart.yFormat = { NumberText.value($0, unit: "ns") }
        chart.xFormat = NumberText.compact
        chart.series = [held, broke].filter { !$0.points.isEmpty }
        // `report --slo`, else the SLOs the steps were judged on (the `slos` column).
        let bounds = objectives.isEmpty ? ServiceLevelObjective.recorded(in: steps.map(\.1)) : objectives
        for objective in bounds where objective.column == "drain_latency_corrected_p99_ns" {
            chart.levels.append((objective.bound, "SLO: \(objective.description)"))
        }
        if let knee = steps.filter({ $0.1.sloHeld == 1 }).max(by: { $0.1.plannedDrainsPerSecond! < $1.1.plannedDrainsPerSecond! })?.1 {
            let x = throughput(knee)
            let perSecond = knee.pagesPerSecond > 0 ? ", \(NumberText.compact(knee.pagesPerSecond)) requests/s" : ""
            chart.bands = [(from: x * 0.99, to: x * 1.01, caption: "knee \(NumberText.compact(knee.plannedDrainsPerSecond!)) drains/s\(perSecond)")]
        }
        return drawn(chart)
    }

    /// Per stage: the plan against the drains/s and requests/s achieved, from the rows alone.
    func stageRowsPlot() -> String {
        let rows = files.flatMap(\.rows).filter { $0.stage != nil }.sorted { ($0.scenario, $0.stage!) < ($1.scenario, $1.stage!) }
        let first = rows.first.map { (scenario: $0.scenario, configHash: $0.configHash) }
        let run = rows.filter { $0.scenario == first?.scenario && $0.configHash == first?.configHash && $0.repetition == (rows.first?.repetition ?? 1) }
        guard !run.isEmpty else { return placeholder("plot-stage-plan", "No stage rows in these files.") }
        let x = { (row: ResultRow) in (row.stageStartSeconds ?? 0) + (row.targetDurationSeconds ?? 0) / 2 }
        var chart = SVGChart(id: "plot-stage-plan", title: "Plan against achieved, per stage", xLabel: "seconds since the plan started (middle of each stage)", yLabel: "per second")
        chart.xFormat = { NumberText.number($0, digits: 3) + " s" }
        chart.yFormat = NumberText.compact
        chart.markers = run.map { ((($0.stageStartSeconds ?? 0)), "stage \($0.stage!)") }
        let rate = run.contains { $0.stageRateFrom != nil }
        if rate {
            // Issue 35: the plan as it was, each stage's ramp from its start to its end, not a
            // line through the stage means that hides a hold between two ramps.
            var plan: [(x: Double, y: Double)] = []
            for row in run {
                guard let from = row.stageRateFrom, let to = row.stageRateTo, let start = row.stageStartSeconds else { continue }
                plan.append((start, from))
                plan.append((start + (row.targetDurationSeconds ?? 0), to))
            }
            chart.series.append(SVGChart.Series(name: "plan: offered drains/s", points: plan, dashed: true))
        }
        chart.series.append(SVGChart.Series(name: "achieved: drains/s (stage mean)", points: run.map { (x($0), $0.drainsPerSecond) }, connect: false))
        chart.yLabel = "drains/s"
        var html = drawn(chart)
        html += "<p class=\"caption\">Requests (pages)/s achieved: " + run.map { "stage \($0.stage!) \(NumberText.compact($0.pagesPerSecond))" }.joined(separator: ", ") + ".</p>\n"
        if !rate {
            html += "<p class=\"caption\">Plan (pagers): " + run.map { "stage \($0.stage!) \($0.stagePagersFrom ?? 0)→\($0.stagePagersTo ?? 0)" }.joined(separator: ", ") + ".</p>\n"
        }
        return html
    }

    /// Round trips and wasted empty pages per drain against the limit (issue 26): one pair of
    /// lines per configuration apart from its limit, per concurrency.
    func limitPlot(_ groups: [Group]) -> String {
        let rows = groups.flatMap(\.rows).filter { $0.drains > 0 }
        // The configuration apart from the limit: the label parameters without it.
        func family(_ row: ResultRow) -> [ConfigurationLabel.Parameter] { row.labelParameters.filter { $0.name != "limit" } }
        let byFamily = Dictionary(grouping: rows) { FamilyKey(parameters: family($0), concurrency: $0.concurrency) }
        let keys = byFamily.keys.sorted { ($0.parameters.map(\.value).joined(), $0.concurrency) < ($1.parameters.map(\.value).joined(), $1.concurrency) }
        let names = ConfigurationLabel.distinguishing(keys.map(\.parameters), fallback: keys.map { _ in "" })
        let concurrencies = Set(keys.map(\.concurrency)).count
        var series: [SVGChart.Series] = []
        for (key, name) in zip(keys, names) {
            let byLimit = Dictionary(grouping: byFamily[key]!.filter { $0.limit != nil }, by: { $0.limit ?? 0 })
            var name = name
            if concurrencies > 1 { name += (name.isEmpty ? "" : " ") + "×\(key.concurrency)" }
            let prefix = name.isEmpty ? "" : name + " · "
            var trips = SVGChart.Series(name: prefix + "round trips per drain", points: [])
            var empty = SVGChart.Series(name: prefix + "empty pages per drain", points: [], dashed: true)
            for limit in byLimit.keys.sorted() {
                let group = byLimit[limit]!
                if let value = Statistics.median(group.map(\.pagesPerDrainMean)) { trips.points.append((Double(limit), value)) }
                if let value = Statistics.median(group.map { Double($0.emptyPagesWasted) / Double($0.drains) }) {
                    empty.points.append((Double(limit), value))
                }
            }
            series += [trips, empty]
        }
        var chart = SVGChart(id: "plot-limit", title: "Round trips and empty pages per drain against the limit", xLabel: "limit (items per request)", yLabel: "pages per drain")
        let limits = rows.compactMap { $0.limit.map(Double.init) }
        if let low = limits.min(), let high = limits.max(), high / max(low, 1) >= 8 { chart.xScale = .log }
        chart.xFormat = { NumberText.number($0, digits: 3) }
        chart.yFormat = { NumberText.number($0, digits: 3) }
        chart.series = Array(series.prefix(maximumSeries * 2))
        return drawn(chart)
    }

    struct FamilyKey: Hashable {
        var parameters: [ConfigurationLabel.Parameter]
        var concurrency: Int
    }

    func cancellationPlot(_ groups: [Group]) -> String {
        let series = percentileSeries(groups, \.cancellationLatency)
        guard !series.isEmpty else {
            return placeholder("plot-cancellation", "Nothing was cancelled in these runs: no cancellation latency to show.")
        }
        var chart = SVGChart(id: "plot-cancellation", title: "Cancellation latency distribution", xLabel: "latency (log scale)", yLabel: "")
        chart.xScale = .log
        chart.yScale = .categorical(series.map(\.name))
        chart.xFormat = nanoseconds
        chart.yIncludesZero = false
        chart.boxes = series.map { name, samples in
            let median = { (index: Int) in max(Statistics.median(samples.map { $0[index] }) ?? 1, 1) }
            return SVGChart.Box(name: name, low: median(0), boxLow: median(0), middle: median(0), boxHigh: median(2), high: median(4), marks: [median(1), median(3)])
        }
        chart.height = max(200, 90 + Double(series.count) * 34)
        return drawn(chart)
    }

    func historyPlot() -> String {
        guard let history, !history.isEmpty else {
            return placeholder("plot-history", "No history given: append each run's rows to a history file (pagebench run --history FILE) and pass it with --history FILE.")
        }
        // Commits in the order first measured.
        var commits: [String] = []
        for row in history.sorted(by: { $0.timestampUTC < $1.timestampUTC }) where !commits.contains(row.gitCommit) {
            commits.append(row.gitCommit)
        }
        let byIdentity = Dictionary(grouping: history, by: \.identity)
        let identities = byIdentity.keys.sorted {
            let a = Set(byIdentity[$0]!.map(\.gitCommit)).count, b = Set(byIdentity[$1]!.map(\.gitCommit)).count
            return a != b ? a > b : $0 < $1
        }.prefix(maximumSeries)
        let series: [SVGChart.Series] = identities.map { identity in
            let rows = byIdentity[identity]!
            let points: [(x: Double, y: Double)] = commits.enumerated().compactMap { index, commit in
                Statistics.median(rows.filter { $0.gitCommit == commit }.map(\.pagesPerSecond)).map { (Double(index), $0) }
            }
            return SVGChart.Series(name: historyLabel(identity, among: Array(byIdentity.keys)), points: points)
        }
        var chart = SVGChart(id: "plot-history", title: "Pages per second across commits", xLabel: "commit (oldest first)", yLabel: "pages/s")
        chart.xScale = .categorical(commits.map { String($0.prefix(7)) + ($0.hasSuffix("-dirty") ? "*" : "") })
        chart.yFormat = NumberText.compact
        chart.series = series
        return drawn(chart)
    }

    /// A short legend label: the scenario and concurrency, plus pager kind and hash only where they vary.
    private func historyLabel(_ identity: ResultIdentity, among identities: [ResultIdentity]) -> String {
        let sameScenario = identities.filter { $0.scenario == identity.scenario }
        var label = identity.scenario
        if Set(sameScenario.map(\.configHash)).count > 1 { label += " [\(identity.configHash.prefix(6))]" }
        if Set(identities.map(\.pagerKind)).count > 1 { label += " \(identity.pagerKind)" }
        return label + " ×\(identity.concurrency)"
    }

    func comparisonTable() -> String {
        let table = ConfigurationComparison(files: files)
        let knee = files.contains { $0.rows.contains(where: Self.isKneeStep) }
        var html = ""
        for section in table.sections {
            html += "<h3>\(escape(section.title.prefix(1).uppercased() + section.title.dropFirst()))</h3>\n<table>\n<tr><th>metric</th>"
                + table.configurations.map { "<th>\(escape($0.label))</th>" }.joined() + "</tr>\n"
            for row in section.rows {
                html += "<tr><td><code>\(escape(row.metric))</code></td>"
                for index in table.configurations.indices {
                    // Knee steps are rates of one configuration, not changes of it: no better or worse.
                    let judgement = knee ? "" : ConfigurationComparison.verdict(row, index).replacingOccurrences(of: " ", with: "-")
                    html += "<td\(judgement.isEmpty ? "" : " class=\"\(judgement)\"")>\(escape(ConfigurationComparison.cellText(row, index)))</td>"
                }
                html += "</tr>\n"
            }
            html += "</table>\n"
        }
        return html
    }
}

extension HTMLReport {
    /// Writes rendered HTML to `path` atomically, creating parent directories.
    public static func write(_ html: String, to path: String) throws {
        try TextFile.write(html, to: path)
    }
}
