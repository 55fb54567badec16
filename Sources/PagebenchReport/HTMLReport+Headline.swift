import PagebenchBase
import PagebenchMetrics

/// The first screen of the report: what was compared and the headline figures (issue 26).
extension HTMLReport {
    /// The headline figures, per configuration: what a person asks first (issue 26).
    static let headlineMetrics = [
        "pages_per_drain_mean", "empty_pages_per_drain", "empty_page_rate", "items_per_s", "drains_per_s",
        "pages_per_s",
        "drain_latency_p50_ns", "drain_latency_p99_ns", "peak_rss_bytes",
    ]
    /// The headline of knee steps: offered against achieved, the corrected p99 and the verdict.
    static let kneeHeadlineMetrics = [
        "target_drains_per_s", "drains_per_s", "pages_per_s", "drain_latency_corrected_p99_ns", "slo_held",
        "missed_starts",
        "peak_rss_bytes",
    ]
    static let headlineTitles: [String: String] = [
        "pages_per_drain_mean": "round trips/drain", "empty_pages_per_drain": "empty pages/drain",
        "empty_page_rate": "empty-page rate",
        "items_per_s": "items/s", "drains_per_s": "drains/s", "pages_per_s": "requests/s",
        "drain_latency_p50_ns": "drain p50",
        "drain_latency_p99_ns": "drain p99", "peak_rss_bytes": "peak RSS", "target_drains_per_s": "offered drains/s",
        "drain_latency_corrected_p99_ns": "drain p99 (corrected)", "slo_held": "SLOs held",
        "missed_starts": "missed starts",
    ]

    /// The first screen: what was compared, the headline table with differences against the
    /// first configuration, and a sentence of verdict per question the rows can answer.
    func answer(_ groups: [Group]) -> String {
        let rows = files.flatMap(\.rows)
        let knee = rows.contains(where: Self.isKneeStep)
        var html = "<section class=\"answer\">\n<h2>What was compared</h2>\n<div class=\"scroll\"><table>\n"
        html +=
            "<tr><th>configuration</th><th>pager</th><th>limit</th><th>filter</th><th>read</th><th>load</th><th>concurrency</th><th>rows</th><th>scenario [config_hash]</th></tr>\n"
        // Knee steps in the order of their rates.
        let listed =
            knee
            ? groups.sorted {
                ($0.rows.first?.plannedDrainsPerSecond ?? 0) < ($1.rows.first?.plannedDrainsPerSecond ?? 0)
            } : groups
        for group in listed {
            guard let row = group.rows.first else { continue }
            let levels = Set(group.rows.map(\.concurrency)).sorted().map(String.init).joined(separator: ", ")
            let cells = [
                group.label, row.pagerKind, row.limit.map(String.init) ?? Self.notSent(row),
                Self.column(row.filter, row),
                Self.column(row.read, row), row.labelParameters.first { $0.name == "load" }?.value ?? row.loadModel,
                levels,
                String(group.rows.count), "\(row.scenario) [\(row.configHash)]",
            ]
            html += "<tr>" + cells.map { "<td>\(escape($0))</td>" }.joined() + "</tr>\n"
        }
        html += "</table></div>\n"
        let table = ConfigurationComparison(
            files: files,
            metrics: knee ? Self.kneeHeadlineMetrics : Self.headlineMetrics
        )
        html += "<h2>Headline</h2>\n"
        for sentence in verdicts(table, rows: rows) { html += "<p class=\"verdict\">\(sentence)</p>\n" }
        let metrics = (knee ? Self.kneeHeadlineMetrics : Self.headlineMetrics).filter { metric in
            table.sections.contains { $0.rows.contains { $0.metric == metric } }
        }
        html +=
            "<div class=\"scroll\"><table class=\"headline\">\n<tr><th>configuration</th>"
            + metrics.map { "<th>\(escape(Self.headlineTitles[$0] ?? $0))</th>" }.joined() + "</tr>\n"
        for section in table.sections {
            if table.sections.count > 1 {
                html += "<tr><th colspan=\"\(metrics.count + 1)\" class=\"group\">\(escape(section.title))</th></tr>\n"
            }
            // Knee steps read in the order of their rates, each on its own: a step is not a change of another.
            let rate = { (index: Int) in section.rows.first { $0.metric == "target_drains_per_s" }?.values[index] ?? 0 }
            let order =
                knee ? table.configurations.indices.sorted { rate($0) < rate($1) } : Array(table.configurations.indices)
            for index in order {
                let configuration = table.configurations[index]
                let cells = metrics.map { metric in section.rows.first { $0.metric == metric } }
                guard cells.contains(where: { $0?.values[index] != nil }) else { continue }
                html += "<tr><td>\(escape(configuration.label))</td>"
                for cell in cells {
                    guard let cell, let value = cell.values[index] else {
                        html += "<td>—</td>"
                        continue
                    }
                    let verdict = knee ? "" : ConfigurationComparison.verdict(cell, index)
                    html +=
                        "<td\(verdict.isEmpty ? "" : " class=\"\(verdict.replacingOccurrences(of: " ", with: "-"))\"")>"
                        + escape(NumberText.value(value, unit: cell.unit))
                    if !knee, let delta = cell.deltas[index] {
                        html +=
                            "<br/><span class=\"delta\">\(escape(NumberText.percent(delta)))\(verdict.isEmpty ? "" : " " + escape(verdict))</span>"
                    }
                    html += "</td>"
                }
                html += "</tr>\n"
            }
        }
        html +=
            "</table></div>\n<p class=\"caption\">"
            + (knee
                ? "One row per knee step, by offered rate; requests/s are pages/s. A step held when every SLO held and it achieved enough of its rate (knee --min-achieved).</p>\n"
                : "Medians over repetitions; changes against the first configuration"
                    + (table.sections.count > 1 ? " at the same concurrency (and stage)" : "")
                    + ". A figure per page is marked not comparable where a configuration's limit differs from the first's (a page is then another unit).</p>\n")
        return html + "</section>\n"
    }

    /// A workload column of "What was compared": its value; for a target row that left it
    /// empty, "—" (nothing of the kind was sent to that API, issue 35); "?" for a file too old
    /// to say (schema 5 and earlier).
    static func column(_ value: String, _ row: ResultRow) -> String {
        value.isEmpty ? notSent(row) : value
    }

    /// "—" for a target row's workload column that does not apply, "?" where a file is too old to say.
    static func notSent(_ row: ResultRow) -> String { row.targetKind.isEmpty ? "?" : "—" }
}
