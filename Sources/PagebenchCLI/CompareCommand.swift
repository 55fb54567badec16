import ArgumentParser
import Foundation
import PagebenchBase
import PagebenchMetrics
import PagebenchReport

/// `pagebench compare`: configurations side by side.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare configurations side by side: one column each, changes against the first.",
        discussion: """
            Each scenario + configuration hash + pager kind of each file is a column, named by its label \
            (the parameters that set it apart: limit=100 filter=category=0); cells are the median of the \
            repetitions; one table per concurrency level. The cost of a drain comes first: round trips, \
            empty pages, scanned bytes and latency per drain, items/s; then requests/s (pages_per_s) beside \
            drains/s. This compares configurations, not commits: figures per page are marked not comparable \
            when the limits differ (a page is then another unit), totals when the drain counts differ; \
            `pagebench check` judges regressions. Example (one sweep, one file): \
            pagebench run --limit 10,100 --filter category=0 --output results/limits.csv; \
            pagebench compare results/limits.csv --format markdown
            """
    )

    @Argument(help: "Results CSV files (one file may hold several configurations).")
    var files: [String] = []

    @Option(parsing: .unconditional, help: "Output format.")
    var format: Format = .text

    /// The formats a comparison table has.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, markdown, csv
        var outputFormat: OutputFormat { OutputFormat(rawValue: rawValue)! }
    }

    @Option(
        parsing: .unconditional,
        help:
            "Comma-separated metric columns to show, or the per-drain figures empty_pages_per_drain, scanned_bytes_per_drain, items_per_drain (default: the cost of a drain first)."
    )
    var metrics: String?

    @Flag(help: "Show every non-context column.")
    var allMetrics = false

    init() {}

    var metricList: [String] {
        if allMetrics { return ConfigurationComparison.comparableMetrics }
        guard let metrics else { return ConfigurationComparison.defaultMetrics }
        // An empty element was refused in validate().
        return (try? ListText.elements(of: metrics)) ?? []
    }

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one results CSV file") }
        guard !(allMetrics && metrics != nil) else {
            throw ValidationError("use either --metrics or --all-metrics, not both")
        }
        if let metrics {
            do {
                _ = try ListText.elements(of: metrics)
            } catch {
                throw ValidationError("--metrics: " + error.problem(example: "pages_per_s,empty_page_rate"))
            }
        }
        do {
            try ConfigurationComparison.validateMetrics(metricList)
        } catch let error as MetricsError {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        let table = try CommandError.reporting {
            let inputs = try files.map { (path: $0, rows: try CSVFile.readResults($0)) }
            return ConfigurationComparison(files: inputs, metrics: metricList)
        }
        try CommandError.reporting { try StandardOutput.write(table.rendered(format.outputFormat)) }
    }
}
