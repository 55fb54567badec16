/// The formats `pagebench export` writes a results CSV in (docs/ci.md): what continuous
/// benchmarking services and CI test reports read.
package enum ExportFormat: String, Sendable, CaseIterable {
    /// github-action-benchmark's `customSmallerIsBetter` and `customBiggerIsBetter` tools: two
    /// JSON arrays of `{name, unit, value, range, extra}`, one file per polarity.
    case githubActionBenchmark = "github-action-benchmark"
    /// Bencher Metric Format: `{benchmark: {measure: {value, lower_value, upper_value}}}`.
    case bmf
    /// HdrHistogram's percentile distribution (`.hgrm`) of each row's page latency histogram,
    /// one file per row.
    case hgrm
    /// OpenMetrics text (GitLab's metrics report), ending with `# EOF`.
    case openmetrics

    /// What `--output` names for this format, and where the files go without it.
    package var outputDescription: String {
        switch self {
        case .githubActionBenchmark:
            "a path prefix: writes PREFIX.smaller-is-better.json and PREFIX.bigger-is-better.json "
                + "(default: the CSV's path without .csv)"
        case .bmf, .openmetrics: "a file (default: standard output)"
        case .hgrm: "a directory, one .hgrm file per row (default: the CSV's path without .csv, then -hgrm)"
        }
    }
}
