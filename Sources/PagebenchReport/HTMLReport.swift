import PagebenchBase
import PagebenchMetrics

/// One self-contained HTML page of plots (`pagebench report`): inline SVG drawn here, inline CSS,
/// no scripts and nothing fetched from the network. The markup is well-formed XML (XHTML
/// syntax), so it can be checked with any XML parser.
///
/// Plots, each an `<svg>` with a fixed id (``plotIDs``):
/// - `plot-throughput`: pages/s against concurrency, one line per configuration, whiskers
///   from the slowest to the fastest repetition;
/// - `plot-empty-pages`: empty-page rate (H1) against selectivity (items ÷ scanned items);
/// - `plot-page-latency`, `plot-drain-latency`: latency percentile curves (p50 … max);
/// - `plot-memory`: allocated and resident bytes over a run, from the time series;
/// - `plot-cancellation`: cancellation latency distribution (H2), box p50–p99, whiskers to max;
/// - `plot-history`: pages/s across commits, from a history file.
/// Staged runs (H4) add `plot-stage-throughput`, `plot-stage-latency` and `plot-stage-pagers`:
/// pages/s, page latency p50/p99 and pagers admitted (or the arrival rate) over the run, with
/// the stage boundaries drawn; their rows stay out of the plots against concurrency.
/// A plot without data says what input would fill it instead of drawing empty axes.
public struct HTMLReport: Sendable {
    public static let plotIDs = [
        "plot-throughput", "plot-empty-pages", "plot-page-latency", "plot-drain-latency", "plot-memory",
        "plot-cancellation", "plot-history",
    ]
    /// The plots of staged runs (H4), shown when a row or the time series has a stage.
    public static let stagePlotIDs = ["plot-stage-throughput", "plot-stage-latency", "plot-stage-pagers"]

    public var files: [(path: String, rows: [ResultRow])]
    public var history: [ResultRow]?
    public var timeSeries: [TimeSeriesRow]?
    public var title = "pagebench report"
    /// Lines per plot before the report keeps only each configuration's highest concurrency.
    public var maximumSeries = 8

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

