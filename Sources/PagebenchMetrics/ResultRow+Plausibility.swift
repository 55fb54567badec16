extension ResultRow {
    /// What a results row's own meaning rules out, beyond the checks of every row (no
    /// negative numbers, 0/1 flags, percentiles in order): a phase of no pagers, repetition 0,
    /// an empty-page rate above 1, more empty pages than pages.
    public func implausibility() -> Implausibility? {
        let atLeastOne: [(String, Int?)] = [
            ("schema_version", schemaVersion), ("cores", cores), ("concurrency", concurrency),
            ("repetition", repetition),
            ("limit", limit), ("target_drains", plannedDrains), ("stage", stage),
        ]
        for (column, value) in atLeastOne {
            if let value, value < 1 { return Implausibility(column: column, problem: "is \(value); it is at least 1") }
        }
        if emptyPageRate > 1 {
            return Implausibility(
                column: "empty_page_rate",
                problem: "is \(emptyPageRate); a share of the pages is at most 1"
            )
        }
        if emptyPagesWasted > pages - emptyPagesFinal {
            return Implausibility(
                column: "empty_pages_wasted",
                problem:
                    "is \(emptyPagesWasted) and empty_pages_final \(emptyPagesFinal), more empty pages than pages (\(pages))"
            )
        }
        return nil
    }
}
