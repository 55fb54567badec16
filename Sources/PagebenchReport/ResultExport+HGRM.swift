import PagebenchMetrics

/// `export --format hgrm`: each row's page latency histogram as HdrHistogram's percentile
/// distribution (`.hgrm`, docs/ci.md), the text HdrHistogram's own
/// `outputPercentileDistribution` writes and its plotter reads: `Value`, `Percentile`,
/// `TotalCount` and `1/(1-Percentile)` per line, 5 ticks per half distance, then the mean,
/// standard deviation, maximum, count and bucket layout. Values are in microseconds (the
/// recorded nanoseconds divided by 1,000, printed with 3 decimals: no resolution lost).
///
/// Written from the row's `page_latency_histogram` cell, the whole histogram of the measured
/// phase, never rebuilt from percentiles: a row without one (per-page timing off, or a file
/// of schema 6 and earlier) has no distribution to write.
extension ResultExport {
    /// One `.hgrm` file: its name and text.
    public struct PercentileDistribution: Sendable, Equatable {
        public var fileName: String
        public var text: String
    }

    /// The unit of the values in a `.hgrm` file, and the recorded nanoseconds per unit.
    public static let hgrmUnit = (name: "us", nanoseconds: 1_000.0)

    /// The percentile distribution of `recorder`, in ``hgrmUnit``.
    public static func percentileDistribution(_ recorder: LatencyRecorder) -> String {
        recorder.percentileDistribution(nanosecondsPerUnit: hgrmUnit.nanoseconds)
    }

    /// One distribution per row that carries a histogram, in file order, named
    /// `NNN-<scenario>-<pager>-c<concurrency>[-s<stage>]-r<repetition>.page-latency-us.hgrm`
    /// (`NNN` the row's position in the file, so names never collide), and the rows skipped for
    /// want of a histogram (their `scenario [hash] pager ×N repetition R`).
    ///
    /// - Throws: ``MetricsError`` (`.malformedInput`) for a cell that is not a serialised histogram.
    public func percentileDistributions(file: String?) throws -> (files: [PercentileDistribution], skipped: [String]) {
        var files: [PercentileDistribution] = []
        var skipped: [String] = []
        var position = 0
        for group in groups {
            for row in group.rows {
                position += 1
                let which = "\(group.identity.description) repetition \(row.repetition)"
                guard !row.pageLatencyHistogram.isEmpty else {
                    skipped.append(which)
                    continue
                }
                let recorder: LatencyRecorder
                do {
                    recorder = try LatencyRecorder(serialized: row.pageLatencyHistogram, file: file)
                } catch {
                    throw MetricsError(
                        kind: .malformedInput, file: file,
                        message: "\(which): page_latency_histogram: \(error)")
                }
                var parts = [group.identity.scenario, group.identity.pagerKind, "c\(group.identity.concurrency)"]
                if let stage = group.identity.stage { parts.append("s\(stage)") }
                parts.append("r\(row.repetition)")
                let digits = String(position)
                let number = String(repeating: "0", count: max(0, 3 - digits.count)) + digits
                let name = number + "-" + parts.map(Self.fileNamePart).joined(separator: "-")
                    + ".page-latency-\(Self.hgrmUnit.name).hgrm"
                files.append(PercentileDistribution(fileName: name, text: Self.percentileDistribution(recorder)))
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
