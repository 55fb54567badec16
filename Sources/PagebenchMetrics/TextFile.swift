import PagebenchBase

/// Text files of results and their companions (CSV, thresholds, reports, baselines): read
/// whole as UTF-8, written atomically, every failure a ``MetricsError`` naming the file.
public enum TextFile {
    /// The UTF-8 text of `path`.
    ///
    /// - Throws: ``MetricsError``: `inputUnavailable` for a missing or unreadable file,
    ///   `malformedInput` for bytes that are not UTF-8.
    public static func read(_ path: String) throws(MetricsError) -> String {
        do {
            return try FileSystem.readText(path)
        } catch {
            throw inputError(error)
        }
    }

    /// A failure to read an input file as the error every reader of results reports: a
    /// missing or unreadable file (`inputUnavailable`, exit 66), bytes that are not UTF-8
    /// (`malformedInput`, exit 65).
    public static func inputError(_ error: FileSystem.Failure) -> MetricsError {
        switch error.kind {
        case .missing:
            MetricsError(kind: .inputUnavailable, file: error.path, message: "no such file; check the path")
        case .notUTF8:
            MetricsError.malformed(file: error.path, line: nil, column: nil, error.reason)
        default:
            MetricsError(kind: .inputUnavailable, file: error.path, message: error.reason)
        }
    }

    /// Writes `text` atomically (``AtomicFile``), creating the parent directories first.
    ///
    /// - Throws: ``MetricsError`` (`outputFailed`).
    public static func write(_ text: String, to path: String) throws(MetricsError) {
        do {
            try FileSystem.createParentDirectory(of: path)
        } catch {
            throw MetricsError(kind: .outputFailed, file: path, message: error.reason)
        }
        do {
            try AtomicFile.write(text, to: path)
        } catch let error as MetricsError {
            throw error
        } catch {
            throw MetricsError(kind: .outputFailed, file: path, message: "\(error)")
        }
    }
}
