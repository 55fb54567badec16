#if canImport(Glibc)
import Glibc
#endif

/// Resets the kernel's peak resident set size (`VmHWM`) of this process, so that each
/// measured phase reports its own peak rather than the process's lifetime peak.
enum PeakResidentMemory {
    /// Writes `5` to `/proc/self/clear_refs` (Linux ≥ 4.0). Returns whether it worked; when it
    /// does not (an old kernel, a restricted container) `VmHWM` stays the process peak.
    @discardableResult
    static func reset() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var five: UInt8 = 0x35
        return write(descriptor, &five, 1) == 1
    }
}
