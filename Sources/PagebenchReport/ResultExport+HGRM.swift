import PagebenchMetrics

/// `export --format hgrm`: each row's page latency and drain latency histograms as
/// HdrHistogram's percentile distribution (`.hgrm`, docs/ci.md), the text HdrHistogram's own
/// `outputPercentileDistribution` writes and its plotter reads: `Value`, `Percentile`,
/// `TotalCount` and `1/(1-Percentile)` per line, 5 ticks per half distance, then the mean,
/// standard deviation, maximum, count and bucket layout. Values are in microseconds (the
/// recorded nanoseconds divided by 1,000, printed with 3 decimals: no resolution lost).
///
/// Written from the row's `page_latency_histogram` and `drain_latency_histogram` cells, the
/// whole histograms of the measured phase, never rebuilt from percentiles: a row without a
/// cell (per-page timing off, no drain ended, or a file of an earlier schema) has no
/// distribution of that latency to write.
extension ResultExport {
    /// One `.hgrm` file: its name and text.
    package struct PercentileDistribution: Sendable, Equatable {
        package var fileName: String
        package var text: String
    }

    /// A latency whose whole histogram a row carries: one `.hgrm` file per row each.
    package enum HistogramColumn: String, CaseIterable, Sendable {
        case pageLatency = "page-latency"
        case drainLatency = "drain-latency"

        /// The CSV column that holds it.
        package var column: String {
            switch self {
            case .pageLatency: "page_latency_histogram"
            case .drainLatency: "drain_latency_histogram"
            }
        }

        func cell(_ row: ResultRow) -> String {
            switch self {
            case .pageLatency: row.pageLatencyHistogram
            case .drainLatency: row.drainLatencyHistogram
            }
        }
    }

    /// The unit of the values in a `.hgrm` file, and the recorded nanoseconds per unit.
    package static let hgrmUnit = (name: "us", nanoseconds: 1_000.0)

    /// The percentile distribution of `recorder`, in ``hgrmUnit``.
    package static func percentileDistribution(_ recorder: LatencyRecorder) -> String {
        recorder.percentileDistribution(nanosecondsPerUnit: hgrmUnit.nanoseconds)
    }

    /// One distribution per row and latency that it carries a histogram of, in file order
    /// (a row's page latency, then its drain latency), named
    /// `NNN-<scenario>-<pager>-c<concurrency>[-s<stage>]-r<repetition>.<latency>-us.hgrm`
    /// (`NNN` the row's position in the file, so names never collide; `<latency>`
    /// `page-latency` or `drain-latency`), and the histograms missing (`scenario [hash] pager
    /// ×N repetition R: page_latency_histogram`).
    ///
    /// - Throws: ``MetricsError`` (`.malformedInput`) for a cell that is not a serialised histogram.
    package func percentileDistributions(file: String?) throws -> (files: [PercentileDistribution], skipped: [String]) {
        var files: [PercentileDistribution] = []
        var skipped: [String] = []
        var position = 0
        for group in groups {
            for row in group.rows {
                position += 1
                let which = "\(group.identity.description) repetition \(row.repetition)"
                var parts = [group.identity.scenario, group.identity.pagerKind, "c\(group.identity.concurrency)"]
                if let stage = group.identity.stage { parts.append("s\(stage)") }
                parts.append("r\(row.repetition)")
                let digits = String(position)
                let number = String(repeating: "0", count: max(0, 3 - digits.count)) + digits
                let stem = number + "-" + parts.map(Self.fileNamePart).joined(separator: "-")
                for histogram in HistogramColumn.allCases {
                    let cell = histogram.cell(row)
                    guard !cell.isEmpty else {
                        skipped.append("\(which): \(histogram.column)")
                        continue
                    }
                    let recorder: LatencyRecorder
                    do {
                        recorder = try LatencyRecorder(serialized: cell, file: file)
                    } catch {
                        throw MetricsError(
                            kind: .malformedInput,
                            file: file,
                            message: "\(which): \(histogram.column): \(error)"
                        )
                    }
                    files.append(
                        PercentileDistribution(
                            fileName: stem + ".\(histogram.rawValue)-\(Self.hgrmUnit.name).hgrm",
                            text: Self.percentileDistribution(recorder)
                        )
                    )
                }
            }
        }
        return (files, skipped)
    }

    /// `part` with every character but ASCII letters, digits, `.`, `_` and `-` as `_`, at most 60 characters.
    static func fileNamePart(_ part: String) -> String {
        let mapped = part.unicodeScalars.map { scalar -> Character in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": Character(scalar)
            default: "_"
            }
        }
        var text = String(mapped.prefix(60))
        if text.hasPrefix(".") { text = "_" + text.dropFirst() }
        return text.isEmpty ? "_" : text
    }
}
