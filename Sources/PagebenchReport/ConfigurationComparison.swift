import PagebenchBase
import PagebenchMetrics

/// A side-by-side table of configurations (`pagebench compare`): one column per configuration,
/// one row per metric, the median of the repetitions in each cell and the change against the
/// first configuration, with one section per concurrency level (and stage, for staged runs: H4).
///
/// A configuration is a scenario + configuration hash + pager kind of one input file, named by
/// its label (``labels(_:files:)``); the file name joins the label only when the same
/// configuration appears in more than one file.
package struct ConfigurationComparison: Sendable, Equatable {
    /// One column of the table.
    package struct Configuration: Sendable, Hashable {
        package var file: String
        package var scenario: String
        package var configHash: String
        package var pagerKind: String
        /// The column header, as short as it can be while still unique.
        package var label: String
    }

    /// One metric row of one section.
    package struct Row: Sendable, Equatable {
        package var metric: String
        package var unit: String
        package var polarity: Polarity
        /// Median over repetitions per configuration; nil when the configuration has no value.
        package var values: [Double?]
        /// `value / first − 1` per configuration (nil for the first and for missing values).
        package var deltas: [Double?]
        /// Per configuration, why its value cannot be judged against the first configuration's
        /// (the pair its change compares), or nil: a figure per page when the pair's limits differ
        /// (a page is then another unit), a total when their drain counts differ (issue 26).
        /// Judged per pair (issue 35): a third configuration at another limit does not make two
        /// at the same limit incomparable. Such a change is shown, never called better or worse.
        package var notComparable: [String?]

        package init(
            metric: String,
            unit: String,
            polarity: Polarity,
            values: [Double?],
            deltas: [Double?],
            notComparable: [String?]? = nil
        ) {
            self.metric = metric
            self.unit = unit
            self.polarity = polarity
            self.values = values
            self.deltas = deltas
            self.notComparable = notComparable ?? [String?](repeating: nil, count: values.count)
        }

        /// Why configuration `index`'s value is not comparable with the first's, or nil.
        package func notComparable(at index: Int) -> String? {
            notComparable.indices.contains(index) ? notComparable[index] : nil
        }
    }

    /// The rows of one concurrency level, or of one stage of a staged run.
    package struct Section: Sendable, Equatable {
        package var concurrency: Int
        /// The stage (1-based) of a staged run (H4); nil otherwise.
        package var stage: Int? = nil
        package var rows: [Row]

        /// `concurrency 64`, or `concurrency 64 stage 2`.
        package var title: String { "concurrency \(concurrency)" + (stage.map { " stage \($0)" } ?? "") }
    }

    package var configurations: [Configuration]
    package var sections: [Section]

    /// The metrics shown unless asked otherwise (issue 26): the cost of a drain first — round
    /// trips, empty pages, scanned bytes and latency per drain, items/s — then rates with
    /// requests/s beside drains/s, then what is counted per page, then resources and totals
    /// (the writes, watch and cancellation rows appear only when a configuration has them).
    package static let defaultMetrics = [
        "pages_per_drain_mean", "empty_pages_per_drain", "scanned_bytes_per_drain", "response_bytes_per_drain",
        "scanned_items_per_drain", "items_per_drain", "drain_latency_p50_ns", "drain_latency_p99_ns", "items_per_s",
        "drains_per_s", "pages_per_s",
        "empty_page_rate", "page_latency_p50_ns", "page_latency_p99_ns",
        "duplicate_items", "skipped_items", "inconsistent_drains", "watch_latency_p50_ns", "watch_latency_p99_ns",
        "cancel_latency_p50_ns", "cancel_latency_p99_ns",
        "allocations_per_page", "peak_allocated_bytes", "peak_rss_bytes", "cpu_user_s",
        "drains", "pages", "items", "scanned_bytes", "empty_pages_wasted",
    ]

    /// A figure per drain derived from the columns (issue 26): what a drain costs, comparable
    /// between configurations whatever their limit.
    struct DerivedMetric {
        var name: String
        var unit: String
        var polarity: Polarity
        var value: @Sendable (ResultRow) -> Double?
    }

    static let derivedMetrics: [DerivedMetric] = [
        DerivedMetric(name: "empty_pages_per_drain", unit: "pages", polarity: .lowerIsBetter) {
            $0.drains > 0 ? Double($0.emptyPagesWasted) / Double($0.drains) : nil
        },
        DerivedMetric(name: "scanned_bytes_per_drain", unit: "bytes", polarity: .lowerIsBetter) { row in
            row.scannedBytes.flatMap { row.drains > 0 ? Double($0) / Double(row.drains) : nil }
        },
        // Issue 35: what a real target's drain received, named as such, and the items its
        // API says it evaluated, wherever a source reports them.
        DerivedMetric(name: "response_bytes_per_drain", unit: "bytes", polarity: .lowerIsBetter) { row in
            row.responseBytes.flatMap { row.drains > 0 ? Double($0) / Double(row.drains) : nil }
        },
        DerivedMetric(name: "scanned_items_per_drain", unit: "items", polarity: .lowerIsBetter) { row in
            row.scannedItems.flatMap { row.drains > 0 ? Double($0) / Double(row.drains) : nil }
        },
        DerivedMetric(name: "items_per_drain", unit: "items", polarity: .neutral) {
            $0.drains > 0 ? Double($0.items) / Double($0.drains) : nil
        },
    ]

    /// What a person calls a metric, where its column name does not say it.
    static let titles: [String: String] = [
        "pages_per_drain_mean": "round trips/drain", "empty_pages_per_drain": "empty pages/drain",
        "scanned_bytes_per_drain": "scanned bytes/drain", "items_per_drain": "items/drain",
        "response_bytes_per_drain": "response bytes/drain", "scanned_items_per_drain": "scanned items/drain",
        "drain_latency_p50_ns": "drain p50", "drain_latency_p99_ns": "drain p99", "pages_per_s": "requests/s",
        "page_latency_p50_ns": "request p50", "page_latency_p99_ns": "request p99",
    ]

    /// Figures per page (or per request): their unit changes with the limit.
    static let perPageMetrics: Set<String> = Set(
        [
            "pages_per_s", "empty_page_rate", "allocations_per_page", "measurement_overhead_ratio",
            "harness_overhead_ratio",
        ]
            + ResultRow.columnDescriptors.map(\.name).filter { $0.hasPrefix("page_latency_") }
    )

    /// Figures per drain (prefixes): their unit changes with what a drain reads.
    static let perDrainMetrics = [
        "pages_per_drain_", "empty_pages_per_drain", "scanned_bytes_per_drain", "response_bytes_per_drain",
        "scanned_items_per_drain",
        "items_per_drain", "drain_latency_", "drains_per_s",
    ]

    /// Totals over a phase: they grow with the number of drains it ran.
    static let totalMetrics: Set<String> = [
        "drains", "pages", "items", "scanned_items", "scanned_bytes", "empty_pages_wasted", "empty_pages_final",
        "retries", "throttles", "cancellations", "pages_after_cancel", "allocations", "cpu_user_s", "cpu_system_s",
    ]

    /// Numeric columns that make sense in a comparison: every non-context column, and the
    /// figures per drain derived from them.
    package static var comparableMetrics: [String] {
        ResultRow.columnDescriptors.filter { $0.kind != .context && $0.type != .text }.map(\.name)
            + derivedMetrics.map(\.name)
    }

    /// "; did you mean 'X'?" for a typo of one metric, or the metrics a stem begins
    /// (`pages_per_drain` → `pages_per_drain_mean` or `pages_per_drain_max`); "" if none is close.
    static func suggestion(for name: String) -> String {
        if let closest = Thresholds.closestName(to: name, in: comparableMetrics) {
            return "; did you mean '\(closest)'?"
        }
        let stems = comparableMetrics.filter { $0.hasPrefix(name + "_") || $0.hasPrefix(name) && name.count >= 4 }
        guard !stems.isEmpty, stems.count <= 6 else { return "" }
        let quoted = stems.map { "'\($0)'" }
        let list = quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
        return "; did you mean \(list)?"
    }

    /// Checks metric names, suggesting the closest known one for a typo.
    package static func validateMetrics(_ names: [String]) throws {
        let known = Set(comparableMetrics)
        for name in names where !known.contains(name) {
            throw MetricsError(
                kind: .invalidRequest,
                message: "unknown metric '\(name)'" + suggestion(for: name)
                    + " (every non-context column of docs/csv-columns.md may be compared, and "
                    + derivedMetrics.map(\.name).joined(separator: ", ") + ")"
            )
        }
    }

    /// Builds the table from the rows of each input file, in argument order.
    ///
    /// - Parameter metrics: column names to show, in order (default ``defaultMetrics``).
    ///   Rows no configuration has a value for are left out.
    package init(files: [(path: String, rows: [ResultRow])], metrics: [String] = ConfigurationComparison.defaultMetrics)
    {
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
        configurations = Self.labels(keys.map { rowsByKey[$0]![0] }, files: keys.map { files[$0.file].path })
            .enumerated().map { index, label in
                let key = keys[index]
                return Configuration(
                    file: files[key.file].path,
                    scenario: key.scenario,
                    configHash: key.configHash,
                    pagerKind: key.pagerKind,
                    label: label
                )
            }
        let columns = Dictionary(uniqueKeysWithValues: ResultRow.csvColumns.map { ($0.name, $0) })
        let derived = Dictionary(uniqueKeysWithValues: Self.derivedMetrics.map { ($0.name, $0) })
        struct Level: Hashable {
            var concurrency: Int
            var stage: Int
        }
        let levels = Set(rowsByKey.values.joined().map { Level(concurrency: $0.concurrency, stage: $0.stage ?? 0) })
            .sorted { ($0.concurrency, $0.stage) < ($1.concurrency, $1.stage) }
        sections = levels.map { level in
            let levelRows = keys.map { key in
                (rowsByKey[key] ?? []).filter { $0.concurrency == level.concurrency && ($0.stage ?? 0) == level.stage }
            }
            let rows: [Row] = metrics.compactMap { metric in
                let value: (ResultRow) -> Double?
                let unit: String
                let polarity: Polarity
                if let column = columns[metric] {
                    value = { column.value($0).numericValue }
                    unit = column.descriptor.unit
                    polarity = column.descriptor.polarity
                } else if let figure = derived[metric] {
                    value = figure.value
                    unit = figure.unit
                    polarity = figure.polarity
                } else {
                    return nil
                }
                let values: [Double?] = levelRows.map { Statistics.median($0.compactMap(value)) }
                guard values.contains(where: { $0 != nil }) else { return nil }
                let deltas: [Double?] = values.enumerated().map { index, value in
                    guard index > 0, let value, let first = values[0] else { return nil }
                    return Statistics.ratio(value, over: first) - 1
                }
                // Each change compares one configuration with the first: judge that pair alone.
                let notComparable: [String?] = levelRows.indices.map { index in
                    guard index > 0, deltas[index] != nil else { return nil }
                    return Self.notComparable(metric, levelRows[0] + levelRows[index])
                }
                return Row(
                    metric: metric,
                    unit: unit,
                    polarity: polarity,
                    values: values,
                    deltas: deltas,
                    notComparable: notComparable
                )
            }
            return Section(concurrency: level.concurrency, stage: level.stage == 0 ? nil : level.stage, rows: rows)
        }.filter { !$0.rows.isEmpty }
    }

    /// Why `metric` cannot be judged between the configurations whose rows are `rows` (one
    /// pair's, at one concurrency and stage), or nil when it can.
    static func notComparable(_ metric: String, _ rows: [ResultRow]) -> String? {
        let reads = Set(rows.map(\.read)).sorted()
        let limits = Set(rows.compactMap(\.limit)).sorted()
        if perDrainMetrics.contains(where: { metric.hasPrefix($0) }), reads.count > 1 {
            return
                "per drain, and the reads differ (\(reads.joined(separator: ", "))): a drain covers another range; compare per item or per byte"
        }
        if perPageMetrics.contains(metric), limits.count > 1 {
            return
                "per page, and the limits differ (\(limits.map(String.init).joined(separator: ", "))): compare per drain or per item"
        }
        if metric == "items_per_s", Set(rows.map(\.filter)).count > 1 {
            return "the filters differ, and with them which items count: compare drains/s or per drain"
        }
        if totalMetrics.contains(metric), Set(rows.map(\.drains)).count > 1 {
            return "a total, and the drain counts differ: compare per drain"
        }
        return nil
    }

    /// The label of each configuration (issue 26), given one row of each and its file: the
    /// rows' own `label`s when they tell the configurations apart (one file's labels were
    /// derived over exactly its configurations; labels a scenario gave are kept when every
    /// configuration has one), else the parameters that differ between them
    /// (`limit=100 filter=category=0`), then the file name, then the hash, where still alike.
    package static func labels(_ rows: [ResultRow], files: [String]) -> [String] {
        let own = rows.map(\.label)
        let unique = Set(own).count == own.count && !own.contains("")
        let oneFile = Set(files).count <= 1
        let given = own.allSatisfy { !$0.isEmpty && !$0.contains("=") && !rows.map(\.scenario).contains($0) }
        if unique && (oneFile || given) { return own }
        let fileNames = files.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        return ConfigurationLabel.distinguishing(
            rows.map(\.labelParameters),
            fallback: rows.map { $0.label.isEmpty ? $0.scenario : $0.label },
            disambiguators: rows.indices.map { [fileNames[$0], String(rows[$0].configHash.prefix(8))] }
        )
    }

    /// Whether a change is better, worse or neither for a metric of `polarity`.
    static func judgement(_ delta: Double, _ polarity: Polarity) -> String {
        if delta == 0 || polarity == .neutral { return "" }
        let better = (delta > 0) == (polarity == .higherIsBetter)
        return better ? "better" : "worse"
    }

    /// `better`, `worse`, `not comparable` or nothing, for the cell of `row` at `index`.
    static func verdict(_ row: Row, _ index: Int) -> String {
        guard let delta = row.deltas[index] else { return "" }
        if row.notComparable(at: index) != nil { return delta == 0 ? "" : "not comparable" }
        return judgement(delta, row.polarity)
    }

    static func cellText(_ row: Row, _ index: Int) -> String {
        guard let value = row.values[index] else { return "—" }
        var text = NumberText.value(value, unit: row.unit)
        if let delta = row.deltas[index] {
            let verdict = verdict(row, index)
            text +=
                " (\(NumberText.percent(delta))\(verdict.isEmpty ? "" : (row.notComparable(at: index) == nil ? " " : ", ") + verdict))"
        }
        return text
    }

    /// The metric as the first cell of a table row: `round trips/drain (pages_per_drain_mean)`.
    static func metricTitle(_ metric: String) -> String {
        titles[metric].map { "\($0) (\(metric))" } ?? metric
    }

    /// What the not-comparable marks mean, one line per reason.
    var notComparableNotes: [String] {
        var notes: [String] = []
        for section in sections {
            for row in section.rows {
                for case let reason? in row.notComparable {
                    let note = "\(row.metric): not comparable, \(reason)"
                    if !notes.contains(note) { notes.append(note) }
                }
            }
        }
        return notes
    }

    /// The line that says what the table is.
    static let heading =
        "Configurations side by side (changes against the first; a comparison of configurations, not a regression check: `pagebench check` judges regressions):"

    /// The table as text, markdown or CSV (json is not offered for comparisons).
    package func rendered(_ format: OutputFormat) -> String {
        switch format {
        case .text, .json, .junit: text
        case .markdown: markdown
        case .csv: csv
        }
    }

    /// Aligned plain-text tables, one per concurrency level.
    package var text: String {
        var output = Self.heading + "\n"
        for (index, configuration) in configurations.enumerated() {
            output +=
                "  [\(index + 1)] \(configuration.label)  \(configuration.scenario) \(configuration.configHash) "
                + "\(configuration.pagerKind) in \(configuration.file)\n"
        }
        for section in sections {
            let header = [section.title] + configurations.indices.map { "[\($0 + 1)] \(configurations[$0].label)" }
            let body = section.rows.map { row in
                [Self.metricTitle(row.metric)] + configurations.indices.map { Self.cellText(row, $0) }
            }
            let widths = header.indices.map { column in ([header] + body).map { $0[column].count }.max() ?? 0 }
            func line(_ cells: [String]) -> String {
                zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
                    .trimmingTrailingSpaces()
            }
            output += "\n" + line(header) + "\n" + line(widths.map { String(repeating: "-", count: $0) }) + "\n"
            for cells in body { output += line(cells) + "\n" }
        }
        let notes = notComparableNotes
        if !notes.isEmpty { output += "\n" + notes.joined(separator: "\n") + "\n" }
        return output
    }

    /// One markdown table per concurrency level.
    package var markdown: String {
        func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
        var lines: [String] = []
        for section in sections {
            lines.append("#### " + section.title.prefix(1).uppercased() + section.title.dropFirst())
            lines.append("")
            lines.append("| metric | " + configurations.map { cell($0.label) }.joined(separator: " | ") + " |")
            lines.append("| --- |" + String(repeating: " ---: |", count: configurations.count))
            for row in section.rows {
                let title = Self.titles[row.metric].map { "\($0) (`\(row.metric)`)" } ?? "`\(row.metric)`"
                lines.append(
                    "| \(title) | "
                        + configurations.indices.map { cell(Self.cellText(row, $0)) }.joined(separator: " | ")
                        + " |"
                )
            }
            lines.append("")
        }
        let notes = notComparableNotes.map { "- " + cell($0) }
        return "Changes are against the first configuration (\(cell(configurations.first?.label ?? "—"))); "
            + "a comparison of configurations, not a regression check (`pagebench check` judges regressions).\n\n"
            + lines.joined(separator: "\n") + (notes.isEmpty ? "" : "\n" + notes.joined(separator: "\n") + "\n")
    }

    /// Machine-readable: one record per concurrency × metric, a value and a delta column per
    /// configuration; a `stage` column after `concurrency` when a row is of a stage (H4).
    package var csv: String {
        let writer = CSVWriter()
        let staged = sections.contains { $0.stage != nil }
        var header = ["concurrency"] + (staged ? ["stage"] : []) + ["metric", "unit", "polarity"]
        for configuration in configurations { header += [configuration.label, configuration.label + " delta"] }
        header.append("not_comparable")
        var records: [[String]] = []
        for section in sections {
            for row in section.rows {
                var fields =
                    [String(section.concurrency)] + (staged ? [section.stage.map(String.init) ?? ""] : [])
                    + [row.metric, row.unit, row.polarity.rawValue]
                for index in configurations.indices {
                    fields.append(row.values[index].map { CSVValue.decimal($0).field } ?? "")
                    fields.append(row.deltas[index].map { $0.isFinite ? CSVValue.decimal($0).field : "" } ?? "")
                }
                // Per pair: the configurations whose change against the first is not comparable, and why.
                let reasons = configurations.indices.compactMap { index in
                    row.notComparable(at: index).map { "\(configurations[index].label): \($0)" }
                }
                fields.append(reasons.joined(separator: "; "))
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
