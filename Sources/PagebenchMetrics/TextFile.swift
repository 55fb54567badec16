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
            switch error.kind {
            case .missing:
                throw MetricsError(kind: .inputUnavailable, file: path, message: "no such file; check the path")
            case .notUTF8:
                throw MetricsError.malformed(file: path, line: nil, column: nil, error.reason)
            default:
                throw MetricsError(kind: .inputUnavailable, file: path, message: "\(error.reason); check its permissions")
            }
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
