import PagebenchBase
import PagebenchMetrics

/// `plot-memory`: allocated bytes and RSS over a run, from a time series.
extension HTMLReport {
    func memoryPlot() -> String {
        guard let timeSeries, !timeSeries.isEmpty else {
            return placeholder(
                "plot-memory",
                "No time series given: run with --timeseries FILE and pass it to pagebench report --timeseries FILE."
            )
        }
        var runs = Dictionary(grouping: timeSeries, by: TimeSeriesPhase.init)
        if runs.count > maximumSeries / 2 {
            runs = runs.filter { $0.key.repetition == runs.keys.map(\.repetition).min() }
        }
        let keys = Array(runs.keys.sorted().prefix(maximumSeries / 2))
        var series: [SVGChart.Series] = []
        for key in keys {
            let rows = runs[key]!.sorted { $0.elapsedSeconds < $1.elapsedSeconds }
            let name = "\(key.scenario) \(key.pagerKind) ×\(key.concurrency) #\(key.repetition)"
            series.append(
                SVGChart.Series(
                    name: name + " allocated",
                    points: rows.map { ($0.elapsedSeconds, Double($0.allocatedBytes)) }
                )
            )
            series.append(
                SVGChart.Series(
                    name: name + " RSS",
                    points: rows.map { ($0.elapsedSeconds, Double($0.rssBytes)) },
                    dashed: true
                )
            )
        }
        var chart = SVGChart(
            id: "plot-memory",
            title: "Memory over the run",
            xLabel: "seconds since start",
            yLabel: "bytes"
        )
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
}
