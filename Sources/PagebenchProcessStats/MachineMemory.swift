import PagebenchMetrics

/// The memory this process may use on this machine: the machine's physical memory
/// (`MemTotal` of `/proc/meminfo`), or the memory limit of the process's cgroup when it has
/// a lower one (cgroup v2 `memory.max`, v1 `memory.limit_in_bytes` of its `memory` cgroup): a container's limit is
/// what its processes can hold, not the host's memory.
public struct MachineMemory: Sendable, Equatable {
    /// `MemTotal`, in bytes.
    public var physicalBytes: Int
    /// The cgroup's limit in bytes; nil when it has none (or it cannot be read).
    public var cgroupLimitBytes: Int?

    public init(physicalBytes: Int, cgroupLimitBytes: Int?) {
        self.physicalBytes = physicalBytes
        self.cgroupLimitBytes = cgroupLimitBytes
    }

    /// The smaller of the two.
    public var usableBytes: Int { min(physicalBytes, cgroupLimitBytes ?? .max) }

    /// Where the figure comes from, for messages.
    public var source: String {
        if let cgroupLimitBytes, cgroupLimitBytes < physicalBytes { return "the cgroup's memory limit" }
        return "the machine's memory (MemTotal)"
    }

    /// Reads this machine's figures.
    ///
    /// - Throws: ``MetricsError`` (`statisticsUnavailable`) when `/proc/meminfo` cannot be read.
    public static func read() throws(MetricsError) -> MachineMemory {
        let meminfo = try ProcFile.read("/proc/meminfo")
        guard let physical = parse(meminfo: meminfo) else {
            throw MetricsError(kind: .statisticsUnavailable, file: "/proc/meminfo", message: "no MemTotal line")
        }
        var limit: Int?
        // The process's own cgroup: v2 has one line "0::/path", v1 a line "N:memory:/path"
        // (in a container whose cgroup files are mounted at their root, the path may not
        // exist: the root's file is the container's then).
        let lines = ((try? ProcFile.read("/proc/self/cgroup")) ?? "").split(separator: "\n")
        func path(after prefix: String) -> String? {
            guard let line = lines.first(where: { prefix == "0::" ? $0.hasPrefix(prefix) : $0.contains(prefix) }),
                let range = line.range(of: prefix)
            else { return nil }
            let path = String(line[range.upperBound...])
            return path == "/" ? "" : path
        }
        if let v2 = path(after: "0::") {
            limit = (try? ProcFile.read("/sys/fs/cgroup\(v2)/memory.max")).flatMap(parse(limit:))
        }
        if limit == nil, let v1 = path(after: ":memory:") {
            let own = try? ProcFile.read("/sys/fs/cgroup/memory\(v1)/memory.limit_in_bytes")
            let root = own == nil ? try? ProcFile.read("/sys/fs/cgroup/memory/memory.limit_in_bytes") : nil
            limit = (own ?? root).flatMap(parse(limit:))
        }
        return MachineMemory(physicalBytes: physical, cgroupLimitBytes: limit)
    }

    /// `MemTotal` of a `/proc/meminfo` text, in bytes.
    public static func parse(meminfo: String) -> Int? {
        for line in meminfo.split(separator: "\n") where line.hasPrefix("MemTotal:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kibibytes = Int(fields[1]), kibibytes > 0 else { return nil }
            return kibibytes.multipliedReportingOverflow(by: 1024).overflow ? nil : kibibytes * 1024
        }
        return nil
    }

    /// A cgroup memory limit file's bytes; nil for `max` (no limit) or a limit so large it is none.
    public static func parse(limit text: String) -> Int? {
        let trimmed = text.split(whereSeparator: { $0 == "\n" || $0 == " " }).first.map(String.init) ?? ""
        guard let bytes = Int(trimmed), bytes > 0, bytes < 1 << 60 else { return nil }
        return bytes
    }
}
