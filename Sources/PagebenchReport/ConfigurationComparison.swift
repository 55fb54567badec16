import PagebenchBase
import PagebenchMetrics

/// A side-by-side table of configurations (`pagebench compare`): one column per configuration,
/// one row per metric, the median of the repetitions in each cell and the change against the
/// first configuration, with one section per concurrency level (and stage, for staged runs: H4).
///
/// A configuration is a scenario + configuration hash + pager kind of one input file; the file
/// name joins its label only when the same configuration appears in more than one file.
public struct ConfigurationComparison: Sendable, Equatable {
    /// One column of the table.
    public struct Configuration: Sendable, Hashable {
        public var file: String
        public var scenario: String
        public var configHash: String
        public var pagerKind: String
        /// The column header, as short as it can be while still unique.
        public var label: String
    }

    /// One metric row of one section.
    public struct Row: Sendable, Equatable {
        public var metric: String
        public var unit: String
        public var polarity: Polarity
        /// Median over repetitions per configuration; nil when the configuration has no value.
        public var values: [Double?]
        /// `value / first − 1` per configuration (nil for the first and for missing values).
        public var deltas: [Double?]
    }

    /// The rows of one concurrency level, or of one stage of a staged run.
    public struct Section: Sendable, Equatable {
        public var concurrency: Int
        /// The stage (1-based) of a staged run (H4); nil otherwise.
        public var stage: Int? = nil
        public var rows: [Row]

        /// `concurrency 64`, or `concurrency 64 stage 2`.
        public var title: String { "concurrency \(concurrency)" + (stage.map { " stage \($0)" } ?? "") }
    }

    public var configurations: [Configuration]
    public var sections: [Section]

    /// The metrics shown unless asked otherwise: what a user comparing storage layouts wants first
    /// (the writes and watch rows appear only when a configuration has them).
    public static let defaultMetrics = [
        "pages_per_s", "items_per_s", "drains_per_s", "pages", "items", "scanned_bytes", "empty_pages_wasted",
        "empty_page_rate", "pages_per_drain_mean", "duplicate_items", "skipped_items", "inconsistent_drains",
        "watch_latency_p50_ns", "watch_latency_p99_ns", "page_latency_p50_ns", "page_latency_p99_ns",
        "drain_latency_p50_ns", "drain_latency_p99_ns", "cancel_latency_p50_ns", "cancel_latency_p99_ns",
        "allocations_per_page", "peak_allocated_bytes", "peak_rss_bytes", "cpu_user_s",
    ]

    /// Numeric columns that make sense in a comparison: every non-context column.
    public static var comparableMetrics: [String] {
        ResultRow.columnDescriptors.filter { $0.kind != .context && $0.type != .text }.map(\.name)
    }

    /// "; did you mean 'X'?" for a typo of one metric, or the metrics a stem begins
    /// (`pages_per_drain` → `pages_per_drain_mean` or `pages_per_drain_max`); "" if none is close.
    static func suggestion(for name: String) -> String {
        if let closest = Thresholds.closestName(to: name, in: comparableMetrics) { return "; did you mean '\(closest)'?" }
        let stems = comparableMetrics.filter { $0.hasPrefix(name + "_") || $0.hasPrefix(name) && name.count >= 4 }
        guard !stems.isEmpty, stems.count <= 6 else { return "" }
        let quoted = stems.map { "'\($0)'" }
        let list = quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
        return "; did you mean \(list)?"
    }

    /// Checks metric names, suggesting the closest known one for a typo.
    public static func validateMetrics(_ names: [String]) throws {
        let known = Set(comparableMetrics)
        for name in names where !known.contains(name) {
            throw MetricsError(
                kind: .invalidRequest,
                message: "unknown metric '\(name)'" + suggestion(for: name)
                    + " (every non-context column of docs/csv-columns.md may be compared)")
        }
    }

