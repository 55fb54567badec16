import ArgumentParser
import PagebenchBase
import PagebenchEngine
import PagebenchMetrics
import PagebenchReport

extension ExportFormat: ExpressibleByArgument {}

/// `pagebench export`: a results CSV in the formats continuous-benchmarking services and CI
/// test reports read (docs/ci.md).
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            "Write a results CSV for CI: github-action-benchmark, Bencher (BMF), HdrHistogram .hgrm, OpenMetrics.",
        discussion: """
            Rows are grouped by scenario, configuration hash, pager and concurrency (and stage); a \
            service that keeps one value per benchmark gets the median of the repetitions, with their \
            spread where the format has room (range, lower_value/upper_value). Units and polarity come \
            from the column registry (docs/csv-columns.md). --output per format: \
            \(ExportFormat.allCases.map { "\($0.rawValue): \($0.outputDescription)" }.joined(separator: "; ")). \
            Exit status: 0 written, 64 bad arguments, 65 malformed CSV or no row with a histogram (hgrm), \
            66 missing file, 73 an output that could not be written, 74 standard output failed.
            """
    )

    @Argument(help: ArgumentHelp("The results CSV to export.", valueName: "results.csv"))
    var results: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The format (docs/ci.md).", valueName: "format")
    )
    var format: ExportFormat

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Where to write: a prefix (github-action-benchmark), a file (bmf, openmetrics) or a directory (hgrm).",
            valueName: "path"
        )
    )
    var output: String?

    @Option(
        name: .customLong("metric"),
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Export only this column (repeatable; default: every measured and deterministic numeric column).",
            valueName: "column"
        )
    )
    var metrics: [String] = []

    init() {}

    func validate() throws {
        if let output, output.isEmpty { throw ValidationError("--output must name a path") }
        for name in metrics where !ResultExport.exportableColumns.contains(where: { $0.name == name }) {
            throw ValidationError(
                "--metric \(ControlCharacters.escaped(name)) is not a numeric column of measured or deterministic "
                    + "figures; docs/csv-columns.md lists them (e.g. pages_per_s, page_latency_p99_ns)"
            )
        }
        if format == .hgrm, !metrics.isEmpty {
            throw ValidationError("--metric does not apply to hgrm, which writes each row's page latency histogram")
        }
    }

    func run() throws {
        try CommandError.reporting {
            let export = try ResultExport(rows: CSVFile.readResults(results), columns: metrics.isEmpty ? nil : metrics)
            switch format {
            case .githubActionBenchmark:
                var prefix = output ?? Self.withoutSuffix(results, ".csv")
                prefix = Self.withoutSuffix(prefix, ".json")
                var lines = ""
                for (polarity, name) in [(Polarity.lowerIsBetter, "smaller"), (.higherIsBetter, "bigger")] {
                    let path = "\(prefix).\(name)-is-better.json"
                    try TextFile.write(export.githubActionBenchmark(polarity), to: path)
                    let tool = name == "smaller" ? "customSmallerIsBetter" : "customBiggerIsBetter"
                    lines += "wrote \(path) (\(export.benchmarkEntries(polarity).count) entries, tool: \(tool))\n"
                }
                try StandardOutput.write(lines)
            case .bmf:
                try write(export.bencherMetricFormat)
            case .openmetrics:
                try write(export.openMetrics)
            case .hgrm:
                let directory = output ?? (Self.withoutSuffix(results, ".csv") + "-hgrm")
                let (files, skipped) = try export.percentileDistributions(file: results)
                guard !files.isEmpty else {
                    throw MetricsError(
                        kind: .malformedInput,
                        file: results,
                        message: "no row has a page_latency_histogram or a drain_latency_histogram (rows of schema 7 "
                            + "and later with per-page timing have the first, of schema 10 and later the second): "
                            + "there is no histogram to write; rerun with this pagebench"
                    )
                }
                for file in files { try TextFile.write(file.text, to: "\(directory)/\(file.fileName)") }
                for missing in skipped {
                    StandardError.write("pagebench: warning: \(missing) is empty: no .hgrm written for it\n")
                }
                try StandardOutput.write(
                    "wrote \(files.count) .hgrm file\(files.count == 1 ? "" : "s") to \(directory)/\n"
                )
            }
        }
    }

    /// `text` to `--output`, or to standard output without it.
    private func write(_ text: String) throws {
        if let output {
            try TextFile.write(text, to: output)
        } else {
            try StandardOutput.write(text)
        }
    }

    private static func withoutSuffix(_ path: String, _ suffix: String) -> String {
        path.hasSuffix(suffix) && path.count > suffix.count ? String(path.dropLast(suffix.count)) : path
    }
}
