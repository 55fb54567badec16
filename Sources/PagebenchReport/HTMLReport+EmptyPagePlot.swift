import PagebenchBase
import PagebenchMetrics

/// `plot-empty-pages`: the empty-page rate against selectivity (H1).
extension HTMLReport {
    func emptyPagePlot(_ groups: [Group]) -> String {
        var series: [SVGChart.Series] = []
        for group in groups {
            var item = SVGChart.Series(name: group.label, points: [], connect: false)
            for (_, rows) in Dictionary(grouping: group.rows.filter { $0.stage == nil }, by: \.concurrency)
                .sorted(by: { $0.key < $1.key })
            {
                let selectivities = rows.compactMap { row in
                    row.scannedItems.flatMap { $0 > 0 ? Double(row.items) / Double($0) : nil }
                }
                guard let selectivity = Statistics.median(selectivities),
                    let rate = Statistics.median(rows.map(\.emptyPageRate))
                else { continue }
                item.points.append((selectivity, rate))
            }
            if !item.points.isEmpty { series.append(item) }
        }
        guard !series.isEmpty else {
            return placeholder("plot-empty-pages", "No rows with scanned items: selectivity is unknown.")
        }
        let xs = series.flatMap { $0.points.map(\.x) }.filter { $0 > 0 }
        var chart = SVGChart(
            id: "plot-empty-pages",
            title: "Empty-page rate against selectivity",
            xLabel: "selectivity (items returned ÷ items scanned)",
            yLabel: "empty-page rate"
        )
        if let low = xs.min(), let high = xs.max(), high / low >= 20 { chart.xScale = .log }
        chart.xFormat = { NumberText.number($0, digits: 2) }
        chart.yFormat = { NumberText.percent($0).replacingOccurrences(of: "+", with: "") }
        chart.series = Array(series.prefix(maximumSeries * 2))
        return drawn(chart)
    }
}
