import Glibc
import Synchronization

/// The `Date` header of responses (RFC 9110 §6.6.1: an origin server with a clock sends
/// one), as IMF-fixdate: `Thu, 26 Nov 2026 18:05:00 GMT`. Formatted once per second, when
/// a response first asks in that second; every other response reads it under a lock.
final class HTTPDateCache: Sendable {
    private let cached = Mutex<(second: Int, text: String)>((-1, ""))

    /// The current second's date text.
    func now() -> String {
        let second = time(nil)
        return cached.withLock { cache in
            if cache.second != second {
                cache = (second, Self.format(second))
            }
            return cache.text
        }
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` since the epoch as IMF-fixdate (UTC).
    static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
