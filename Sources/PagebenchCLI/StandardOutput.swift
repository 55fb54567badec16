import Foundation

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

/// Resident memory of this process, from `/proc/self/status` (Linux).
public enum ProcessMemory {
    /// VmRSS in bytes, or nil where `/proc` is not available.
    public static func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
        }
        return nil
    }

    /// VmHWM (peak resident memory) in bytes, or nil where `/proc` is not available.
    public static func peakResidentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
        }
        return nil
    }
}

/// Standard error as a `TextOutputStream`.
public struct StandardError: TextOutputStream {
    public init() {}
    public mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
