/// One metric of a scrape: its name, type, help and samples, in the form both exposition
/// formats and remote write are written from (``MetricsExposition``, ``RemoteWriteRequest``).
package struct MetricFamily: Sendable, Equatable {
    /// What the samples are.
    package enum Kind: String, Sendable {
        /// Only goes up (samples named `NAME_total`).
        case counter
        /// Any value now.
        case gauge
        /// Cumulative buckets (`NAME_bucket{le}`), `NAME_sum` and `NAME_count`.
        case histogram
        /// A constant 1 whose labels carry facts (`NAME_info`; a gauge in the 0.0.4 text format).
        case info
    }

    /// One value: the family name plus ``suffix`` is the series' name.
    package struct Sample: Sendable, Equatable {
        /// `_total`, `_bucket`, `_sum`, `_count`, `_info` or empty.
        package var suffix: String
        /// Label names and values in the order written (never a URL, a token or an item key).
        package var labels: [(name: String, value: String)]
        package var value: Double

        package init(suffix: String = "", labels: [(name: String, value: String)], value: Double) {
            self.suffix = suffix
            self.labels = labels
            self.value = value
        }

        package static func == (lhs: Sample, rhs: Sample) -> Bool {
            lhs.suffix == rhs.suffix && lhs.value == rhs.value && lhs.labels.elementsEqual(rhs.labels) { $0 == $1 }
        }
    }

    /// The name without the `_total` / `_info` suffix (OpenMetrics' family name).
    package var name: String
    package var kind: Kind
    package var help: String
    /// OpenMetrics' `# UNIT` (the name ends with it), or empty.
    package var unit: String
    package var samples: [Sample]

    package init(name: String, kind: Kind, help: String, unit: String = "", samples: [Sample]) {
        self.name = name
        self.kind = kind
        self.help = help
        self.unit = unit
        self.samples = samples
    }
}
