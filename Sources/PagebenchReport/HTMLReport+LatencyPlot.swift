import PagebenchBase
import PagebenchMetrics

/// `plot-drain-latency` and `plot-page-latency`: latency percentiles per configuration.
extension HTMLReport {
    /// The series of a percentile plot: one per configuration × concurrency (× stage), or only
    /// each configuration's highest concurrency when that would be too many lines.
    func percentileSeries(
        _ groups: [Group],
        _ keyPath: KeyPath<ResultRow, LatencyPercentiles?>
    )
        -> [(name: String, percentiles: [[Double]])]
    {
        var all: [(name: String, concurrency: Int, group: String, percentiles: [[Double]])] = []
        for group in groups {
            let levels = Dictionary(grouping: group.rows) { [$0.concurrency, $0.stage ?? 0] }
            for (level, rows) in levels.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                let values = rows.compactMap { $0[keyPath: keyPath] }
                guard !values.isEmpty else { continue }
                let percentiles = values.map {
                    [$0.p50Nanoseconds, $0.p90Nanoseconds, $0.p99Nanoseconds, $0.p999Nanoseconds, $0.maxNanoseconds].map
                    { Double($0) }
                }
                let stage = level[1] == 0 ? "" : " stage \(level[1])"
                all.append(("\(group.label) ×\(level[0])\(stage)", level[0], group.label, percentiles))
            }
        }
        if all.count > maximumSeries {
            let highest = Dictionary(grouping: all, by: \.group).compactMap {
                $0.value.max { $0.concurrency < $1.concurrency }
            }
            all = all.filter { item in highest.contains { $0.name == item.name } }
        }
        return all.prefix(maximumSeries * 2).map { ($0.name, $0.percentiles) }
    }

    func latencyPlot(
        _ groups: [Group],
        id: String,
        _ what: String,
        _ keyPath: KeyPath<ResultRow, LatencyPercentiles?>
    ) -> String {
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
        var chart = SVGChart(
            id: id,
            title: "\(what.prefix(1).uppercased() + what.dropFirst()) percentiles",
            xLabel: "percentile",
            yLabel: "latency (log scale)"
        )
        chart.xScale = .categorical(labels)
        chart.yScale = .log
        chart.yFormat = nanoseconds
        chart.series = series
        return drawn(chart)
    }
}
