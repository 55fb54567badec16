/// The one grammar of a duration in pagebench's text (flags, stages, retry backoffs, service
/// times, SLO and threshold bounds): a non-negative number and a unit, `40ns`, `250us` (or
/// `µs`), `500ms`, `2s`, `2m`, `1h` (issue 35: `--duration 2m` was refused while every
/// reader kept its own list of units).
public enum DurationText {
    /// The units, each with its nanoseconds; a longer suffix before one it ends with (`ms`
    /// before `s`).
    public static let units: [(suffix: String, nanoseconds: Double)] = [
        ("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9),
    ]

    /// The units as an error message lists them: `ns, us, ms, s, m or h`.
    public static let unitList = "ns, us, ms, s, m or h"

    /// The nanoseconds `text` stands for (spaces ignored, `3 s` is `3s`), or nil when it is not a
    /// finite non-negative number followed by one of ``units``. Range checks are the caller's.
    public static func nanoseconds(_ text: some StringProtocol) -> Double? {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.filter { !$0.properties.isWhitespace })
        let spec = String(scalars).lowercased()
        for unit in units where spec.hasSuffix(unit.suffix) {
            let digits = spec.dropLast(unit.suffix.count)
            let allowed: Set<Character> = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", ".", "e", "+"]
            guard !digits.isEmpty, digits.allSatisfy({ allowed.contains($0) }), let value = Double(digits),
                value.isFinite, value >= 0
            else { return nil }
            return value * unit.nanoseconds
        }
        return nil
    }
}
