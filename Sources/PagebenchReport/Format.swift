import Foundation

/// Human-readable numbers for tables and plots: a few significant digits, units scaled
/// (ns → µs → ms → s, bytes → KiB → MiB → GiB), signed percentages. Locale-independent.
public enum Format {
    /// `value` with up to `digits` significant digits, no exponent for ordinary magnitudes,
    /// trailing zeros removed (`1234.5` → `1235`, `0.012345` → `0.01235`).
    public static func number(_ value: Double, digits: Int = 4) -> String {
        guard value.isFinite else { return value.isNaN ? "n/a" : (value > 0 ? "∞" : "−∞") }
        if value == 0 { return "0" }
        let magnitude = abs(value)
        if magnitude >= 1e15 || magnitude < 1e-6 { return String(format: "%.\(max(digits - 1, 0))e", value) }
        let exponent = Int(log10(magnitude).rounded(.down))
        let decimals = max(0, digits - 1 - exponent)
        var text = String(format: "%.\(decimals)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    /// `value` in `unit`, scaled to a readable unit where the unit is a time or a size.
    public static func value(_ value: Double, unit: String) -> String {
        switch unit {
        case "ns":
            let magnitude = abs(value)
            if magnitude >= 1e9 { return number(value / 1e9) + " s" }
            if magnitude >= 1e6 { return number(value / 1e6) + " ms" }
            if magnitude >= 1e3 { return number(value / 1e3) + " µs" }
            return number(value) + " ns"
        case "bytes":
            let magnitude = abs(value)
            if magnitude >= 1_073_741_824 { return number(value / Double(1 << 30)) + " GiB" }
            if magnitude >= 1_048_576 { return number(value / Double(1 << 20)) + " MiB" }
            if magnitude >= 1024 { return number(value / Double(1 << 10)) + " KiB" }
            return number(value) + " B"
        case "bytes/s":
            return Format.value(value, unit: "bytes") + "/s"
        case "ratio", "":
            return number(value)
        default:
            return number(value) + " " + unit
        }
    }

    /// A large count in compact form for axis labels: `950`, `12k`, `2.5M`, `1.2G`.
    public static func compact(_ value: Double) -> String {
        let magnitude = abs(value)
        if magnitude >= 1e9 { return number(value / 1e9, digits: 3) + "G" }
        if magnitude >= 1e6 { return number(value / 1e6, digits: 3) + "M" }
        if magnitude >= 1e4 { return number(value / 1e3, digits: 3) + "k" }
        return number(value, digits: 3)
    }

    /// A relative change as a signed percentage (`+12.3 %`, `−4.5 %`, `0 %`).
    public static func percent(_ relative: Double) -> String {
        guard relative.isFinite else { return relative.isNaN ? "n/a" : (relative > 0 ? "+∞ %" : "−∞ %") }
        let text = number(abs(relative) * 100, digits: 3)
        if text == "0" { return "0 %" }
        return (relative > 0 ? "+" : "−") + text + " %"
    }
}
