import PagebenchBase
import PagebenchMetrics

/// `plot-throughput`: requests/s and drains/s against concurrency.
extension HTMLReport {
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
        var chart = SVGChart(
            id: "plot-throughput",
            title: "Requests and drains per second against concurrency",
            xLabel: "concurrent pagers",
            yLabel: "per second"
        )
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
}
