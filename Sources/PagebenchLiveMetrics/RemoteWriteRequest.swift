import CSnappy

/// A Prometheus remote write 1.0 `WriteRequest` (prometheus/prompb `remote.proto`), encoded by
/// hand: the four messages it needs are small and stable, and this spares the build
/// swift-protobuf's runtime (results/live-metrics-build.md).
///
/// ```proto
/// message WriteRequest { repeated TimeSeries timeseries = 1; }
/// message TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
/// message Label        { string name = 1; string value = 2; }
/// message Sample       { double value = 1; int64 timestamp = 2; }   // milliseconds
/// ```
///
/// Each series is one sample of a ``MetricFamily``: `__name__` is the family name plus the
/// sample's suffix, and the labels are sorted by name, as the protocol asks.
package struct RemoteWriteRequest: Sendable {
    /// One series: its labels (`__name__` included), sorted by name, and one sample.
    package struct Series: Sendable, Equatable {
        package var labels: [Label]
        package var value: Double
        package var timestampMilliseconds: Int64
    }

    package struct Label: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    package var series: [Series]

    /// The series of `families` at `timestampMilliseconds`, each with `extraLabels` (`job`,
    /// `instance`: what a scrape would add and a push must say itself).
    package init(families: [MetricFamily], timestampMilliseconds: Int64, extraLabels: [(name: String, value: String)]) {
        series = families.flatMap { family in
            family.samples.map { sample in
                var labels = [Label(name: "__name__", value: family.name + sample.suffix)]
                labels += (sample.labels + extraLabels).map { Label(name: $0.name, value: $0.value) }
                labels.sort { $0.name < $1.name }
                return Series(labels: labels, value: sample.value, timestampMilliseconds: timestampMilliseconds)
            }
        }
    }

    /// The protobuf encoding of the `WriteRequest`.
    package var protobuf: [UInt8] {
        var out: [UInt8] = []
        for series in series {
            var body: [UInt8] = []
            for label in series.labels {
                var message: [UInt8] = []
                Self.appendBytes(field: 1, Array(label.name.utf8), to: &message)
                Self.appendBytes(field: 2, Array(label.value.utf8), to: &message)
                Self.appendBytes(field: 1, message, to: &body)
            }
            var sample: [UInt8] = []
            // field 1, wire type 1 (64-bit): the double, little-endian.
            sample.append(0x09)
            withUnsafeBytes(of: series.value.bitPattern.littleEndian) { sample.append(contentsOf: $0) }
            // field 2, wire type 0 (varint): the int64 timestamp.
            sample.append(0x10)
            Self.appendVarint(UInt64(bitPattern: series.timestampMilliseconds), to: &sample)
            Self.appendBytes(field: 2, sample, to: &body)
            Self.appendBytes(field: 1, body, to: &out)
        }
        return out
    }

    /// The body remote write sends: ``protobuf`` in snappy's block format.
    package var snappyCompressed: [UInt8] {
        Snappy.compress(protobuf)
    }

    static func appendBytes(field: UInt64, _ bytes: [UInt8], to out: inout [UInt8]) {
        appendVarint(field << 3 | 2, to: &out)
        appendVarint(UInt64(bytes.count), to: &out)
        out += bytes
    }

    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }
}

/// Snappy's block format, from the system's libsnappy (Debian: libsnappy-dev).
package enum Snappy {
    /// `input` compressed (the block format, not the framed stream).
    package static func compress(_ input: [UInt8]) -> [UInt8] {
        var length = snappy_max_compressed_length(input.count)
        var output = [UInt8](repeating: 0, count: length)
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                source.withMemoryRebound(to: CChar.self) { source in
                    target.withMemoryRebound(to: CChar.self) { target in
                        snappy_compress(source.baseAddress, source.count, target.baseAddress, &length)
                    }
                }
            }
        }
        // SNAPPY_OK is the only outcome with an output buffer of the maximum length.
        precondition(status == SNAPPY_OK, "snappy_compress failed with a buffer of snappy_max_compressed_length")
        output.removeSubrange(length...)
        return output
    }

    /// `input` uncompressed; nil when it is not a snappy block.
    package static func uncompress(_ input: [UInt8]) -> [UInt8]? {
        var length = 0
        let known = input.withUnsafeBufferPointer { source in
            source.withMemoryRebound(to: CChar.self) { snappy_uncompressed_length($0.baseAddress, $0.count, &length) }
        }
        guard known == SNAPPY_OK else { return nil }
        var output = [UInt8](repeating: 0, count: length)
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                source.withMemoryRebound(to: CChar.self) { source in
                    target.withMemoryRebound(to: CChar.self) { target in
                        snappy_uncompress(source.baseAddress, source.count, target.baseAddress, &length)
                    }
                }
            }
        }
        return status == SNAPPY_OK ? output : nil
    }
}
