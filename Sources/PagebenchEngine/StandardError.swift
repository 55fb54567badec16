import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Standard error, unbuffered: the one way the CLI and the run engine write to it (errors, warnings,
/// progress, `--memory` lines).
package struct StandardError: TextOutputStream {
    package init() {}

    package mutating func write(_ string: String) {
        Self.write(string)
    }

    /// Writes `text` to file descriptor 2 whole (a short write is continued).
    package static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}
