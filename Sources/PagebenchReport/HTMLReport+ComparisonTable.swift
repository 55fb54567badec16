import PagebenchBase
import PagebenchMetrics

/// "Every figure side by side": every metric of every configuration, with its verdict.
extension HTMLReport {
    func comparisonTable() -> String {
        let table = ConfigurationComparison(files: files)
        let knee = files.contains { $0.rows.contains(where: Self.isKneeStep) }
        var html = ""
        for section in table.sections {
            html +=
                "<h3>\(escape(section.title.prefix(1).uppercased() + section.title.dropFirst()))</h3>\n<table>\n<tr><th>metric</th>"
                + table.configurations.map { "<th>\(escape($0.label))</th>" }.joined() + "</tr>\n"
            for row in section.rows {
                html += "<tr><td><code>\(escape(row.metric))</code></td>"
                for index in table.configurations.indices {
                    // Knee steps are rates of one configuration, not changes of it: no better or worse.
                    let judgement =
                        knee ? "" : ConfigurationComparison.verdict(row, index).replacingOccurrences(of: " ", with: "-")
                    html +=
                        "<td\(judgement.isEmpty ? "" : " class=\"\(judgement)\"")>\(escape(ConfigurationComparison.cellText(row, index)))</td>"
                }
                html += "</tr>\n"
            }
            html += "</table>\n"
        }
        return html
    }
}
