import ArgumentParser
import PagebenchMetrics
import PagebenchReport

/// `pagebench report`: one self-contained HTML file of plots.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write one self-contained HTML report (inline SVG plots, no network) from results CSVs."
    )

    @Argument(help: "Results CSV files.")
    var files: [String] = []

    @Option(parsing: .unconditional, help: "The HTML file to write (replaced atomically).")
    var output: String

    @Option(parsing: .unconditional, help: "A history CSV (results rows of many commits) for the history plot.")
    var history: String?

    @Option(parsing: .unconditional, help: "A time-series CSV (pagebench run --timeseries) for the memory plot.")
    var timeseries: String?

    @Option(parsing: .unconditional, help: "The page title.")
    var title: String = "pagebench report"

    init() {}

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one results CSV file") }
        guard !output.isEmpty else { throw ValidationError("--output must name a file, e.g. --output report.html") }
    }

    func run() throws {
        try CommandFailure.reporting {
            var report = HTMLReport(
                files: try files.map { (path: $0, rows: try CSVFile.readResults($0)) },
                history: try history.map { try CSVFile.readResults($0, repeatedRows: .allowed) },
                timeSeries: try timeseries.map { try CSVFile.read(TimeSeriesRow.self, from: $0) })
            report.title = title
            try HTMLReport.write(report.render(), to: output)
        }
        try CommandFailure.reporting { try StandardOutput.write("pagebench: wrote \(output)\n") }
    }
}
