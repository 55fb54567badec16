#if canImport(Glibc)
import Glibc
#endif

/// Reads small pseudo-files such as `/proc/self/status` without Foundation.
///
/// `/proc` files report a size of 0, so this reads until end of file.
enum ProcFile {
    static func read(_ path: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw MetricsError(
                kind: .statisticsUnavailable, file: path,
                message: "cannot open (\(errnoDescription())); pagebench reads process statistics from Linux's /proc")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw MetricsError(
                    kind: .statisticsUnavailable, file: path, message: "cannot read (\(errnoDescription()))")
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The current `errno` as text, e.g. "Permission denied (errno 13)".
func errnoDescription(_ code: Int32 = errno) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}
