import Foundation
import PagebenchBase
import PagebenchMetrics

/// `export --format github-action-benchmark`: the JSON of github-action-benchmark's custom
/// tools (docs/ci.md), one array per polarity, since the tool is chosen per file:
/// `customSmallerIsBetter` takes the columns whose polarity is lower-is-better (latencies,
/// CPU, memory, errors), `customBiggerIsBetter` the higher-is-better ones (rates). Neutral
/// columns have no better direction and are not written.
///
/// One entry per group and column: `name` is the group's identity and the column, `unit`
/// the column's, `value` the median of the repetitions, `range` half their spread
/// (`± x`), and `extra` the repetitions' values and the group's label.
extension ResultExport {
    /// One entry of github-action-benchmark's custom JSON.
    package struct BenchmarkEntry: Encodable, Equatable, Sendable {
        package var name: String
        package var unit: String
        package var value: Double
        package var range: String
        package var extra: String
    }

    /// The entries of the columns of `polarity` (lower- or higher-is-better).
    package func benchmarkEntries(_ polarity: Polarity) -> [BenchmarkEntry] {
        groups.flatMap { group in
            series(group).filter { $0.column.polarity == polarity }.map { series in
                let values = series.values.map { NumberText.number($0) }.joined(separator: ", ")
                let count = series.values.count
                return BenchmarkEntry(
                    name: "\(group.identity.description) \(series.column.name)",
                    unit: series.column.unit.isEmpty ? "count" : series.column.unit,
                    value: series.median,
                    range: "± " + NumberText.number((series.maximum - series.minimum) / 2),
                    extra: "median of \(count) repetition\(count == 1 ? "" : "s"): \(values); label: \(group.label)"
                )
            }
        }
    }

    /// github-action-benchmark's JSON for `customSmallerIsBetter` (`.lowerIsBetter`) or
    /// `customBiggerIsBetter` (`.higherIsBetter`).
    package func githubActionBenchmark(_ polarity: Polarity) -> String {
        ExportJSON.encode(benchmarkEntries(polarity))
    }
}

/// JSON text of the export formats: sorted keys, pretty-printed, slashes unescaped.
enum ExportJSON {
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
        } catch {
            // Strings and finite numbers only (a CSV decimal is finite): encoding cannot fail.
            preconditionFailure("encoding an export failed: \(error)")
        }
    }
}
