import PagebenchMetrics

/// Resident memory of this process as Linux reports it in `/proc/self/status`.
///
/// Unlike ``JemallocStats``, this includes everything resident: code, stacks, allocator
/// metadata and caches. Lower is better.
public struct ProcessMemory: Sendable, Equatable {
    /// Peak resident set size since process start (`VmHWM`), in bytes.
    public var peakResidentBytes: Int
    /// Current resident set size (`VmRSS`), in bytes.
    public var residentBytes: Int

    public init(peakResidentBytes: Int, residentBytes: Int) {
        self.peakResidentBytes = peakResidentBytes
        self.residentBytes = residentBytes
    }

    /// Reads `/proc/self/status` now.
    public static func read() throws -> ProcessMemory {
        try parse(status: ProcFile.read("/proc/self/status"), file: "/proc/self/status")
    }

    /// Parses the text of a `/proc/<pid>/status` file (values are in kB there).
    public static func parse(status: String, file: String = "/proc/self/status") throws -> ProcessMemory {
        var peak: Int?
        var current: Int?
        for (index, line) in status.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let key: String
            if line.hasPrefix("VmHWM:") {
                key = "VmHWM"
            } else if line.hasPrefix("VmRSS:") {
                key = "VmRSS"
            } else {
                continue
            }
            let fields = line.dropFirst(key.count + 1).split(omittingEmptySubsequences: true) {
                $0 == " " || $0 == "\t"
            }
            guard fields.count == 2, fields[1] == "kB", let kibibytes = Int(fields[0]), kibibytes >= 0 else {
                throw MetricsError.malformed(
                    file: file,
                    line: index + 1,
                    column: nil,
                    "expected '\(key): <number> kB', found '\(line)'"
                )
            }
            if key == "VmHWM" { peak = kibibytes * 1024 } else { current = kibibytes * 1024 }
        }
        guard let peak, let current else {
            throw MetricsError.malformed(
                file: file,
                line: nil,
                column: nil,
                "no \(peak == nil ? "VmHWM" : "VmRSS") line; this kernel does not report resident memory"
            )
        }
        return ProcessMemory(peakResidentBytes: peak, residentBytes: current)
    }
}
