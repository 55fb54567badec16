import PagebenchBase
import PagebenchMetrics

/// The table `pagebench run` prints at the end: one line per result row with the figures
/// people compare first. Its rate is drains/s beside requests/s (`drains_per_s`,
/// `pages_per_s`: a page is one request), as every rate the console shows (issue 35).
public enum SummaryTable {
    public static let headers = [
        "configuration", "pager", "conc", "rep", "drains/s", "requests/s", "items/s", "empty%", "pages/drain",
        "page p50", "page p99",
        "drain p99", "cancel p99", "allocs/page", "peak alloc", "peak RSS", "overhead", "harness",
    ]

    /// The rendered table, columns aligned, numbers right-aligned; a row is named by its
    /// `label` (issue 26; its scenario where it has none), a stage's row (H4) has `stage K`
    /// after it, a phase cut short by a signal (H6) `(partial)`.
    /// Where an open loop's corrected drain p99 goes: after the drain p99.
    static let correctedColumn = headers.firstIndex(of: "drain p99")! + 1

    public static func render(_ rows: [ResultRow]) -> String {
        // Open loop: the corrected drain p99 (from each drain's intended start) is the latency
        // that sees a queue; shown whenever a row has it, not only when an --slo names it (issue 35).
        let corrected = rows.contains { $0.drainLatencyCorrected != nil }
        var headers = Self.headers
        if corrected { headers.insert("drain p99 corr.", at: correctedColumn) }
        let body = rows.map { row -> [String] in
            var cells: [String] = [
                (row.label.isEmpty ? row.scenario : row.label) + (row.stage.map { " stage \($0)" } ?? "")
                    + (row.partial == 1 ? " (partial)" : ""), row.pagerKind, "\(row.concurrency)", "\(row.repetition)",
                NumberText.count(row.drainsPerSecond), NumberText.count(row.pagesPerSecond),
                NumberText.count(row.itemsPerSecond),
                NumberText.fixed(row.emptyPageRate * 100, 1), NumberText.fixed(row.pagesPerDrainMean, 1),
                row.pageLatency.map { NumberText.nanoseconds($0.p50Nanoseconds) } ?? "-",
                row.pageLatency.map { NumberText.nanoseconds($0.p99Nanoseconds) } ?? "-",
                row.drainLatency.map { NumberText.nanoseconds($0.p99Nanoseconds) } ?? "-",
                row.cancellationLatency.map { NumberText.nanoseconds($0.p99Nanoseconds) } ?? "-",
                NumberText.fixed(row.allocationsPerPage, 1), NumberText.bytes(row.peakAllocatedBytes),
                NumberText.bytes(row.peakRSSBytes),
                row.measurementOverheadRatio.map { NumberText.fixed($0, 3) } ?? "-",
                row.harnessOverheadRatio.map { NumberText.fixed($0, 2) } ?? "-",
            ]
            if corrected {
                cells.insert(
                    row.drainLatencyCorrected.map { NumberText.nanoseconds($0.p99Nanoseconds) } ?? "-",
                    at: correctedColumn
                )
            }
            return cells
        }
        let all = [headers] + body
        let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column < 2 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        return ([line(headers)] + body.map(line)).joined(separator: "\n") + "\n"
    }
}
