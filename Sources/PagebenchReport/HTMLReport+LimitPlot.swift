import PagebenchBase
import PagebenchMetrics

/// `plot-limit`: round trips and empty pages per drain against the limit (issue 26).
extension HTMLReport {
    /// Round trips and wasted empty pages per drain against the limit (issue 26): one pair of
    /// lines per configuration apart from its limit, per concurrency.
    func limitPlot(_ groups: [Group]) -> String {
        let rows = groups.flatMap(\.rows).filter { $0.drains > 0 }
        // The configuration apart from the limit: the label parameters without it.
        func family(_ row: ResultRow) -> [ConfigurationLabel.Parameter] {
            row.labelParameters.filter { $0.name != "limit" }
        }
        let byFamily = Dictionary(grouping: rows) { FamilyKey(parameters: family($0), concurrency: $0.concurrency) }
        let keys = byFamily.keys.sorted {
            ($0.parameters.map(\.value).joined(), $0.concurrency) < (
                $1.parameters.map(\.value).joined(), $1.concurrency
            )
        }
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
                if let value = Statistics.median(group.map(\.pagesPerDrainMean)) {
                    trips.points.append((Double(limit), value))
                }
                if let value = Statistics.median(group.map { Double($0.emptyPagesWasted) / Double($0.drains) }) {
                    empty.points.append((Double(limit), value))
                }
            }
            series += [trips, empty]
        }
        var chart = SVGChart(
            id: "plot-limit",
            title: "Round trips and empty pages per drain against the limit",
            xLabel: "limit (items per request)",
            yLabel: "pages per drain"
        )
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
}
