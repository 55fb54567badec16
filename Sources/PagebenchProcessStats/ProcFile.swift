import PagebenchBase
import PagebenchMetrics

/// Reads small pseudo-files such as `/proc/self/status` (``PagebenchBase/FileSystem``),
/// failing as ``MetricsError`` (`statisticsUnavailable`).
enum ProcFile {
    static func read(_ path: String) throws(MetricsError) -> String {
        do {
            return String(decoding: try FileSystem.readBytes(path), as: UTF8.self)
        } catch {
            throw MetricsError(
                kind: .statisticsUnavailable,
                file: path,
                message: error.kind == .missing || error.reason.hasPrefix("cannot open")
                    ? "\(error.reason); pagebench reads process statistics from Linux's /proc" : error.reason
            )
        }
    }
}
