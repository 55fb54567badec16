import PagebenchBase
import PagebenchMetrics

/// `plot-knee` and `plot-knee-requests`: the steps of a knee search against their SLO.
extension HTMLReport {
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
            yLabel: "drain latency p99, corrected"
        )
        chart.yScale = .log
        chart.yFormat = { NumberText.value($0, unit: "ns") }
        chart.xFormat = NumberText.compact
        chart.series = [held, broke].filter { !$0.points.isEmpty }
        // `report --slo`, else the SLOs the steps were judged on (the `slos` column).
        let bounds = objectives.isEmpty ? ServiceLevelObjective.recorded(in: steps.map(\.1)) : objectives
        for objective in bounds where objective.column == "drain_latency_corrected_p99_ns" {
            chart.levels.append((objective.bound, "SLO: \(objective.description)"))
        }
        if let knee = steps.filter({ $0.1.sloHeld == 1 }).max(by: {
            $0.1.plannedDrainsPerSecond! < $1.1.plannedDrainsPerSecond!
        })?.1 {
            let x = throughput(knee)
            let perSecond = knee.pagesPerSecond > 0 ? ", \(NumberText.compact(knee.pagesPerSecond)) requests/s" : ""
            chart.bands = [
                (
                    from: x * 0.99, to: x * 1.01,
                    caption: "knee \(NumberText.compact(knee.plannedDrainsPerSecond!)) drains/s\(perSecond)"
                )
            ]
        }
        return drawn(chart)
    }
}
