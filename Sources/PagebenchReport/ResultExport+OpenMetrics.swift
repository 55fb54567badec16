import PagebenchBase
import PagebenchMetrics

/// `export --format openmetrics`: the results as an OpenMetrics text file (docs/ci.md), the
/// format of GitLab's metrics report (`artifacts:reports:metrics`).
///
/// One gauge family per column, `pagebench_` and the column's name in Prometheus's base
/// units: nanoseconds and seconds become seconds (`page_latency_p99_ns` →
/// `pagebench_page_latency_p99_seconds`, the value divided by 10⁹), `_per_s` becomes
/// `_per_second`; a name that ends in its unit (`seconds`, `bytes`) gets a `# UNIT` line. One
/// sample per group, the median of its repetitions, labelled with the group's identity
/// (`scenario`, `config_hash`, `pager_kind`, `concurrency`, `stage` for a stage of a staged
/// run) and its `label`. The file ends with `# EOF`.
extension ResultExport {
    /// A column's family name, its unit for `# UNIT` (empty when none), and the factor its values are multiplied by.
    static func openMetricsName(_ column: ColumnDescriptor) -> (name: String, unit: String, scale: Double) {
        var name = column.name
        var unit = ""
        var scale = 1.0
        if name.hasSuffix("_per_s") {
            name = String(name.dropLast(2)) + "_second"
        } else if column.unit == "ns", name.hasSuffix("_ns") {
            name = String(name.dropLast(3)) + "_seconds"
            unit = "seconds"
            scale = 1e-9
        } else if column.unit == "s", name.hasSuffix("_s") {
            name = String(name.dropLast(2)) + "_seconds"
            unit = "seconds"
        } else if name.hasSuffix("_bytes") {
            unit = "bytes"
        } else if name.hasSuffix("_ratio") {
            unit = "ratio"
        }
        return ("pagebench_" + name, unit, scale)
    }

    /// A label value or help text escaped as both OpenMetrics and Prometheus's text format
    /// read it: backslash and line feed always, the double quote in label values (help text
    /// has no double quotes: Prometheus's text format would refuse the escape, so they are
    /// written as single quotes).
    static func openMetricsEscaped(_ text: String, label: Bool) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n", "\r\n", "\r": escaped += "\\n"
            case "\"": escaped += label ? "\\\"" : "'"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// The OpenMetrics text.
    package var openMetrics: String {
        let perGroup = groups.map { group in (group, series(group)) }
        var text = ""
        for column in columns {
            let samples = perGroup.compactMap { group, series in
                series.first { $0.column.name == column.name }.map { (group, $0) }
            }
            guard !samples.isEmpty else { continue }
            let family = Self.openMetricsName(column)
            let polarity =
                switch column.polarity {
                case .higherIsBetter: "higher is better"
                case .lowerIsBetter: "lower is better"
                case .neutral: "no better direction"
                }
            text += "# TYPE \(family.name) gauge\n"
            if !family.unit.isEmpty { text += "# UNIT \(family.name) \(family.unit)\n" }
            let summary = column.summary.hasSuffix(".") ? column.summary : column.summary + "."
            let help =
                "\(summary) Column \(column.name) (\(column.unit.isEmpty ? "count" : column.unit), \(polarity)); "
                + "median of the repetitions."
            text += "# HELP \(family.name) \(Self.openMetricsEscaped(help, label: false))\n"
            for (group, series) in samples {
                var labels = [
                    ("scenario", group.identity.scenario), ("config_hash", group.identity.configHash),
                    ("pager_kind", group.identity.pagerKind), ("concurrency", String(group.identity.concurrency)),
                ]
                if let stage = group.identity.stage { labels.append(("stage", String(stage))) }
                labels.append(("label", group.label))
                let labelText = labels.map { "\($0.0)=\"\(Self.openMetricsEscaped($0.1, label: true))\"" }
                    .joined(separator: ",")
                text += "\(family.name){\(labelText)} \(Self.openMetricsNumber(series.median * family.scale))\n"
            }
        }
        return text + "# EOF\n"
    }

    /// A sample value: Swift's shortest round-trip form, which both formats read (`1234.5`, `1e-05`).
    static func openMetricsNumber(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
