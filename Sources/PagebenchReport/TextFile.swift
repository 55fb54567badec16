import Foundation
import PagebenchMetrics

/// Reading small text inputs (thresholds) and writing outputs (reports, baselines) atomically.
enum TextFile {
    /// The UTF-8 text of `path`; a missing file is `.inputUnavailable` (exit 66).
    static func read(_ path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ReportError(kind: .inputUnavailable, file: path, message: "no such file; check the path")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReportError(kind: .inputUnavailable, file: path, message: "cannot read the file; check its permissions")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ReportError.malformed(path, nil, nil, "not UTF-8 text; save it as UTF-8")
        }
        return text
    }

    /// Writes `text` atomically, creating the parent directories first.
    static func write(_ text: String, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw ReportError(
                    kind: .outputFailed, file: path, message: "cannot create the directory '\(directory)' (\(error))")
            }
        }
        do {
            try AtomicFile.write(text, to: path)
        } catch let error as MetricsError {
            throw ReportError(error)
        }
    }
}
