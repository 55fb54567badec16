import PagebenchLiveMetrics
import Testing

/// The two scrape formats and remote write's body, written from the same families.
@Suite struct ExpositionTests {
    static let families = [
        MetricFamily(
            name: "pagebench_pages",
            kind: .counter,
            help: "Pages.",
            samples: [
                .init(suffix: "_total", labels: [("configuration", "a \"b\"\\c"), ("phase", "c1-r1")], value: 12)
            ]
        ),
        MetricFamily(
            name: "pagebench_run",
            kind: .info,
            help: "Run.",
            samples: [.init(suffix: "_info", labels: [("version", "1")], value: 1)]
        ),
        MetricFamily(
            name: "pagebench_page_latency_seconds",
            kind: .histogram,
            help: "Latency.",
            unit: "seconds",
            samples: [
                .init(suffix: "_bucket", labels: [("le", "0.5")], value: 1),
                .init(suffix: "_bucket", labels: [("le", "+Inf")], value: 2),
                .init(suffix: "_sum", labels: [], value: 1.25), .init(suffix: "_count", labels: [], value: 2),
            ]
        ),
    ]

    @Test func prometheusTextNamesCountersWithTotal() {
        let text = MetricsExposition.prometheusText.render(Self.families)
        #expect(text.contains("# TYPE pagebench_pages_total counter\n"))
        #expect(text.contains("pagebench_pages_total{configuration=\"a \\\"b\\\"\\\\c\",phase=\"c1-r1\"} 12\n"))
        #expect(text.contains("# TYPE pagebench_run_info gauge\n"))
        #expect(text.contains("pagebench_page_latency_seconds_sum 1.25\n"))
        #expect(!text.contains("# EOF"))
    }

    @Test func openMetricsNamesFamiliesWithoutSuffixesAndEnds() {
        let text = MetricsExposition.openMetrics.render(Self.families)
        #expect(text.contains("# TYPE pagebench_pages counter\n"))
        #expect(text.contains("# TYPE pagebench_run info\n"))
        #expect(text.contains("# UNIT pagebench_page_latency_seconds seconds\n"))
        #expect(text.hasSuffix("# EOF\n"))
    }

    @Test func acceptHeaderChoosesTheFormat() {
        #expect(MetricsExposition.negotiated(accept: nil) == .prometheusText)
        #expect(MetricsExposition.negotiated(accept: "text/plain") == .prometheusText)
        // What Prometheus 2.42 sends.
        #expect(
            MetricsExposition.negotiated(
                accept:
                    "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
            )
                == .openMetrics
        )
        #expect(
            MetricsExposition.negotiated(accept: "application/openmetrics-text;q=0.2,text/plain") == .prometheusText
        )
    }

    /// The WriteRequest's bytes, checked field by field, and snappy's round trip.
    @Test func remoteWriteEncodesTheWriteRequest() throws {
        let request = RemoteWriteRequest(
            families: [Self.families[0]],
            timestampMilliseconds: 1000,
            extraLabels: [("job", "pagebench")]
        )
        #expect(request.series.count == 1)
        #expect(request.series[0].labels.map(\.name) == ["__name__", "configuration", "job", "phase"])
        let bytes = request.protobuf
        // WriteRequest.timeseries (field 1, length-delimited), then TimeSeries.labels (field 1).
        #expect(bytes[0] == 0x0A)
        #expect(bytes[2] == 0x0A)
        // The first label: name "__name__" (field 1), value "pagebench_pages_total" (field 2).
        let name = Array("__name__".utf8)
        #expect(bytes[4] == 0x0A && Int(bytes[5]) == name.count && Array(bytes[6..<(6 + name.count)]) == name)
        // The sample: double 12 (field 1, fixed64), timestamp 1000 (field 2, varint 0xE8 0x07).
        let tail = Array(bytes.suffix(14))
        #expect(tail[0] == 0x12 && tail[1] == 12 && tail[2] == 0x09)
        #expect(Array(tail[3..<11]) == withUnsafeBytes(of: (12.0).bitPattern.littleEndian) { Array($0) })
        #expect(Array(tail[11...]) == [0x10, 0xE8, 0x07])
        let compressed = request.snappyCompressed
        #expect(Snappy.uncompress(compressed) == bytes)
        #expect(Snappy.uncompress([0xFF, 0xFF, 0xFF]) == nil)
    }
}
