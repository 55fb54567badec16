import PagebenchBase
import PagebenchMetrics

/// `plot-history`: pages/s across commits, from a history file.
extension HTMLReport {
    func historyPlot() -> String {
        guard let history, !history.isEmpty else {
            return placeholder(
                "plot-history",
                "No history given: append each run's rows to a history file (pagebench run --history FILE) and pass it with --history FILE."
            )
        }
        // Commits in the order first measured.
        var commits: [String] = []
        for row in history.sorted(by: { $0.timestampUTC < $1.timestampUTC }) where !commits.contains(row.gitCommit) {
            commits.append(row.gitCommit)
        }
        let byIdentity = Dictionary(grouping: history, by: \.identity)
        let identities = byIdentity.keys.sorted {
            let a = Set(byIdentity[$0]!.map(\.gitCommit)).count
            let b = Set(byIdentity[$1]!.map(\.gitCommit)).count
            return a != b ? a > b : $0 < $1
        }.prefix(maximumSeries)
        let series: [SVGChart.Series] = identities.map { identity in
            let rows = byIdentity[identity]!
            let points: [(x: Double, y: Double)] = commits.enumerated().compactMap { index, commit in
                Statistics.median(rows.filter { $0.gitCommit == commit }.map(\.pagesPerSecond)).map {
                    (Double(index), $0)
                }
            }
            return SVGChart.Series(name: historyLabel(identity, among: Array(byIdentity.keys)), points: points)
        }
        var chart = SVGChart(
            id: "plot-history",
            title: "Pages per second across commits",
            xLabel: "commit (oldest first)",
            yLabel: "pages/s"
        )
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
}
