/// docs/csv-columns.md, generated from the column registries so docs cannot drift.
///
/// A test compares docs/csv-columns.md with ``updating(_:)`` of itself; run
/// `PAGEBENCH_UPDATE_DOCS=1 swift test --filter docsMatchRegistry` to rewrite it.
public enum CSVDocumentation {
    public static let beginMarker =
        "<!-- BEGIN generated from ResultRow.csvColumns; edit the registry, not this table -->"
    public static let endMarker = "<!-- END generated -->"

    /// The generated part: results columns, then time-series columns.
    public static var generatedMarkdown: String {
        """
        \(beginMarker)
        Results (`--output`, default `results/latest.csv`; schema version \(ResultRow.currentSchemaVersion)\(earlierVersionsNote)):
        one row per scenario × concurrency × repetition (× stage, for a workload with stages).

        \(ColumnDescriptor.markdownTable(ResultRow.columnDescriptors))
        Time series (`--timeseries FILE`): one row per second of each run (and per stage end, for
        a staged run); files written before the stage columns are still read.

        \(ColumnDescriptor.markdownTable(TimeSeriesRow.columnDescriptors))\(endMarker)
        """
    }

    /// "; files of version 1 or 2, without the columns added since, are still read".
    static var earlierVersionsNote: String {
        let versions = ResultRow.earlierSchemaVersions.keys.sorted().map(String.init)
        guard let last = versions.last else { return "" }
        let list = versions.count == 1 ? last : versions.dropLast().joined(separator: ", ") + " or " + last
        return "; files of version \(list), without the columns added since, are still read"
    }

    /// The fixed prose of the section, before the generated tables.
    static let introduction = """
        # CSV columns

        Files are RFC 4180 CSV in UTF-8: a header line, then one record per line ending in LF
        (CRLF is read too). Fields containing a comma, quote, line break or edge spaces are
        quoted, with quotes doubled. A UTF-8 byte-order mark at the start is ignored on reading.
        An empty cell means "does not apply to this run"; only columns marked *optional* may be
        empty. Decimals are written in shortest round-trip form (`0.1`, `1e-05`).
        *Kind* tells the regression checker how to compare: **context** identifies the run,
        **deterministic** must match exactly for the same seed and configuration ([contract.md](contract.md) H3),
        **measured** is compared with its *polarity* and a noise-aware tolerance.
        Latency histograms are HdrHistogram at 3 significant digits, one per task, merged exactly.

        """

    /// `document` with the generated section replaced, or the whole section appended if absent.
    public static func updating(_ document: String) -> String {
        if let begin = document.range(of: beginMarker), let end = document.range(of: endMarker),
            begin.upperBound <= end.lowerBound
        {
            return String(document[..<begin.lowerBound]) + generatedMarkdown + String(document[end.upperBound...])
        }
        let separator = document.hasSuffix("\n\n") ? "" : (document.hasSuffix("\n") ? "\n" : "\n\n")
        return document + separator + introduction + "\n" + generatedMarkdown + "\n"
    }
}

extension StringProtocol {
    /// The first range of `needle`, without Foundation.
    fileprivate func range(of needle: String) -> Range<Index>? {
        guard !needle.isEmpty else { return nil }
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(needle) {
                return index..<self.index(index, offsetBy: needle.count)
            }
            index = self.index(after: index)
        }
        return nil
    }
}
