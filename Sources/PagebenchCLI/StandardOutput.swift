import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A buffered `TextOutputStream` over standard output, flushed every 64 KiB and on
/// ``flush()``: one JSON line per item must not cost one system call per item.
public struct StandardOutput: TextOutputStream {
    private var buffer: [UInt8] = []

    public init() { buffer.reserveCapacity(1 << 16) }

    public mutating func write(_ string: String) {
        buffer.append(contentsOf: string.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    public mutating func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Standard error, unbuffered: the one way the CLI writes to it (errors, warnings,
/// progress, `--memory` lines).
public struct StandardError: TextOutputStream {
    public init() {}

    public mutating func write(_ string: String) {
        Self.write(string)
    }

    /// Writes `text` to file descriptor 2 whole (a short write is continued).
    public static func write(_ text: String) {
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
