import PagebenchMetrics
import Testing

/// Issue 39: the latency group's column suffixes are written once (``LatencyPercentiles``),
/// and every latency column of the registry ends with one of them.
@Suite struct LatencyColumnSuffixTests {
    @Test func theSuffixesAreTheGroupsColumnsInOrder() {
        #expect(LatencyPercentiles.columnSuffixes == ["_p50_ns", "_p90_ns", "_p99_ns", "_p999_ns", "_max_ns"])
        let latencyColumns = ResultRow.csvHeader.filter { $0.hasSuffix("_ns") && $0.contains("latency") }
        #expect(!latencyColumns.isEmpty)
        for prefix in Set(
            latencyColumns.compactMap { name in
                LatencyPercentiles.columnSuffixes.first(where: name.hasSuffix).map { String(name.dropLast($0.count)) }
            }
        ) {
            let group = LatencyPercentiles.columnSuffixes.map { prefix + $0 }
            #expect(group.allSatisfy(ResultRow.csvHeader.contains), "\(prefix)")
        }
    }
}
