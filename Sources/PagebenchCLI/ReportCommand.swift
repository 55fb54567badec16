import ArgumentParser
import PagebenchMetrics
import PagebenchReport

/// `pagebench report`: one self-contained HTML file that answers first, then plots.
struct ReportCommand: ParsableCommand {
    /// Where the report goes without `--output`.
    static let defaultOutput = "results/report.html"

    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write one self-contained HTML report (inline SVG plots, no network) from results CSVs.",
        discussion: """
            The report opens with what was compared (one row per configuration, named by its label), a \
            headline table (round trips and empty pages per drain, empty-page rate, items/s, drains/s beside \
            requests/s, drain p50/p99, memory) with differences against the first configuration, and a \
            sentence of verdict; then only the plots these rows mean something for: the knee for knee steps \
            (with the bound its rows were judged on), plan against achieved for stages, round trips and empty \
            pages against the limit for a limit sweep. Writes results/report.html unless --output says \
            otherwise, and prints the path. Example: pagebench run --limit 10,100 --filter category=0; \
            pagebench report results/latest.csv. Given two files that share a group (a baseline and a current \
            run), the report opens with what `pagebench check --baseline FIRST --current SECOND` decides: \
            passed or failed, what was gated and why, every verdict beyond its threshold (--thresholds and \
            --gate-wall-clock as check takes them).
            """
    )

    @Argument(help: "Results CSV files.")
    var files: [String] = []

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The HTML file to write (replaced atomically; default \(ReportCommand.defaultOutput)).",
            valueName: "file"
        )
    )
    var output: String = ReportCommand.defaultOutput

    @Option(
        name: .customLong("slo"),
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "An SLO to draw on the knee plot instead of the ones the rows record (their slos column), as knee and run take it (drain_latency_corrected_p99_ns<100ms). Repeatable.",
            valueName: "expr"
        )
    )
    var sloExpressions: [String] = []

    @Option(parsing: .unconditional, help: "A history CSV (results rows of many commits) for the history plot.")
    var history: String?

    @Option(parsing: .unconditional, help: "A time-series CSV (pagebench run --timeseries) for the memory plot.")
    var timeseries: String?

    @Option(parsing: .unconditional, help: "The page title.")
    var title: String = "pagebench report"

    @Option(
        parsing: .unconditional,
        help: "For a baseline and a current file: the thresholds JSON file `check` would use for the gate's verdict."
    )
    var thresholds: String?

    @Flag(help: "For a baseline and a current file: the gate's verdict as `check --gate-wall-clock` decides it.")
    var gateWallClock = false

    init() {}

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one results CSV file") }
        guard !output.isEmpty, !output.hasSuffix("/") else {
            throw ValidationError("--output must name a file, e.g. --output report.html")
        }
        do {
            _ = try ServiceLevelObjective.parseAll(sloExpressions)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        try CommandError.reporting {
            var report = HTMLReport(
                files: try files.map { (path: $0, rows: try CSVFile.readResults($0)) },
                history: try history.map { try CSVFile.readResults($0, repeatedRows: .allowed) },
                timeSeries: try timeseries.map { try CSVFile.read(TimeSeriesRow.self, from: $0) }
            )
            report.title = title
            var rules = try thresholds.map(Thresholds.read(from:)) ?? Thresholds()
            if gateWallClock { rules.gateWallClock = true }
            report.checkThresholds = rules
            report.objectives = (try? ServiceLevelObjective.parseAll(sloExpressions)) ?? []
            try HTMLReport.write(report.render(), to: output)
        }
        try CommandError.reporting { try StandardOutput.write("pagebench: wrote \(output)\n") }
    }
}