    /// The whole page.
    public func render() -> String {
        let groups = groups
        let rowCount = files.reduce(0) { $0 + $1.rows.count }
        let contexts = Set(files.flatMap { $0.rows.map { "\($0.gitCommit.prefix(12)) · \($0.buildConfiguration) · Swift \($0.swiftVersion) · \($0.host) · \($0.cores) cores" } })
        var body = "<h1>\(escape(title))</h1>\n"
        body += "<p class=\"meta\">\(rowCount) rows from " + files.map { "<code>\(escape($0.path))</code>" }.joined(separator: ", ")
            + ". " + contexts.sorted().map(escape).joined(separator: "; ") + ".</p>\n"
        body += section("Throughput against concurrency", throughputPlot(groups),
            "Median pages/s of the repetitions; whiskers span the slowest to the fastest repetition.")
        body += section("Empty pages against selectivity", emptyPagePlot(groups),
            "Empty-page rate (pages with no items but a token ÷ all pages, H1) against selectivity (items returned ÷ items scanned), one point per concurrency.")
        body += section("Page latency percentiles", latencyPlot(groups, id: "plot-page-latency", "page latency", \.pageLatency),
            "Median over repetitions of each percentile; log scale.")
        body += section("Drain latency percentiles", latencyPlot(groups, id: "plot-drain-latency", "drain latency", \.drainLatency),
            "Time to drain a query from its actual start; log scale.")
        if files.contains(where: { $0.rows.contains { $0.stage != nil } }) || timeSeries?.contains(where: { $0.stage != nil }) == true {
            body += section("Stages over time", stagePlots(),
                "A staged run (H4) from its time series: pages/s, page latency p50 and p99, and the pagers admitted against the plan's target (open loop: drains/s achieved against the offered rate), per interval; dashed lines mark where each stage begins. Its rows are one per stage, in the tables below.")
        }
        body += section("Memory over a run", memoryPlot(), "jemalloc allocated bytes (solid) and resident set size (dashed) per second of the run; the shaded interval is warm-up.")
        if files.contains(where: { $0.rows.contains(where: Self.isKneeStep) }) {
            body += section("Latency against throughput (knee)", kneePlot(),
                "Each open-loop step with an SLO verdict (pagebench knee, or run --slo): corrected drain latency p99 (from each drain's intended start, H5) against the drains/s achieved; filled points held every SLO, hollow ones broke one; the band marks the knee, the highest offered rate that held.")
        }
        body += section("Cancellation latency", cancellationPlot(groups),
            "From the cancel request to the pager's task having returned (H2): box p50–p99, bar at p50, ticks at p90 and p99.9, whiskers to the maximum; log scale.")
        body += section("History across commits", historyPlot(), "Median pages/s per commit, in the order the commits were first measured.")
        body += "<h2>Configurations side by side</h2>\n" + comparisonTable()
        return """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title>\(escape(title))</title>
            <style>
            body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px auto; max-width: 1000px; padding: 0 16px; color: #1a1a1a; background: #fafafa; }
            h1 { font-size: 24px; margin-bottom: 4px; } h2 { font-size: 18px; margin: 28px 0 6px; }
            p.meta, p.caption { color: #555; font-size: 13px; margin: 4px 0 8px; }
            section { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 16px 12px; margin: 16px 0; }
            svg.plot { display: block; max-width: 100%; height: auto; }
            svg .chart-title { font-size: 14px; font-weight: 600; fill: #1a1a1a; }
            svg .tick, svg .legend, svg .band { font-size: 11px; fill: #333; }
            svg .axis-label { font-size: 12px; fill: #1a1a1a; }
            svg .grid { stroke: #e4e4e4; stroke-width: 1; } svg .frame { fill: none; stroke: #888; stroke-width: 1; }
            p.empty { color: #8a5a00; background: #fff7e0; padding: 12px; border-radius: 4px; }
            table { border-collapse: collapse; font-size: 12px; background: #fff; }
            th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; } th:first-child, td:first-child { text-align: left; }
            td.better { color: #006b3c; } td.worse { color: #b00020; }
            </style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    private func section(_ heading: String, _ plot: String, _ caption: String) -> String {
        "<section>\n<h2>\(escape(heading))</h2>\n<p class=\"caption\">\(escape(caption))</p>\n\(plot)</section>\n"
    }

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
            var item = SVGChart.Series(name: group.label, points: [])
            for concurrency in byConcurrency.keys.sorted() {
                let values = byConcurrency[concurrency]!.map(\.pagesPerSecond)
                guard let median = Statistics.median(values) else { continue }
                item.points.append((Double(concurrency), median))
                if values.count > 1, let low = values.min(), let high = values.max() {
                    item.ranges.append((Double(concurrency), low, high))
                }
            }
            if !item.points.isEmpty { series.append(item) }
        }
        guard !series.isEmpty else { return placeholder("plot-throughput", "No rows to plot.") }
        let concurrencies = series.flatMap { $0.points.map(\.x) }
        let logX = (concurrencies.max() ?? 1) / max(concurrencies.min() ?? 1, 1) >= 8
        var chart = SVGChart(id: "plot-throughput", title: "Pages per second against concurrency", xLabel: "concurrent pagers", yLabel: "pages/s")
        chart.xScale = logX ? .log : .linear
        chart.xFormat = { NumberText.number($0, digits: 3) }
        // Configurations a hundred times apart stay readable on a log axis.
        let throughputs = series.flatMap { $0.points.map(\.y) }.filter { $0 > 0 }
        if let low = throughputs.min(), let high = throughputs.max(), high / low >= 50 {
            chart.yScale = .log
            chart.yLabel = "pages/s (log scale)"
        }
        chart.yFormat = NumberText.compact
        chart.series = Array(series.prefix(maximumSeries * 2))
        return chart.render()
    }

    func emptyPagePlot(_ groups: [Group]) -> String {
        var series: [SVGChart.Series] = []
        for group in groups {
            var item = SVGChart.Series(name: group.label, points: [], connect: false)
            for (_, rows) in Dictionary(grouping: group.rows.filter { $0.stage == nil }, by: \.concurrency)
                .sorted(by: { $0.key < $1.key })
            {
                let selectivities = rows.filter { $0.scannedItems > 0 }.map { Double($0.items) / Double($0.scannedItems) }
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
        return chart.render()
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
        return chart.render()
    }

    func memoryPlot() -> String {
        guard let timeSeries, !timeSeries.isEmpty else {
            return placeholder("plot-memory", "No time series given: run with --timeseries FILE and pass it to pagebench report --timeseries FILE.")
        }
        struct RunKey: Hashable, Comparable {
            var scenario: String, pagerKind: String, concurrency: Int, repetition: Int
            static func < (a: RunKey, b: RunKey) -> Bool {
                (a.scenario, a.pagerKind, a.concurrency, a.repetition) < (b.scenario, b.pagerKind, b.concurrency, b.repetition)
            }
        }
        var runs = Dictionary(grouping: timeSeries) {
            RunKey(scenario: $0.scenario, pagerKind: $0.pagerKind, concurrency: $0.concurrency, repetition: $0.repetition)
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
        return chart.render()
    }

    /// The three plots of staged runs over time: throughput, latency, and pagers (or rate),
    /// each with the stage boundaries marked (from the first run's time series).
    func stagePlots() -> String {
        let staged = (timeSeries ?? []).filter { $0.stage != nil }
        guard !staged.isEmpty else {
            return Self.stagePlotIDs.map {
                placeholder($0, "No staged time series given: run the stages with --timeseries FILE and pass it to pagebench report --timeseries FILE.")
            }.joined()
        }
        struct RunKey: Hashable, Comparable {
            var scenario: String, pagerKind: String, concurrency: Int, repetition: Int
            static func < (a: RunKey, b: RunKey) -> Bool {
                (a.scenario, a.pagerKind, a.concurrency, a.repetition) < (b.scenario, b.pagerKind, b.concurrency, b.repetition)
            }
            var name: String { "\(scenario) #\(repetition)" }
        }
        let runs = Dictionary(grouping: staged) {
            RunKey(scenario: $0.scenario, pagerKind: $0.pagerKind, concurrency: $0.concurrency, repetition: $0.repetition)
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

        var throughput = chart("plot-stage-throughput", "Pages per second over the stages", "pages/s")
        throughput.yFormat = NumberText.compact
        throughput.series = keys.map { SVGChart.Series(name: $0.name, points: points(runs[$0]!) { $0.pagesPerSecond }) }

        var latency = chart("plot-stage-latency", "Page latency over the stages", "page latency (log scale)")
        latency.yScale = .log
        latency.yFormat = nanoseconds
        for key in keys {
            let rows = runs[key]!
            latency.series.append(SVGChart.Series(name: key.name + " p50", points: points(rows) { $0.pageLatencyP50Nanoseconds.map { Double($0) } }))
            latency.series.append(
                SVGChart.Series(name: key.name + " p99", points: points(rows) { $0.pageLatencyP99Nanoseconds.map { Double($0) } }, dashed: true))
        }
        latency.series = latency.series.filter { !$0.points.isEmpty }

        let closedLoop = staged.contains { $0.targetPagers != nil }
        var load = chart(
            "plot-stage-pagers", closedLoop ? "Pagers over the stages" : "Arrival rate over the stages",
            closedLoop ? "pagers" : "drains/s")
        load.yFormat = NumberText.compact
        for key in keys {
            let rows = runs[key]!
            if closedLoop {
                load.series.append(SVGChart.Series(name: key.name + " admitted", points: points(rows) { $0.activePagers.map { Double($0) } }))
                load.series.append(SVGChart.Series(name: key.name + " plan", points: points(rows) { $0.targetPagers }, dashed: true))
            } else {
                load.series.append(SVGChart.Series(name: key.name + " drains/s", points: points(rows) { $0.drainsPerSecond }))
                load.series.append(SVGChart.Series(name: key.name + " offered", points: points(rows) { $0.targetDrainsPerSecond }, dashed: true))
            }
        }
        load.series = load.series.filter { !$0.points.isEmpty }
        return [throughput, latency, load].map { $0.series.isEmpty ? placeholder($0.id, "No values to plot.") : $0.render() }.joined()
    }

    /// A step of a knee search: an open-loop row at an offered rate with an SLO verdict.
    static func isKneeStep(_ row: ResultRow) -> Bool {
        row.sloHeld != nil && row.targetDrainsPerSecond != nil && row.drainLatencyCorrected != nil && row.stage == nil
    }

    /// Corrected drain latency p99 against achieved drains/s for every knee step, held and
    /// broken apart, with the knee (the highest offered rate that held) marked.
    func kneePlot() -> String {
        let steps = files.flatMap { file in file.rows.filter(Self.isKneeStep).map { (file.path, $0) } }
        var held = SVGChart.Series(name: "SLOs held", points: [], connect: false)
        var broke = SVGChart.Series(name: "an SLO broke", points: [], connect: false, dashed: true)
        for (_, row) in steps.sorted(by: { $0.1.drainsPerSecond < $1.1.drainsPerSecond }) {
            guard let latency = row.drainLatencyCorrected?.p99Nanoseconds else { continue }
            let point = (x: row.drainsPerSecond, y: Double(latency))
            if row.sloHeld == 1 { held.points.append(point) } else { broke.points.append(point) }
        }
        var chart = SVGChart(
            id: "plot-knee", title: "Corrected drain latency p99 against throughput", xLabel: "drains/s achieved",
            yLabel: "drain latency p99, corrected")
        chart.yScale = .log
        chart.yFormat = { NumberText.value($0, unit: "ns") }
        chart.xFormat = NumberText.compact
        chart.series = [held, broke].filter { !$0.points.isEmpty }
        if let knee = steps.filter({ $0.1.sloHeld == 1 }).max(by: { $0.1.targetDrainsPerSecond! < $1.1.targetDrainsPerSecond! })?.1 {
            let x = knee.drainsPerSecond
            chart.bands = [(from: x * 0.99, to: x * 1.01, caption: "knee \(NumberText.compact(knee.targetDrainsPerSecond!)) drains/s")]
        }
        return chart.render()
    }

    func cancellationPlot(_ groups: [Group]) -> String {
        let series = percentileSeries(groups, \.cancellationLatency)
        guard !series.isEmpty else {
            return placeholder("plot-cancellation", "Nothing was cancelled in these runs: no cancellation latency to show.")
        }
        var chart = SVGChart(id: "plot-cancellation", title: "Cancellation latency distribution", xLabel: "latency (log scale)", yLabel: "")
        chart.xScale = .log
        chart.yScale = .categorical(series.map { SVGChart.shorten($0.name, 30) })
        chart.xFormat = nanoseconds
        chart.yIncludesZero = false
        chart.boxes = series.map { name, samples in
            let median = { (index: Int) in max(Statistics.median(samples.map { $0[index] }) ?? 1, 1) }
            return SVGChart.Box(name: name, low: median(0), boxLow: median(0), middle: median(0), boxHigh: median(2), high: median(4), marks: [median(1), median(3)])
        }
        chart.height = max(200, 90 + Double(series.count) * 34)
        return chart.render()
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
        return chart.render()
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
        var html = ""
        for section in table.sections {
            html += "<h3>\(escape(section.title.prefix(1).uppercased() + section.title.dropFirst()))</h3>\n<table>\n<tr><th>metric</th>"
                + table.configurations.map { "<th>\(escape($0.label))</th>" }.joined() + "</tr>\n"
            for row in section.rows {
                html += "<tr><td><code>\(escape(row.metric))</code></td>"
                for index in table.configurations.indices {
                    let judgement = ConfigurationComparison.verdict(row, index).replacingOccurrences(of: " ", with: "-")
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
