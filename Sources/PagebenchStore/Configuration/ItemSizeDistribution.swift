/// The distribution of item sizes in bytes (every item is at least 1 byte).
///
/// Text form (CLI `--item-size`, JSON `itemSize`): `fixed:1024` (or just `1024`),
/// `uniform:100-2000` (inclusive), or
/// `lognormal:median=512,sigma=1.0,min=64,max=409600` — a log-normal distribution with the
/// given median and shape, clamped to `[min, max]` (`min` defaults to 1, `max` to 409600,
/// DynamoDB's 400 KiB item limit, at most 2³²−1). Sizes are drawn per item from (seed,
/// partition, sort key); log-normal sizes interpolate a table of 2048 quantiles, so the
/// outermost 1/4096 of each tail is folded onto the last quantile.
public enum ItemSizeDistribution: Sendable, Hashable {
    case fixed(Int)
    case uniform(min: Int, max: Int)
    case lognormal(median: Int, sigma: Double, min: Int, max: Int)

    /// The smallest size this distribution can produce, in bytes.
    public var minimumBytes: Int {
        switch self {
        case .fixed(let size): size
        case .uniform(let min, _): min
        case .lognormal(_, _, let min, _): min
        }
    }

    /// The largest size this distribution can produce, in bytes.
    public var maximumBytes: Int {
        switch self {
        case .fixed(let size): size
        case .uniform(_, let max): max
        case .lognormal(_, _, _, let max): max
        }
    }
}

extension ItemSizeDistribution: CustomStringConvertible, Codable {
    public var description: String {
        switch self {
        case .fixed(let size): "fixed:\(size)"
        case .uniform(let min, let max): "uniform:\(min)-\(max)"
        case .lognormal(let median, let sigma, let min, let max):
            "lognormal:median=\(median),sigma=\(sigma),min=\(min),max=\(max)"
        }
    }

    /// Parses the text form; errors name the field and show an example.
    public init(parsing text: String) throws(StoreError) {
        let field = "itemSize"
        let (kind, arguments) = SpecText.kindAndArguments(text)
        if arguments.isEmpty, let size = Int(kind) {
            self = .fixed(size)
            return
        }
        switch kind {
        case "fixed":
            self = .fixed(try SpecText.integer(arguments, field: field))
        case "uniform":
            let (low, high) = try SpecText.pair(arguments, field: field, example: "uniform:100-2000")
            self = .uniform(
                min: try SpecText.integer(low, field: field),
                max: try SpecText.integer(high, field: field)
            )
        case "lognormal":
            let example = "lognormal:median=512,sigma=1.0,min=64,max=409600"
            let values = try SpecText.keyValues(
                arguments,
                field: field,
                allowed: ["median", "sigma", "min", "max"],
                example: example
            )
            guard let median = values["median"], let sigma = values["sigma"] else {
                throw .invalidConfiguration("\(field): lognormal needs median and sigma, as in '\(example)'")
            }
            self = .lognormal(
                median: try SpecText.integer(median, field: field),
                sigma: try SpecText.number(sigma, field: field),
                min: try values["min"].map { (text) throws(StoreError) in try SpecText.integer(text, field: field) }
                    ?? 1,
                max: try values["max"].map { (text) throws(StoreError) in try SpecText.integer(text, field: field) }
                    ?? 409_600
            )
        default:
            throw .invalidConfiguration(
                "\(field): '\(text)' is not a size distribution; use 'fixed:1024', 'uniform:100-2000' or 'lognormal:median=512,sigma=1.0,min=64,max=409600'"
            )
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let size = try? container.decode(Int.self) {
            self = .fixed(size)
        } else if let text = try? container.decode(String.self) {
            self = try ItemSizeDistribution(parsing: text)
        } else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: container.codingPath,
                    debugDescription: "must be a whole number of bytes or a text such as \"uniform:100-2000\""
                )
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
