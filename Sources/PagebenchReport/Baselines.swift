import PagebenchMetrics

/// The committed baselines `results/baselines/<name>.csv` that `pagebench check` compares against.
package enum Baselines {
    /// Throws `.invalidRequest` unless `name` is a plain file name stem: letters, digits, `-`, `_`, `.`, not starting with `.`.
    package static func validateName(_ name: String) throws {
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
                || $0 == "."
        }
        guard !name.isEmpty, allowed, !name.hasPrefix("."), name.count <= 100 else {
            throw MetricsError(
                kind: .invalidRequest,
                message: "baseline name '\(name)' is not allowed; use letters, digits, '-', '_' and '.' "
                    + "(not starting with '.'), e.g. --name ci"
            )
        }
    }

    /// The path of the baseline `name` in `directory`.
    package static func path(name: String, directory: String) -> String {
        (directory.hasSuffix("/") ? directory : directory + "/") + name + ".csv"
    }

    /// Replaces baseline `name` with `rows`, atomically (the old file stays intact on failure).
    ///
    /// - Returns: the path written.
    @discardableResult
    package static func write(_ rows: [ResultRow], name: String, directory: String) throws -> String {
        try validateName(name)
        guard !rows.isEmpty else {
            throw MetricsError(kind: .invalidRequest, message: "no rows to write into baseline '\(name)'")
        }
        let path = path(name: name, directory: directory)
        try TextFile.write(try ResultRow.csvText(rows), to: path)
        return path
    }

    /// Validates the results file `source` and writes its rows as baseline `name`.
    package static func update(name: String, directory: String, from source: String) throws -> (path: String, rows: Int)
    {
        let rows = try CSVFile.readResults(source)
        return (try write(rows, name: name, directory: directory), rows.count)
    }
}
