import Histogram

/// Lossless text form of a ``LatencyRecorder``.
///
/// One line of space-separated tokens, safe inside a CSV cell or a text file:
///
///     hdr1 digits=3 highest=3600000000000 clamped=0 total=6 min=12 max=5003 0:1 12:2 4992:3
///
/// - `hdr1`: format tag and version.
/// - `digits`: significant decimal digits (always 3 today; checked on read).
/// - `highest`: the clamp limit in nanoseconds.
/// - `clamped`: how many samples were clamped to `highest`.
/// - `total`: number of samples (the sum of the counts below; checked on read).
/// - `min`: the smallest non-zero sample (exact unless zeros were recorded, then its bucket's
///   lowest value, which is all the histogram keeps), or `none` if there is no non-zero sample.
/// - `max`: the largest sample exactly (0 when empty).
/// - then one `value:count` pair per non-empty bucket, in increasing order, where `value` is the
///   lowest value of that bucket (HdrHistogram's "lowest equivalent value") and `count` > 0.
///
/// Reading it back rebuilds the same buckets, exact minimum and exact maximum, so every
/// percentile, the count, min and max of the decoded recorder equal the original's, and
/// decoded recorders merge exactly like the originals.
extension LatencyRecorder {
    static let formatTag = "hdr1"

    /// The lossless one-line text form described above.
    public func serialized() -> String {
        var text = Self.formatTag
        text += " digits=\(Self.significantDigits.rawValue)"
        text += " highest=\(highestTrackableNanoseconds)"
        text += " clamped=\(clampedCount)"
        text += " total=\(count)"
        let minNonZero = histogram.minNonZero
        text += minNonZero == .max ? " min=none" : " min=\(minNonZeroObservable)"
        text += " max=\(histogram.maxRecorded)"
        for bucket in histogram.recordedValues() {
            text += " \(histogram.lowestEquivalentForValue(bucket.value)):\(bucket.count)"
        }
        return text
    }

    /// The smallest non-zero sample: exact when no zero was recorded (`Histogram.min`), else
    /// the lowest value of its bucket, which is all `Histogram` keeps observable in that case.
    private var minNonZeroObservable: UInt64 {
        histogram.countForValue(0) == 0 ? histogram.min : histogram.minNonZero
    }

