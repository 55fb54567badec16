import PagebenchBase
import PagebenchMetrics

/// Reading small text inputs (thresholds) and writing outputs (reports, baselines) atomically.
enum TextFile {
    /// The UTF-8 text of `path`; a missing file is `.inputUnavailable` (exit 66).
    static func read(_ path: String) throws -> String {
        do {
            return try FileSystem.readText(path)
        } catch {
            switch error.kind {
            case .missing: throw ReportError(kind: .inputUnavailable, file: path, message: "no such file; check the path")
            case .notUTF8: throw ReportError.malformed(path, nil, nil, error.reason)
            default: throw ReportError(kind: .inputUnavailable, file: path, message: "\(error.reason); check its permissions")
            }
        }
    }

    /// Writes `text` atomically, creating the parent directories first.
    static func write(_ text: String, to path: String) throws {
        do {
            try FileSystem.createParentDirectory(of: path)
        } catch {
            throw ReportError(kind: .outputFailed, file: path, message: error.reason)
        }
        do {
            try AtomicFile.write(text, to: path)
        } catch let error as MetricsError {
            throw ReportError(error)
        }
    }
}
