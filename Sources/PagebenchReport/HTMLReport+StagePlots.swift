import PagebenchBase
import PagebenchMetrics

/// The staged run over time (H4), from a time series: `plot-stage-throughput`,
/// `plot-stage-pagers` and `plot-stage-latency`.
extension HTMLReport {
    /// The three plots of staged runs over time: throughput, latency, and pagers (or rate),
    /// each with the stage boundaries marked (from the first run's time series).
    func stagePlots() -> [String] {
        let staged = (timeSeries ?? []).filter { $0.stage != nil }
        guard !staged.isEmpty else {
            return Self.stagePlotIDs.map {
                placeholder(
                    $0,
                    "No staged time series given: run the stages with --timeseries FILE and pass it to pagebench report --timeseries FILE."
                )
            }
        }
        let runs = Dictionary(grouping: staged, by: TimeSeriesPhase.init).mapValues {
            $0.sorted { $0.elapsedSeconds < $1.elapsedSeconds }
        }
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
            throughput.series.append(
                SVGChart.Series(
                    name: "requests (pages)/s (\(key.shortName))",
                    points: points(runs[key]!) { $0.pagesPerSecond }
                )
            )
            throughput.series.append(
                SVGChart.Series(
                    name: "drains/s (\(key.shortName))",
                    points: points(runs[key]!) { $0.drainsPerSecond },
                    dashed: true
                )
            )
        }

        var latency = chart("plot-stage-latency", "Page latency over the stages", "page latency (log scale)")
        latency.yScale = .log
        latency.yFormat = nanoseconds
        for key in keys {
            let rows = runs[key]!
            latency.series.append(
                SVGChart.Series(
                    name: "page latency p50 (\(key.shortName))",
                    points: points(rows) { $0.pageLatencyP50Nanoseconds.map { Double($0) } }
                )
            )
            latency.series.append(
                SVGChart.Series(
                    name: "page latency p99 (\(key.shortName))",
                    points: points(rows) { $0.pageLatencyP99Nanoseconds.map { Double($0) } },
                    dashed: true
                )
            )
        }
        latency.series = latency.series.filter { !$0.points.isEmpty }
        // Issue 35: the SLO's bound against latency over time, where the SLO bounds a latency
        // percentile (the page latency it draws, or a drain latency: the bound still reads).
        let bounds =
            objectives.isEmpty
            ? ServiceLevelObjective.recorded(in: files.flatMap(\.rows).filter { $0.stage != nil }) : objectives
        for objective in bounds where objective.column.hasSuffix("_ns") && objective.column.contains("latency") {
            latency.levels.append((objective.bound, "SLO: \(objective.description)"))
        }

        let closedLoop = staged.contains { $0.plannedPagers != nil }
        var load = chart(
            "plot-stage-pagers",
            closedLoop ? "Pagers over the stages" : "Arrival rate over the stages",
            closedLoop ? "pagers" : "drains/s"
        )
        load.yFormat = NumberText.compact
        for key in keys {
            let rows = runs[key]!
            if closedLoop {
                load.series.append(
                    SVGChart.Series(
                        name: "achieved: pagers admitted (\(key.shortName))",
                        points: points(rows) { $0.activePagers.map { Double($0) } }
                    )
                )
                load.series.append(
                    SVGChart.Series(
                        name: "plan: target pagers (\(key.shortName))",
                        points: points(rows) { $0.plannedPagers },
                        dashed: true
                    )
                )
            } else {
                load.series.append(
                    SVGChart.Series(
                        name: "achieved: drains/s (\(key.shortName))",
                        points: points(rows) { $0.drainsPerSecond }
                    )
                )
                load.series.append(
                    SVGChart.Series(
                        name: "plan: offered drains/s (\(key.shortName))",
                        points: points(rows) { $0.plannedDrainsPerSecond },
                        dashed: true
                    )
                )
            }
        }
        load.series = load.series.filter { !$0.points.isEmpty }
        // Requests/s and drains/s differ by the pages per drain: a log axis keeps both readable.
        let rates = throughput.series.flatMap { $0.points.map(\.y) }.filter { $0 > 0 }
        if let low = rates.min(), let high = rates.max(), high / low >= 20 {
            throughput.yScale = .log
            throughput.yLabel = "per second (log scale)"
        }
        return [throughput, load, latency].map {
            $0.series.isEmpty ? placeholder($0.id, "No values to plot.") : drawn($0)
        }
    }
}