    /// Rebuilds a recorder from ``serialized()`` text.
    ///
    /// - Parameters:
    ///   - text: the serialised form.
    ///   - file, line, column: where `text` came from, for error messages.
    /// - Throws: ``MetricsError`` (`.malformedInput`) naming the offending token and what was
    ///   expected, with its column offset within `text` added to `column`.
    public init(serialized text: String, file: String? = nil, line: Int? = nil, column: Int = 1) throws {
        var tokens: [(text: Substring, column: Int)] = []
        var index = text.startIndex
        var position = column
        while index < text.endIndex {
            if text[index] == " " {
                index = text.index(after: index)
                position += 1
                continue
            }
            let start = index
            let startColumn = position
            while index < text.endIndex, text[index] != " " {
                index = text.index(after: index)
                position += 1
            }
            tokens.append((text[start..<index], startColumn))
        }
        func fail(_ token: (text: Substring, column: Int)?, _ message: String) -> MetricsError {
            MetricsError.malformed(
                file: file,
                line: line,
                column: token?.column ?? column,
                "serialised histogram: \(message)"
            )
        }
        guard tokens.first?.text == Substring(Self.formatTag) else {
            throw fail(
                tokens.first,
                "expected it to start with '\(Self.formatTag)', found '\(tokens.first?.text ?? "")'"
            )
        }
        let keys = ["digits", "highest", "clamped", "total", "min", "max"]
        var header: [String: (value: Substring, column: Int)] = [:]
        for (offset, key) in keys.enumerated() {
            guard 1 + offset < tokens.count else {
                throw MetricsError.malformed(
                    file: file,
                    line: line,
                    column: position,
                    "serialised histogram: missing '\(key)=…' after '\(tokens[offset].text)'"
                )
            }
            let token = tokens[1 + offset]
            guard token.text.hasPrefix(key + "=") else {
                throw fail(token, "expected '\(key)=…', found '\(token.text)'")
            }
            header[key] = (token.text.dropFirst(key.count + 1), token.column + key.count + 1)
        }
        func number(_ key: String) throws -> UInt64 {
            let field = header[key]!
            guard let value = UInt64(field.value) else {
                throw fail(
                    (field.value, field.column),
                    "'\(key)' must be a non-negative integer, found '\(field.value)'"
                )
            }
            return value
        }
        let digits = try number("digits")
        guard digits == UInt64(Self.significantDigits.rawValue) else {
            throw fail(tokens[1], "only digits=\(Self.significantDigits.rawValue) is supported, found digits=\(digits)")
        }
        let highest = try number("highest")
        guard highest >= 2 else { throw fail(tokens[2], "'highest' must be at least 2") }
        let clamped = try number("clamped")
        let total = try number("total")
        let minimum: UInt64? = header["min"]!.value == "none" ? nil : try number("min")
        let maximum = try number("max")

        var recorder = LatencyRecorder(highestTrackableNanoseconds: highest)
        let probe = recorder.histogram
        let minBucket = minimum.map { probe.lowestEquivalentForValue($0) }
        let maxBucket = probe.lowestEquivalentForValue(maximum)
        var previous: UInt64?
        var sum: UInt64 = 0
        for token in tokens.dropFirst(1 + keys.count) {
            let parts = token.text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let value = UInt64(parts[0]), let count = UInt64(parts[1]), count > 0 else {
                throw fail(token, "expected a bucket 'value:count' with count > 0, found '\(token.text)'")
            }
            guard probe.lowestEquivalentForValue(value) == value else {
                throw fail(token, "bucket value \(value) is not the lowest value of its bucket; was the text edited?")
            }
            if let previous, value <= previous {
                throw fail(token, "bucket values must increase; \(value) follows \(previous)")
            }
            guard value <= maxBucket, value == 0 || minBucket.map({ value >= $0 }) == true else {
                throw fail(
                    token,
                    "bucket \(value) lies outside min=\(minimum.map(String.init) ?? "none") … max=\(maximum)"
                )
            }
            previous = value
            let (newSum, overflow) = sum.addingReportingOverflow(count)
            guard !overflow else { throw fail(token, "counts overflow a 64-bit total") }
            sum = newSum
            // Record at the exact min/max inside their buckets, elsewhere at the bucket's lowest
            // value: same bucket either way, and the histogram's exact min and max come out right.
            if value == 0 {
                recorder.histogram.record(0, count: count)
            } else if value == minBucket, value == maxBucket, let minimum {
                guard count >= 2 || minimum == maximum else {
                    throw fail(token, "one sample cannot be both min=\(minimum) and max=\(maximum)")
                }
                recorder.histogram.record(minimum, count: 1)
                if count > 1 { recorder.histogram.record(maximum, count: count - 1) }
            } else if value == minBucket, let minimum {
                recorder.histogram.record(minimum, count: count)
            } else if value == maxBucket {
                recorder.histogram.record(maximum, count: count)
            } else {
                recorder.histogram.record(value, count: count)
            }
        }
        guard sum == total else {
            throw fail(
                (header["total"]!.value, header["total"]!.column),
                "total=\(total) but the bucket counts add up to \(sum)"
            )
        }
        let expectedMinBucket = minBucket ?? .max
        let observedMin = recorder.histogram.minNonZero == .max ? nil : recorder.minNonZeroObservable
        guard recorder.histogram.maxRecorded == maximum, recorder.histogram.minNonZero == expectedMinBucket,
            observedMin == minimum
        else {
            throw fail(tokens[5], "min/max do not match any recorded bucket")
        }
        guard clamped <= total, maximum <= highest else {
            throw fail(tokens[3], "clamped=\(clamped) and max=\(maximum) must not exceed total and highest")
        }
        recorder.clampedCount = clamped
        self = recorder
    }
}

/// A recorder in a JSON file (a shard's ``TaskMetrics``) is its lossless `hdr1` text.
extension LatencyRecorder: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(serialized: text)
        } catch {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "is not a latency histogram: \(error)"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(serialized())
    }
}
