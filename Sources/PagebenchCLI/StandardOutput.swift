import Foundation

#if canImport(Glibc)
import Glibc
import PagebenchEngine
#endif

/// A buffered `TextOutputStream` over standard output, flushed every 64 KiB and on
/// ``flush()``: one JSON line per item must not cost one system call per item.
///
/// A write that fails (a full disk, `> /dev/full`, a closed pipe) is remembered, not
/// fatal: later output is dropped and ``finish()`` throws it (exit 74), so a command never
/// reports success after losing its output.
package struct StandardOutput: TextOutputStream {
    private var buffer: [UInt8] = []
    /// The `errno` of the first failed write.
    private(set) var failure: Int32?
    /// Whether every write that ends a line is flushed at once: for commands that print a
    /// line now and then over a long time (a knee search's steps), not a stream of items.
    private let flushesEveryLine: Bool

    package init(flushesEveryLine: Bool = false) {
        self.flushesEveryLine = flushesEveryLine
        buffer.reserveCapacity(1 << 16)
    }

    package mutating func write(_ string: String) {
        buffer.append(contentsOf: string.utf8)
        if buffer.count >= 1 << 16 || (flushesEveryLine && buffer.last == UInt8(ascii: "\n")) { flush() }
    }

    /// Writes what is buffered to file descriptor 1 (a short write is continued).
    package mutating func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard !buffer.isEmpty, failure == nil else { return }
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 {
                failure = written < 0 ? errno : EIO
                return
            }
            offset += written
        }
    }

    /// Flushes, then throws if any write to standard output failed.
    package mutating func finish() throws(CommandError) {
        flush()
        if let failure {
            throw .outputFailed(
                "cannot write to standard output: \(String(cString: strerror(failure))) (errno \(failure))"
            )
        }
    }

    /// Writes `text` and finishes: for commands whose whole output is one string.
    package static func write(_ text: String) throws(CommandError) {
        var output = StandardOutput()
        output.write(text)
        try output.finish()
    }
}