    /// Builds the table from the rows of each input file, in argument order.
    ///
    /// - Parameter metrics: column names to show, in order (default ``defaultMetrics``).
    ///   Rows no configuration has a value for are left out.
    public init(files: [(path: String, rows: [ResultRow])], metrics: [String] = ConfigurationComparison.defaultMetrics) {
        struct Key: Hashable {
            var file: Int
            var scenario: String
            var configHash: String
            var pagerKind: String
        }
        var keys: [Key] = []
        var rowsByKey: [Key: [ResultRow]] = [:]
        for (index, file) in files.enumerated() {
            for row in file.rows {
                let key = Key(file: index, scenario: row.scenario, configHash: row.configHash, pagerKind: row.pagerKind)
                if rowsByKey[key] == nil { keys.append(key) }
                rowsByKey[key, default: []].append(row)
            }
        }
        // Labels: scenario, plus pager kind if it varies, plus hash if a scenario has several, plus file if still ambiguous.
        let pagerKinds = Set(keys.map(\.pagerKind))
        let hashesByScenario = Dictionary(grouping: keys, by: \.scenario).mapValues { Set($0.map(\.configHash)) }
        func baseLabel(_ key: Key) -> String {
            var label = key.scenario
            if (hashesByScenario[key.scenario]?.count ?? 0) > 1 { label += " [\(key.configHash.prefix(8))]" }
            if pagerKinds.count > 1 { label += " / \(key.pagerKind)" }
            return label
        }
        let labelCounts = Dictionary(grouping: keys, by: baseLabel).mapValues(\.count)
        configurations = keys.map { key in
            var label = baseLabel(key)
            if (labelCounts[label] ?? 0) > 1 {
                let name = files[key.file].path.split(separator: "/").last.map(String.init) ?? files[key.file].path
                label += " (\(name))"
            }
            return Configuration(
                file: files[key.file].path, scenario: key.scenario, configHash: key.configHash,
                pagerKind: key.pagerKind, label: label)
        }
        let columns = Dictionary(uniqueKeysWithValues: ResultRow.csvColumns.map { ($0.name, $0) })
        struct Level: Hashable {
            var concurrency: Int
            var stage: Int
        }
        let levels = Set(rowsByKey.values.joined().map { Level(concurrency: $0.concurrency, stage: $0.stage ?? 0) })
            .sorted { ($0.concurrency, $0.stage) < ($1.concurrency, $1.stage) }
        sections = levels.map { level in
            let rows: [Row] = metrics.compactMap { metric in
                guard let column = columns[metric] else { return nil }
                let values: [Double?] = keys.map { key in
                    let samples = (rowsByKey[key] ?? []).filter { $0.concurrency == level.concurrency && ($0.stage ?? 0) == level.stage }
                        .compactMap { column.value($0).numericValue }
                    return Statistics.median(samples)
                }
                guard values.contains(where: { $0 != nil }) else { return nil }
                let deltas: [Double?] = values.enumerated().map { index, value in
                    guard index > 0, let value, let first = values[0] else { return nil }
                    return Statistics.ratio(value, over: first) - 1
                }
                return Row(
                    metric: metric, unit: column.descriptor.unit, polarity: column.descriptor.polarity, values: values,
                    deltas: deltas)
            }
            return Section(concurrency: level.concurrency, stage: level.stage == 0 ? nil : level.stage, rows: rows)
        }.filter { !$0.rows.isEmpty }
    }

    /// Whether a change is better, worse or neither for a metric of `polarity`.
    static func judgement(_ delta: Double, _ polarity: Polarity) -> String {
        if delta == 0 || polarity == .neutral { return "" }
        let better = (delta > 0) == (polarity == .higherIsBetter)
        return better ? "better" : "worse"
    }

    static func cellText(_ row: Row, _ index: Int) -> String {
        guard let value = row.values[index] else { return "—" }
        var text = NumberText.value(value, unit: row.unit)
        if let delta = row.deltas[index] {
            let judgement = judgement(delta, row.polarity)
            text += " (\(NumberText.percent(delta))\(judgement.isEmpty ? "" : " " + judgement))"
        }
        return text
    }

    /// The table as text, markdown or CSV (json is not offered for comparisons).
    public func rendered(_ format: OutputFormat) -> String {
        switch format {
        case .text, .json: text
        case .markdown: markdown
        case .csv: csv
        }
    }

    /// Aligned plain-text tables, one per concurrency level.
    public var text: String {
        var output = "Configurations (changes are against the first):\n"
        for (index, configuration) in configurations.enumerated() {
            output += "  [\(index + 1)] \(configuration.label)  \(configuration.scenario) \(configuration.configHash) "
                + "\(configuration.pagerKind) in \(configuration.file)\n"
        }
        for section in sections {
            let header = [section.title] + configurations.indices.map { "[\($0 + 1)] \(configurations[$0].label)" }
            let body = section.rows.map { row in [row.metric] + configurations.indices.map { Self.cellText(row, $0) } }
            let widths = header.indices.map { column in ([header] + body).map { $0[column].count }.max() ?? 0 }
            func line(_ cells: [String]) -> String {
                zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
                    .trimmingTrailingSpaces()
            }
            output += "\n" + line(header) + "\n" + line(widths.map { String(repeating: "-", count: $0) }) + "\n"
            for cells in body { output += line(cells) + "\n" }
        }
        return output
    }

    /// One markdown table per concurrency level.
    public var markdown: String {
        func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
        var lines: [String] = []
        for section in sections {
            lines.append("#### " + section.title.prefix(1).uppercased() + section.title.dropFirst())
            lines.append("")
            lines.append("| metric | " + configurations.map { cell($0.label) }.joined(separator: " | ") + " |")
            lines.append("| --- |" + String(repeating: " ---: |", count: configurations.count))
            for row in section.rows {
                lines.append(
                    "| `\(row.metric)` | " + configurations.indices.map { cell(Self.cellText(row, $0)) }.joined(separator: " | ")
                        + " |")
            }
            lines.append("")
        }
        return "Changes are against the first configuration (\(cell(configurations.first?.label ?? "—"))).\n\n"
            + lines.joined(separator: "\n")
    }

    /// Machine-readable: one record per concurrency × metric, a value and a delta column per
    /// configuration; a `stage` column after `concurrency` when a row is of a stage (H4).
    public var csv: String {
        let writer = CSVWriter()
        let staged = sections.contains { $0.stage != nil }
        var header = ["concurrency"] + (staged ? ["stage"] : []) + ["metric", "unit", "polarity"]
        for configuration in configurations { header += [configuration.label, configuration.label + " delta"] }
        var records: [[String]] = []
        for section in sections {
            for row in section.rows {
                var fields = [String(section.concurrency)] + (staged ? [section.stage.map(String.init) ?? ""] : [])
                    + [row.metric, row.unit, row.polarity.rawValue]
                for index in configurations.indices {
                    fields.append(row.values[index].map { CSVValue.decimal($0).field } ?? "")
                    fields.append(row.deltas[index].map { $0.isFinite ? CSVValue.decimal($0).field : "" } ?? "")
                }
                records.append(fields)
            }
        }
        return writer.table(header: header, records: records)
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
