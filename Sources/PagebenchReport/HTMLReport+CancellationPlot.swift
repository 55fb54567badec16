import PagebenchBase
import PagebenchMetrics

/// `plot-cancellation`: the cancellation latency distribution (H2).
extension HTMLReport {
    func cancellationPlot(_ groups: [Group]) -> String {
        let series = percentileSeries(groups, \.cancellationLatency)
        guard !series.isEmpty else {
            return placeholder(
                "plot-cancellation",
                "Nothing was cancelled in these runs: no cancellation latency to show."
            )
        }
        var chart = SVGChart(
            id: "plot-cancellation",
            title: "Cancellation latency distribution",
            xLabel: "latency (log scale)",
            yLabel: ""
        )
        chart.xScale = .log
        chart.yScale = .categorical(series.map(\.name))
        chart.xFormat = nanoseconds
        chart.yIncludesZero = false
        chart.boxes = series.map { name, samples in
            let median = { (index: Int) in max(Statistics.median(samples.map { $0[index] }) ?? 1, 1) }
            return SVGChart.Box(
                name: name,
                low: median(0),
                boxLow: median(0),
                middle: median(0),
                boxHigh: median(2),
                high: median(4),
                marks: [median(1), median(3)]
            )
        }
        chart.height = max(200, 90 + Double(series.count) * 34)
        return drawn(chart)
    }
}
