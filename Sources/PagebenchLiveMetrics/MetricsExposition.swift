import Foundation

/// The scrape formats: Prometheus text 0.0.4 and OpenMetrics 1.0 text, written from the same
/// ``MetricFamily`` values.
package enum MetricsExposition: Sendable {
    /// `text/plain; version=0.0.4`: a counter's family is named with its `_total`, an info
    /// metric is a gauge named `NAME_info`.
    case prometheusText
    /// `application/openmetrics-text; version=1.0.0`: families named without `_total` /
    /// `_info`, `# UNIT` where the name carries one, and the closing `# EOF`.
    case openMetrics

    /// The `Content-Type` of an answer in this format.
    package var contentType: String {
        switch self {
        case .prometheusText: "text/plain; version=0.0.4; charset=utf-8"
        case .openMetrics: "application/openmetrics-text; version=1.0.0; charset=utf-8"
        }
    }

    /// The format a scraper's `Accept` header asks for: OpenMetrics when it names
    /// `application/openmetrics-text` (Prometheus does, ahead of `text/plain`), else 0.0.4.
    package static func negotiated(accept: String?) -> MetricsExposition {
        guard let accept else { return .prometheusText }
        let asked = accept.lowercased().split(separator: ",").compactMap { part -> (String, Double)? in
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let type = fields.first else { return nil }
            var quality = 1.0
            for field in fields.dropFirst() where field.hasPrefix("q=") { quality = Double(field.dropFirst(2)) ?? 0 }
            return (type, quality)
        }
        let openMetrics = asked.filter { $0.0 == "application/openmetrics-text" }.map(\.1).max() ?? 0
        let text = asked.filter { $0.0 == "text/plain" || $0.0 == "*/*" }.map(\.1).max() ?? 0
        return openMetrics > 0 && openMetrics >= text ? .openMetrics : .prometheusText
    }

    /// The exposition of `families`.
    package func render(_ families: [MetricFamily]) -> String {
        var text = ""
        for family in families {
            let familyName: String
            switch (self, family.kind) {
            case (.prometheusText, .counter): familyName = family.name + "_total"
            case (.prometheusText, .info): familyName = family.name + "_info"
            default: familyName = family.name
            }
            text += "# HELP \(familyName) \(Self.escapeHelp(family.help))\n"
            let type: String
            switch (self, family.kind) {
            case (.prometheusText, .info): type = "gauge"
            default: type = family.kind.rawValue
            }
            text += "# TYPE \(familyName) \(type)\n"
            if self == .openMetrics, !family.unit.isEmpty { text += "# UNIT \(familyName) \(family.unit)\n" }
            for sample in family.samples {
                text += family.name + sample.suffix
                if !sample.labels.isEmpty {
                    text +=
                        "{"
                        + sample.labels.map { "\($0.name)=\"\(Self.escapeLabel($0.value))\"" }.joined(separator: ",")
                        + "}"
                }
                text += " " + Self.number(sample.value) + "\n"
            }
        }
        if self == .openMetrics { text += "# EOF\n" }
        return text
    }

    /// A value as both formats write it: whole numbers without a fraction or exponent.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9.007_199_254_740_992e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func escapeLabel(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    static func escapeHelp(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}
