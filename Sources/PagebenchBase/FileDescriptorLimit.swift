#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`, what `ulimit -n` shows):
/// every socket is one, so a load of N connections needs N of them and a few more.
public enum FileDescriptorLimit {
    /// The soft limit (what the process may open now) and the hard limit (how far it may
    /// raise the soft one itself); `Int.max` for no limit.
    public struct Limits: Sendable, Hashable {
        public var soft: Int
        public var hard: Int
    }

    /// The limits now.
    public static var current: Limits {
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return Limits(soft: Int.max, hard: Int.max) }
        return Limits(soft: Self.count(limit.rlim_cur), hard: Self.count(limit.rlim_max))
    }

    /// Raises the soft limit to `count` descriptors if it is lower and the hard limit allows
    /// it (as Go's runtime does for every program); returns the limits after.
    @discardableResult
    public static func raiseSoftLimit(toAtLeast count: Int) -> Limits {
        let before = current
        guard before.soft < count, before.hard >= count else { return before }
        var limit = rlimit()
        guard getrlimit(Self.resource, &limit) == 0 else { return before }
        limit.rlim_cur = rlim_t(count)
        guard setrlimit(Self.resource, &limit) == 0 else { return before }
        return current
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif

    /// `RLIM_INFINITY` is all ones: beyond `Int.max`, like any limit too large to matter.
    private static func count(_ value: rlim_t) -> Int {
        value > rlim_t(Int.max) ? Int.max : Int(value)
    }
}
