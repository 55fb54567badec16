/// `export --format bmf`: Bencher Metric Format (docs/ci.md), one benchmark per group (its
/// identity), one measure per column (the column's name), each with the median of the
/// repetitions as `value` and their spread as `lower_value` (the smallest repetition) and
/// `upper_value` (the largest). Bencher has no polarity in the file: a measure's threshold
/// says which direction is worse.
extension ResultExport {
    /// One measure's metric.
    struct BencherMetric: Encodable, Equatable {
        var value: Double
        var lowerValue: Double
        var upperValue: Double

        enum CodingKeys: String, CodingKey {
            case value
            case lowerValue = "lower_value"
            case upperValue = "upper_value"
        }
    }

    /// The benchmarks: group identity → column name → metric.
    var bencherBenchmarks: [String: [String: BencherMetric]] {
        var benchmarks: [String: [String: BencherMetric]] = [:]
        for group in groups {
            var measures: [String: BencherMetric] = [:]
            for series in series(group) {
                measures[series.column.name] = BencherMetric(
                    value: series.median,
                    lowerValue: series.minimum,
                    upperValue: series.maximum
                )
            }
            if !measures.isEmpty { benchmarks[group.identity.description] = measures }
        }
        return benchmarks
    }

    /// The BMF JSON.
    package var bencherMetricFormat: String { ExportJSON.encode(bencherBenchmarks) }
}
