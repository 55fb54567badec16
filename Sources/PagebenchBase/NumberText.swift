#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Numbers as text, the same on every machine (no locale, no Foundation formatter).
///
/// Two families: short forms with fixed decimals and no space before the unit for the
/// progress line and the summary table (``count(_:)``, ``nanoseconds(_:)``, ``bytes(_:)``,
/// ``seconds(_:)``, ``fixed(_:_:)``), and forms with a few significant digits and a space
/// before the unit for reports and checks (``number(_:digits:)``, ``value(_:unit:)``,
/// ``compact(_:)``, ``percent(_:)``).
public enum NumberText {
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

    /// `1.5s`, `2m05s`; beyond a million years (an ETA at a near-zero rate), `>1e13s`.
    public static func seconds(_ value: Double) -> String {
        guard value.isFinite, value >= 0 else { return "?" }
        guard value < 1e13 else { return ">1e13s" }  // Int(value) below cannot trap
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

    /// `value` with up to `digits` significant digits, no exponent for ordinary magnitudes,
    /// trailing zeros removed (`1234.56` → `1235`, `0.012345` → `0.01235`).
    public static func number(_ value: Double, digits: Int = 4) -> String {
        guard value.isFinite else { return value.isNaN ? "n/a" : (value > 0 ? "∞" : "−∞") }
        if value == 0 { return "0" }
        let magnitude = abs(value)
        if magnitude >= 1e15 || magnitude < 1e-6 { return printf("%.*e", max(digits - 1, 0), value) }
        let exponent = Int(log10(magnitude).rounded(.down))
        let decimals = max(0, digits - 1 - exponent)
        var text = printf("%.*f", decimals, value)
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
            return NumberText.value(value, unit: "bytes") + "/s"
        case "ratio", "":
            return number(value)
        default:
            // One of a counted unit is singular: `1 page`, not `1 pages` (issue 35).
            let text = number(value)
            if text == "1", unit.hasSuffix("s"), !unit.contains("/"), !unit.contains(" ") {
                return "1 " + unit.dropLast()
            }
            return text + " " + unit
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

    /// `value` through C's `printf` with one precision argument (`%.*f`, `%.*e`), in the C
    /// locale of the process.
    private static func printf(_ format: StaticString, _ precision: Int, _ value: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let written = withVaList([Int32(precision), value]) { arguments in
            buffer.withUnsafeMutableBufferPointer { bytes in
                format.withUTF8Buffer { formatBytes in
                    formatBytes.withMemoryRebound(to: CChar.self) {
                        vsnprintf(bytes.baseAddress, bytes.count, $0.baseAddress, arguments)
                    }
                }
            }
        }
        guard written >= 0 else { return "\(value)" }
        if Int(written) >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(written) + 1)
            _ = withVaList([Int32(precision), value]) { arguments in
                buffer.withUnsafeMutableBufferPointer { bytes in
                    format.withUTF8Buffer { formatBytes in
                        formatBytes.withMemoryRebound(to: CChar.self) {
                            vsnprintf(bytes.baseAddress, bytes.count, $0.baseAddress, arguments)
                        }
                    }
                }
            }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
