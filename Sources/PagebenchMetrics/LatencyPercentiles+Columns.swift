extension LatencyPercentiles {
    /// The percentiles a latency group of CSV columns holds, in order (each column named
    /// `<prefix>_<suffix>_ns`): the one list the column registry, the plausibility check and
    /// the gate's noise floors read.
    public static let columnParts:
        [(suffix: String, label: String, field: WritableKeyPath<LatencyPercentiles, UInt64> & Sendable)] = [
            ("p50", "median", \.p50Nanoseconds),
            ("p90", "90th percentile", \.p90Nanoseconds),
            ("p99", "99th percentile", \.p99Nanoseconds),
            ("p999", "99.9th percentile", \.p999Nanoseconds),
            ("max", "maximum", \.maxNanoseconds),
        ]

    /// The column-name endings of a latency group, lowest percentile first: `_p50_ns` … `_max_ns`.
    public static let columnSuffixes = columnParts.map { "_\($0.suffix)_ns" }
}
