import Foundation
import PagebenchBase
import PagebenchMetrics

/// A bound on one measured figure of a result row, as k6's thresholds are: `--slo EXPR` or a
/// scenario's `slo` list. A run that breaks one exits non-zero after writing its results;
/// the knee search (docs/contract.md H5) asks whether a step's row met every SLO.
///
/// Text form: `COLUMN OP BOUND`, where COLUMN is a numeric column of the results CSV or one
/// of the derived figures below, OP is `<`, `<=`, `>` or `>=`, and BOUND is a number with a
/// unit that fits the column's:
/// - nanosecond columns (`page_latency_p99_ns`): `ns`, `us`/`µs`, `ms`, `s`, or a bare number
///   of nanoseconds: `page_latency_p99_ns<5ms`;
/// - byte columns: `B`, `KiB`, `MiB`, `GiB`, `KB`, `MB`, `GB` or bytes;
/// - ratios and rates: a bare number or a percentage: `empty_page_rate<0.5`,
///   `error_rate<=0.1%`;
/// - anything else: a bare number, optionally with `k` or `M` (thousands, millions):
///   `pages_per_s>=1.5M`.
///
/// Derived figures (not columns, computed from a row):
/// - `error_rate`: failed drains ÷ (ended drains + failed drains), where failed drains are
///   the sum of the `errors_*` columns; 0 for a row with no drains at all.
package struct ServiceLevelObjective: Sendable, Equatable, CustomStringConvertible {
    package enum Comparison: String, Sendable, Equatable, CaseIterable {
        case below = "<"
        case atMost = "<="
        case above = ">"
        case atLeast = ">="

        func holds(_ value: Double, _ bound: Double) -> Bool {
            switch self {
            case .below: value < bound
            case .atMost: value <= bound
            case .above: value > bound
            case .atLeast: value >= bound
            }
        }
    }

    /// The column (or derived figure) bounded.
    package let column: String
    package let comparison: Comparison
    /// The bound in the column's own unit (nanoseconds for `_ns` columns, bytes, a ratio as a fraction).
    package let bound: Double
    /// The unit of ``bound`` (the column's), for messages.
    package let unit: String
    /// The expression as written.
    package let text: String

    /// The derived figures an SLO may bound besides the CSV's numeric columns.
    package static let derivedFigures: [ColumnDescriptor] = [
        ColumnDescriptor(
            name: "error_rate",
            unit: "ratio",
            polarity: .lowerIsBetter,
            kind: .measured,
            type: .decimal,
            isOptional: false,
            summary: "Failed drains (sum of `errors_*`) ÷ (ended drains + failed drains); 0 with no drains."
        )
    ]

    /// Parses `COLUMN OP BOUND` against the row type's columns.
    ///
    /// - Parameter source: where the expression came from, for messages: `--slo` or a
    ///   scenario's `slo[2]`.
    /// - Throws: ``MetricsError`` (`invalidRequest`, exit 64) naming what is wrong: no operator,
    ///   an unknown column (with the closest name), a text column, a bound that is not a
    ///   finite number or whose unit does not fit the column.
    package init(
        parsing text: String,
        columns: [ColumnDescriptor] = ResultRow.columnDescriptors,
        source: String = "--slo"
    ) throws(MetricsError) {
        func fail(_ message: String) -> MetricsError {
            MetricsError(kind: .invalidRequest, message: "\(source) '\(text)': \(message)")
        }
        let compact = String(text.unicodeScalars.filter { !$0.properties.isWhitespace })
        guard let operatorStart = compact.firstIndex(where: { $0 == "<" || $0 == ">" }) else {
            throw fail("write COLUMN<BOUND, COLUMN<=BOUND, COLUMN>BOUND or COLUMN>=BOUND, e.g. page_latency_p99_ns<5ms")
        }
        let name = String(compact[..<operatorStart])
        var rest = compact[operatorStart...]
        let comparison: Comparison
        if rest.hasPrefix("<=") {
            comparison = .atMost
        } else if rest.hasPrefix(">=") {
            comparison = .atLeast
        } else if rest.hasPrefix("<") {
            comparison = .below
        } else {
            comparison = .above
        }
        rest = rest.dropFirst(comparison.rawValue.count)
        let candidates = columns + Self.derivedFigures
        guard let descriptor = candidates.first(where: { $0.name == name }) else {
            let suggestion = Thresholds.closestName(to: name, in: candidates.filter { $0.type != .text }.map(\.name))
            throw fail("no column '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ""))
        }
        guard descriptor.type != .text else { throw fail("'\(name)' is a text column; an SLO bounds a number") }
        guard let bound = Self.bound(String(rest), unit: descriptor.unit), bound.isFinite else {
            throw fail(
                "'\(rest)' is not a bound for \(name) (unit \(descriptor.unit.isEmpty ? "none" : descriptor.unit)); \(Self.unitHint(descriptor.unit))"
            )
        }
        self.column = name
        self.comparison = comparison
        self.bound = bound
        self.unit = descriptor.unit
        self.text = text
    }

    package var description: String { "\(column)\(comparison.rawValue)\(Self.format(bound, unit: unit))" }

    /// A value of the bounded column, readable in its unit (`12.5ms`, `0.002`).
    package func formatted(_ value: Double) -> String { Self.format(value, unit: unit) }

    /// The verdict of one SLO on one row.
    package enum Verdict: Sendable, Equatable {
        case held(value: Double)
        /// The bound broke: the value, and how far past the bound it is (in the column's unit).
        case broke(value: Double, excess: Double)
        /// The row has no value for the column (e.g. no cancellations measured): reported,
        /// and counted as broken, since an SLO that cannot be checked has not been met.
        case missing
    }

    /// Judges a row.
    package func judge(_ row: ResultRow) -> Verdict {
        let value: Double?
        if column == "error_rate" {
            let failed = row.errors.total
            let attempts = row.drains + failed
            value = attempts == 0 ? 0 : Double(failed) / Double(attempts)
        } else {
            value = row.value(ofColumn: column)?.numericValue
        }
        guard let value else { return .missing }
        if comparison.holds(value, bound) { return .held(value: value) }
        return .broke(value: value, excess: abs(value - bound))
    }

    /// A sentence for a broken verdict: which bound, on which row, by how much.
    package func explain(_ verdict: Verdict, row: String) -> String? {
        switch verdict {
        case .held:
            return nil
        case .missing:
            return "\(row): SLO \(description) could not be checked: the row has no \(column)"
        case .broke(let value, let excess):
            let relative = bound == 0 ? "" : String(format: " (%.1f %% past the bound)", excess / abs(bound) * 100)
            return "\(row): SLO \(description) broke: \(column) was \(Self.format(value, unit: unit)), "
                + "\(Self.format(excess, unit: unit)) past the bound\(relative)"
        }
    }

    // MARK: units

    private static func bound(_ text: String, unit: String) -> Double? {
        let scales: [(String, Double)]
        switch unit {
        case "ns":
            // Durations in the one grammar (`60ms`, `2m`: DurationText), or bare nanoseconds.
            if let nanoseconds = DurationText.nanoseconds(text) { return nanoseconds }
            scales = [("", 1)]
        case "bytes":
            scales = [
                ("KiB", 1024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("KB", 1e3), ("MB", 1e6), ("GB", 1e9),
                ("B", 1), ("", 1),
            ]
        case "ratio":
            scales = [("%", 0.01), ("", 1)]
        default:
            scales = [("k", 1e3), ("M", 1e6), ("", 1)]
        }
        for (suffix, scale) in scales where text.hasSuffix(suffix) {
            let digits = text.dropLast(suffix.count)
            guard !digits.isEmpty,
                digits.allSatisfy({ $0.isNumber || $0 == "." || $0 == "e" || $0 == "-" || $0 == "+" }),
                let number = Double(digits)
            else { continue }
            return number * scale
        }
        return nil
    }

    private static func unitHint(_ unit: String) -> String {
        switch unit {
        case "ns": "write a duration such as 5ms, 250us, 1.5s or 1m"
        case "bytes": "write a size such as 512MiB or 1GB"
        case "ratio": "write a fraction such as 0.05 or a percentage such as 5%"
        default: "write a number such as 1500, 1.5k or 2M"
        }
    }

    /// A value in the column's unit, readable: durations with a unit, ratios as fractions.
    static func format(_ value: Double, unit: String) -> String {
        func trimmed(_ number: Double) -> String {
            number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(format: "%.4g", number)
        }
        switch unit {
        case "ns":
            if abs(value) >= 1e9 { return trimmed(value / 1e9) + "s" }
            if abs(value) >= 1e6 { return trimmed(value / 1e6) + "ms" }
            if abs(value) >= 1e3 { return trimmed(value / 1e3) + "us" }
            return trimmed(value) + "ns"
        case "bytes":
            return trimmed(value) + "B"
        default:
            return trimmed(value)
        }
    }
}

extension ServiceLevelObjective {
    /// Parses every `--slo` expression, or with `field` every entry of a scenario's list
    /// (named `field[i]` in messages), in order.
    ///
    /// - Throws: the first bad expression's ``MetricsError`` (`invalidRequest`).
    package static func parseAll(
        _ expressions: [String],
        field: String? = nil
    ) throws(MetricsError) -> [ServiceLevelObjective] {
        var objectives: [ServiceLevelObjective] = []
        for (index, expression) in expressions.enumerated() {
            objectives.append(
                try ServiceLevelObjective(parsing: expression, source: field.map { "\($0)[\(index)]" } ?? "--slo")
            )
        }
        return objectives
    }

    /// The `slos` column's text of `objectives`: their expressions, `;`-separated.
    package static func columnText(_ objectives: [ServiceLevelObjective]) -> String {
        objectives.map(\.description).joined(separator: ";")
    }

    /// The SLOs recorded in `rows`' `slos` column, each once, in order of first appearance;
    /// an entry that does not parse (a file edited by hand) is left out.
    package static func recorded(in rows: [ResultRow]) -> [ServiceLevelObjective] {
        var seen = Set<String>()
        var objectives: [ServiceLevelObjective] = []
        for row in rows {
            for expression in row.slos.split(separator: ";").map(String.init) where seen.insert(expression).inserted {
                if let objective = try? ServiceLevelObjective(parsing: expression, source: "slos") {
                    objectives.append(objective)
                }
            }
        }
        return objectives
    }

    /// Every bound of `objectives` that a row of `rows` breaks (or cannot be checked on), as
    /// sentences naming the row (scenario, pager, concurrency, repetition, stage), the bound and by
    /// how much; empty when every SLO held on every row.
    package static func violations(of objectives: [ServiceLevelObjective], in rows: [ResultRow]) -> [String] {
        var messages: [String] = []
        for row in rows {
            let name =
                "\(row.scenario) \(row.pagerKind) ×\(row.concurrency) rep \(row.repetition)"
                + (row.stage.map { " stage \($0)" } ?? "")
            for objective in objectives {
                if let message = objective.explain(objective.judge(row), row: name) { messages.append(message) }
            }
        }
        return messages
    }

    /// Whether every SLO held on `row`.
    package static func allHold(_ objectives: [ServiceLevelObjective], on row: ResultRow) -> Bool {
        objectives.allSatisfy { if case .held = $0.judge(row) { true } else { false } }
    }
}
