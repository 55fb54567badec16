import PagebenchBase
import PagebenchMetrics

/// One self-contained HTML page (`pagebench report`): inline SVG drawn here, inline CSS, no
/// scripts and nothing fetched from the network. The markup is well-formed XML (XHTML
/// syntax), so it can be checked with any XML parser.
///
/// For a baseline and a current file it opens with what `pagebench check` decides (issue 35,
/// ``gateCheck``). It answers first (issue 26): what was compared (a row per configuration, by label), the
/// headline figures with differences against the first configuration and a sentence of
/// verdict; then only the plots these rows mean something for, each with its key (legend) as
/// a table under it, so that no name is cut:
/// - `plot-knee` first for knee steps: corrected drain latency p99 against drains/s achieved,
///   requests/s along the top, the SLO's bound drawn (``objectives``), broken steps as rings;
/// - `plot-stage-plan` for stages (H4): plan against achieved per stage, and from a time
///   series `plot-stage-throughput`, `plot-stage-pagers`, `plot-stage-latency`;
/// - `plot-limit` when the limits differ: round trips and empty pages per drain against it;
/// - `plot-throughput` (requests/s and drains/s) when a configuration has several concurrencies;
/// - `plot-drain-latency`, and `plot-page-latency` unless the limits differ;
/// - `plot-empty-pages` when selectivities differ; `plot-cancellation` when drains were
///   cancelled; `plot-memory` with a time series; `plot-history` with a history file.
/// What is left out is named with how to get it.
package struct HTMLReport: Sendable {
    package static let plotIDs = [
        "plot-knee", "plot-stage-plan", "plot-limit", "plot-throughput", "plot-drain-latency", "plot-page-latency",
        "plot-empty-pages", "plot-cancellation", "plot-memory", "plot-history",
    ]
    /// The plots of staged runs (H4), shown when a row or the time series has a stage.
    package static let stagePlotIDs = ["plot-stage-throughput", "plot-stage-latency", "plot-stage-pagers"]

    package var files: [(path: String, rows: [ResultRow])]
    package var history: [ResultRow]?
    package var timeSeries: [TimeSeriesRow]?
    package var title = "pagebench report"
    /// SLOs to draw on the knee plot (`report --slo`): the CSV records each step's verdict,
    /// not the bound it was judged on.
    package var objectives: [ServiceLevelObjective] = []
    /// Lines per plot before the report keeps only each configuration's highest concurrency.
    package var maximumSeries = 8
    /// The thresholds of the gate's verdict shown for a baseline and a current file
    /// (``gateCheck``, `report --thresholds`); nil leaves the gate out.
    package var checkThresholds: Thresholds? = Thresholds()

    package init(
        files: [(path: String, rows: [ResultRow])],
        history: [ResultRow]? = nil,
        timeSeries: [TimeSeriesRow]? = nil
    ) {
        self.files = files
        self.history = history
        self.timeSeries = timeSeries
    }

    /// A configuration (column of ``ConfigurationComparison``) with its rows.
    struct Group {
        var label: String
        var rows: [ResultRow]
    }

    var groups: [Group] {
        let table = ConfigurationComparison(files: files, metrics: [])
        return table.configurations.map { configuration in
            let rows =
                files.first { $0.path == configuration.file }?.rows.filter {
                    $0.scenario == configuration.scenario && $0.configHash == configuration.configHash
                        && $0.pagerKind == configuration.pagerKind
                } ?? []
            return Group(label: configuration.label, rows: rows)
        }
    }

    /// The whole page: what was compared and the answer first (``answer(_:)``), then only
    /// the plots these rows mean something for, then every figure side by side.
    package func render() -> String {
        let groups = groups
        let rowCount = files.reduce(0) { $0 + $1.rows.count }
        let contexts = Set(
            files.flatMap {
                $0.rows.map {
                    "\($0.gitCommit.prefix(12)) · \($0.buildConfiguration) · Swift \($0.swiftVersion) · \($0.host) · \($0.cores) cores"
                }
            }
        )
        var body = "<h1>\(escape(title))</h1>\n"
        body +=
            "<p class=\"meta\">\(rowCount) rows from "
            + files.map { "<code>\(escape($0.path))</code>" }.joined(separator: ", ")
            + ". " + contexts.sorted().map(escape).joined(separator: "; ") + ".</p>\n"
        switch gate {
        case .decided(let check): body += gateSection(check)
        case .refused(let message): body += gateRefusal(message)
        case nil: break
        }
        body += answer(groups)
        let (plots, notShown) = plotSections(groups)
        body += "<div class=\"plots\">\n" + plots.joined() + "</div>\n"
        if !notShown.isEmpty {
            body +=
                "<p class=\"meta\">Not shown, as these rows have nothing for them: "
                + notShown.map(escape).joined(separator: "; ") + ".</p>\n"
        }
        body += "<h2>Every figure side by side</h2>\n" + comparisonTable()
        return """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title>\(escape(title))</title>
            <style>
            \(Self.stylesheet)
            </style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }
}

extension HTMLReport {
    /// Writes rendered HTML to `path` atomically, creating parent directories.
    package static func write(_ html: String, to path: String) throws {
        try TextFile.write(html, to: path)
    }
}
