/// How many items each partition holds.
///
/// Text form (CLI `--items-per-partition`, JSON `itemsPerPartition`): `1000` or
/// `uniform:1000` for the same count everywhere, `zipf:1000:1.1` for a Zipf-skewed layout
/// with a mean of 1000 items per partition where partition `p` holds a share proportional
/// to `1 / (p + 1)^1.1` (partition 0 is the hottest). Counts are whole numbers that add up
/// to exactly `mean × partitions`.
public enum ItemsPerPartition: Sendable, Hashable {
    /// Every partition holds `count` items.
    case uniform(Int)
    /// Zipf-skewed counts with the given mean per partition and exponent (0 = uniform).
    case zipf(mean: Int, exponent: Double)

    /// The mean number of items per partition.
    public var mean: Int {
        switch self {
        case .uniform(let count): count
        case .zipf(let mean, _): mean
        }
    }
}

extension ItemsPerPartition: CustomStringConvertible, Codable {
    public var description: String {
        switch self {
        case .uniform(let count): "uniform:\(count)"
        case .zipf(let mean, let exponent): "zipf:\(mean):\(exponent)"
        }
    }

    /// Parses the text form; errors name the field and show an example.
    public init(parsing text: String) throws(StoreError) {
        let field = "itemsPerPartition"
        let (kind, arguments) = SpecText.kindAndArguments(text)
        if arguments.isEmpty, let count = Int(String(kind.filter { $0 != "_" })) {
            self = .uniform(count)
            return
        }
        switch kind {
        case "uniform":
            self = .uniform(try SpecText.integer(arguments, field: field))
        case "zipf":
            let parts = try SpecText.list(arguments, field: field, example: "zipf:1000:1.1", separator: ":")
            guard parts.count == 2 else {
                throw .invalidConfiguration(
                    "\(field): expected 'zipf:MEAN:EXPONENT' like 'zipf:1000:1.1', got '\(text)'"
                )
            }
            self = .zipf(
                mean: try SpecText.integer(parts[0], field: field),
                exponent: try SpecText.number(parts[1], field: field)
            )
        default:
            throw .invalidConfiguration(
                "\(field): '\(text)' is not a count or distribution; use e.g. '1000', 'uniform:1000' or 'zipf:1000:1.1'"
            )
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let count = try? container.decode(Int.self) {
            self = .uniform(count)
        } else if let text = try? container.decode(String.self) {
            self = try ItemsPerPartition(parsing: text)
        } else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: container.codingPath,
                    debugDescription: "must be a whole number or a text such as \"zipf:1000:1.1\""
                )
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .uniform(let count): try container.encode(count)
        case .zipf: try container.encode(description)
        }
    }
}
