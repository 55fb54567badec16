/// The base latency of one store request (S20), before the per-byte cost and the hot
/// partition multiplier. All values are in nanoseconds.
///
/// Text form (CLI `--service-time`, JSON `serviceTime.base`): `none`, `fixed:2ms`,
/// `uniform:1ms-5ms`, `lognormal:median=2ms,sigma=0.5,max=200ms`. Units: ns, us, ms, s.
public enum LatencyDistribution: Sendable, Hashable {
    /// No base latency.
    case none
    case fixed(nanoseconds: Int)
    case uniform(minNanoseconds: Int, maxNanoseconds: Int)
    /// Log-normal with the given median and shape, capped at `maxNanoseconds`.
    case lognormal(medianNanoseconds: Int, sigma: Double, maxNanoseconds: Int)
}

extension LatencyDistribution: CustomStringConvertible, Codable {
    public var description: String {
        switch self {
        case .none: "none"
        case .fixed(let ns): "fixed:\(SpecText.durationText(ns))"
        case .uniform(let low, let high): "uniform:\(SpecText.durationText(low))-\(SpecText.durationText(high))"
        case .lognormal(let median, let sigma, let max):
            "lognormal:median=\(SpecText.durationText(median)),sigma=\(sigma),max=\(SpecText.durationText(max))"
        }
    }

    public init(parsing text: String) throws(StoreError) {
        let field = "serviceTime"
        let (kind, arguments) = SpecText.kindAndArguments(text)
        switch kind {
        case "none" where arguments.isEmpty:
            self = .none
        case "fixed":
            self = .fixed(nanoseconds: try SpecText.durationNanoseconds(arguments, field: field))
        case "uniform":
            let (low, high) = try SpecText.pair(arguments, field: field, example: "uniform:1ms-5ms")
            self = .uniform(
                minNanoseconds: try SpecText.durationNanoseconds(low, field: field),
                maxNanoseconds: try SpecText.durationNanoseconds(high, field: field)
            )
        case "lognormal":
            let example = "lognormal:median=2ms,sigma=0.5,max=200ms"
            let values = try SpecText.keyValues(
                arguments,
                field: field,
                allowed: ["median", "sigma", "max"],
                example: example
            )
            guard let median = values["median"], let sigma = values["sigma"] else {
                throw .invalidConfiguration("\(field): lognormal needs median and sigma, as in '\(example)'")
            }
            let medianNanoseconds = try SpecText.durationNanoseconds(median, field: field)
            self = .lognormal(
                medianNanoseconds: medianNanoseconds,
                sigma: try SpecText.number(sigma, field: field),
                maxNanoseconds: try values["max"].map { (text) throws(StoreError) in
                    try SpecText.durationNanoseconds(text, field: field)
                } ?? medianNanoseconds * 100
            )
        default:
            throw .invalidConfiguration(
                "\(field): '\(text)' is not a latency model; use 'none', 'fixed:2ms', 'uniform:1ms-5ms' or 'lognormal:median=2ms,sigma=0.5,max=200ms'"
            )
        }
    }

    public init(from decoder: any Decoder) throws {
        self = try LatencyDistribution(parsing: decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The service-time model of the store (S20): how long one ``SyntheticStore/page(_:)`` call
/// takes. Pure evaluation (``SyntheticStore/evaluatePage(_:)``) never waits.
///
/// delay = base × (hot ? hotPartitionMultiplier : 1) + nanosecondsPerScannedByte × scannedBytes
public struct ServiceTimeModel: Sendable, Hashable, Codable {
    /// The base latency per request.
    public var base: LatencyDistribution
    /// The cost of scanning, in nanoseconds per evaluated byte (e.g. 0.5 → about 0.5 ms per MiB).
    public var nanosecondsPerScannedByte: Double
    /// Partitions whose requests are slower. A request counts as hot when the partition of
    /// its first evaluated item (or its queried partition) is listed.
    public var hotPartitions: [Int]
    /// How much slower a hot partition's base latency is (≥ 1).
    public var hotPartitionMultiplier: Double

    public init(
        base: LatencyDistribution = .none,
        nanosecondsPerScannedByte: Double = 0,
        hotPartitions: [Int] = [],
        hotPartitionMultiplier: Double = 1
    ) {
        self.base = base
        self.nanosecondsPerScannedByte = nanosecondsPerScannedByte
        self.hotPartitions = hotPartitions
        self.hotPartitionMultiplier = hotPartitionMultiplier
    }

    /// No delay at all.
    public static let none = ServiceTimeModel()

    /// Whether this model never delays a request.
    public var isZero: Bool { base == .none && nanosecondsPerScannedByte == 0 }

    private enum CodingKeys: String, CodingKey {
        case base, nanosecondsPerScannedByte, hotPartitions, hotPartitionMultiplier
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ServiceTimeModel()
        base = try container.decodeIfPresent(LatencyDistribution.self, forKey: .base) ?? defaults.base
        nanosecondsPerScannedByte =
            try container.decodeIfPresent(Double.self, forKey: .nanosecondsPerScannedByte)
            ?? defaults.nanosecondsPerScannedByte
        hotPartitions = try container.decodeIfPresent([Int].self, forKey: .hotPartitions) ?? defaults.hotPartitions
        hotPartitionMultiplier =
            try container.decodeIfPresent(Double.self, forKey: .hotPartitionMultiplier)
            ?? defaults.hotPartitionMultiplier
    }

    var canonicalText: String {
        "base=\(base),perByte=\(nanosecondsPerScannedByte),hot=\(hotPartitions.map(String.init).joined(separator: "+")),hotMultiplier=\(hotPartitionMultiplier)"
    }
}
