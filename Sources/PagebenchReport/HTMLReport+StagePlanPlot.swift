import PagebenchBase
import PagebenchMetrics

/// `plot-stage-plan`: each stage's plan against what it achieved, from the rows (H4).
extension HTMLReport {
    /// Per stage: the plan against the drains/s and requests/s achieved, from the rows alone.
    func stageRowsPlot() -> String {
        let rows = files.flatMap(\.rows).filter { $0.stage != nil }.sorted {
            ($0.scenario, $0.stage!) < ($1.scenario, $1.stage!)
        }
        let first = rows.first.map { (scenario: $0.scenario, configHash: $0.configHash) }
        let run = rows.filter {
            $0.scenario == first?.scenario && $0.configHash == first?.configHash
                && $0.repetition == (rows.first?.repetition ?? 1)
        }
        guard !run.isEmpty else { return placeholder("plot-stage-plan", "No stage rows in these files.") }
        let x = { (row: ResultRow) in (row.stageStartSeconds ?? 0) + (row.targetDurationSeconds ?? 0) / 2 }
        var chart = SVGChart(
            id: "plot-stage-plan",
            title: "Plan against achieved, per stage",
            xLabel: "seconds since the plan started (middle of each stage)",
            yLabel: "per second"
        )
        chart.xFormat = { NumberText.number($0, digits: 3) + " s" }
        chart.yFormat = NumberText.compact
        chart.markers = run.map { ((($0.stageStartSeconds ?? 0)), "stage \($0.stage!)") }
        let rate = run.contains { $0.stageRateFrom != nil }
        if rate {
            // Issue 35: the plan as it was, each stage's ramp from its start to its end, not a
            // line through the stage means that hides a hold between two ramps.
            var plan: [(x: Double, y: Double)] = []
            for row in run {
                guard let from = row.stageRateFrom, let to = row.stageRateTo, let start = row.stageStartSeconds else {
                    continue
                }
                plan.append((start, from))
                plan.append((start + (row.targetDurationSeconds ?? 0), to))
            }
            chart.series.append(SVGChart.Series(name: "plan: offered drains/s", points: plan, dashed: true))
        }
        chart.series.append(
            SVGChart.Series(
                name: "achieved: drains/s (stage mean)",
                points: run.map { (x($0), $0.drainsPerSecond) },
                connect: false
            )
        )
        chart.yLabel = "drains/s"
        var html = drawn(chart)
        html +=
            "<p class=\"caption\">Requests (pages)/s achieved: "
            + run.map { "stage \($0.stage!) \(NumberText.compact($0.pagesPerSecond))" }.joined(separator: ", ")
            + ".</p>\n"
        if !rate {
            html +=
                "<p class=\"caption\">Plan (pagers): "
                + run.map { "stage \($0.stage!) \($0.stagePagersFrom ?? 0)→\($0.stagePagersTo ?? 0)" }.joined(
                    separator: ", "
                ) + ".</p>\n"
        }
        return html
    }
}
