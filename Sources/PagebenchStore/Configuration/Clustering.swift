/// How the items that match the configured filter (category 0) are laid out along the sort
/// keys of a partition.
///
/// Text form (CLI `--clustering`, JSON `clustering`): `even`, `random`, or `runs:LENGTH`.
public enum Clustering: Sendable, Hashable {
    /// Matches spread evenly: exactly `selectivity` of every stretch, as regular as the
    /// ratio allows. Produces the fewest empty pages.
    case even
    /// Each item matches independently with probability `selectivity`.
    case random
    /// Matches come in aligned runs of `length` items: each run matches wholly with
    /// probability `selectivity`, so long stretches match nothing — this is what produces
    /// long stretches of empty pages (S3).
    case runs(length: Int)
}

extension Clustering: CustomStringConvertible, Codable {
    public var description: String {
        switch self {
        case .even: "even"
        case .random: "random"
        case .runs(let length): "runs:\(length)"
        }
    }

    public init(parsing text: String) throws(StoreError) {
        let (kind, arguments) = SpecText.kindAndArguments(text)
        switch kind {
        case "even" where arguments.isEmpty: self = .even
        case "random" where arguments.isEmpty: self = .random
        case "runs": self = .runs(length: try SpecText.integer(arguments, field: "clustering"))
        default:
            throw .invalidConfiguration(
                "clustering: '\(text)' is not one of 'even', 'random' or 'runs:LENGTH' (e.g. runs:500)"
            )
        }
    }

    public init(from decoder: any Decoder) throws {
        self = try Clustering(parsing: decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
