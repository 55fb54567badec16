/// Short human forms of numbers for the progress line and the summary table.
public enum Formatting {
    /// `950`, `12.3k`, `1.23M`, `4.56G`.
    public static func count(_ value: Double) -> String {
        let magnitude = abs(value)
        if magnitude >= 1e9 { return fixed(value / 1e9, 2) + "G" }
        if magnitude >= 1e6 { return fixed(value / 1e6, 2) + "M" }
        if magnitude >= 1e4 { return fixed(value / 1e3, 1) + "k" }
        if magnitude >= 100 || value == value.rounded() { return fixed(value, 0) }
        return fixed(value, 2)
    }

    /// `850ns`, `12.3µs`, `4.56ms`, `1.23s`.
    public static func nanoseconds(_ value: UInt64) -> String {
        let double = Double(value)
        if double >= 1e9 { return fixed(double / 1e9, 2) + "s" }
        if double >= 1e6 { return fixed(double / 1e6, 2) + "ms" }
        if double >= 1e3 { return fixed(double / 1e3, 1) + "µs" }
        return "\(value)ns"
    }

    /// `512B`, `12.0KiB`, `3.4MiB`, `1.20GiB`.
    public static func bytes(_ value: Int) -> String {
        let double = Double(value)
        if value >= 1 << 30 { return fixed(double / Double(1 << 30), 2) + "GiB" }
        if value >= 1 << 20 { return fixed(double / Double(1 << 20), 1) + "MiB" }
        if value >= 1 << 10 { return fixed(double / Double(1 << 10), 1) + "KiB" }
        return "\(value)B"
    }

    /// `1.5s`, `2m05s`.
    public static func seconds(_ value: Double) -> String {
        guard value.isFinite, value >= 0 else { return "?" }
        if value < 60 { return fixed(value, 1) + "s" }
        let whole = Int(value.rounded())
        let secondsPart = whole % 60
        return "\(whole / 60)m" + (secondsPart < 10 ? "0" : "") + "\(secondsPart)s"
    }

    /// `value` with exactly `digits` decimals (no Foundation formatter, same on every machine).
    public static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return "\(value)" }
        let integer = UInt64(scaled)
        let unit = UInt64(scale)
        var text = String(integer / unit)
        if digits > 0 {
            let fraction = String(integer % unit)
            text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
        }
        return (value < 0 && scaled > 0 ? "-" : "") + text
    }
}
