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
            Each scenario + configuration hash + pager kind of each file is a column; cells are the \
            median of the repetitions; one table per concurrency level. Example: \
            pagebench compare results/even.csv results/clustered.csv --format markdown
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

    @Option(parsing: .unconditional, help: "Comma-separated metric columns to show (default: a curated set).")
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
        guard !(allMetrics && metrics != nil) else { throw ValidationError("use either --metrics or --all-metrics, not both") }
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
        let table = try CommandFailure.reporting {
            let inputs = try files.map { (path: $0, rows: try CSVFile.readResults($0)) }
            return ConfigurationComparison(files: inputs, metrics: metricList)
        }
        try CommandFailure.reporting { try StandardOutput.write(table.rendered(format.outputFormat)) }
    }
}
