import PagebenchBase

/// The text forms of workload values, shared by scenario files and command-line flags:
/// `partition:uniform`, `partition:zipf:1.1`, `partition:3`, `scan`, `segment:8`;
/// `full`, `first:5`, `abandon:0.2`; `closed`, `open-fixed:200`, `open-poisson:200`;
/// durations `250ns`, `40us`, `2ms`, `1.5s`.
enum WorkloadText {
    static func trimmed(_ text: String) -> String {
        String(text.unicodeScalars.filter { !$0.properties.isWhitespace }).lowercased()
    }

    static func number(_ text: some StringProtocol, field: String, example: String) throws(HarnessError) -> Double {
        guard let value = Double(text), value.isFinite else {
            throw .invalidField(field, "'\(text)' is not a number (e.g. '\(example)')")
        }
        return value
    }

    static func integer(_ text: some StringProtocol, field: String, example: String) throws(HarnessError) -> Int {
        guard let value = Int(text) else {
            throw .invalidField(field, "'\(text)' is not a whole number (e.g. '\(example)')")
        }
        return value
    }

    /// Parses a non-negative duration with a unit into nanoseconds.
    static func durationNanoseconds(_ text: String, field: String) throws(HarnessError) -> Int {
        if let nanoseconds = DurationText.nanoseconds(text), nanoseconds < 1e15 { return Int(nanoseconds.rounded()) }
        throw .invalidField(
            field,
            "'\(text)' is not a duration; write a number and a unit: \(DurationText.unitList) (e.g. '10ms', '2m'), at most about 11 days"
        )
    }

    /// The shortest exact text of a nanosecond duration.
    static func durationText(_ nanoseconds: Int) -> String {
        if nanoseconds != 0 && nanoseconds % 1_000_000_000 == 0 { return "\(nanoseconds / 1_000_000_000)s" }
        if nanoseconds != 0 && nanoseconds % 1_000_000 == 0 { return "\(nanoseconds / 1_000_000)ms" }
        if nanoseconds != 0 && nanoseconds % 1_000 == 0 { return "\(nanoseconds / 1_000)us" }
        return "\(nanoseconds)ns"
    }
}

extension PagerKind: CustomStringConvertible {
    public var description: String { rawValue }

    /// Parses `loop`, `streaming`, `apollo-loadAll` or `apollo-loadNext` (case-insensitive).
    public init(parsing text: String, field: String = "workload.pager") throws(HarnessError) {
        let spec = WorkloadText.trimmed(text)
        guard let kind = PagerKind.allCases.first(where: { $0.rawValue.lowercased() == spec }) else {
            throw .invalidField(
                field,
                "'\(text)' is not a pager; use \(PagerKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))"
            )
        }
        self = kind
    }
}

extension ReadRange: CustomStringConvertible {
    public var description: String {
        switch self {
        case .partition(.uniform): "partition:uniform"
        case .partition(.zipf(let exponent)): "partition:zipf:\(exponent)"
        case .partition(.fixed(let partition)): "partition:\(partition)"
        case .scan: "scan"
        case .segment(let total): "segment:\(total)"
        }
    }

    /// Parses `partition:uniform`, `partition:zipf:EXPONENT`, `partition:N`, `scan` or `segment:TOTAL`.
    public init(parsing text: String, field: String = "workload.read") throws(HarnessError) {
        let spec = WorkloadText.trimmed(text)
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false)
        let forms = "'partition:uniform', 'partition:zipf:1.1', 'partition:3', 'scan' or 'segment:8'"
        switch (parts.first ?? "", parts.count) {
        case ("scan", 1):
            self = .scan
        case ("segment", 2):
            self = .segment(total: try WorkloadText.integer(parts[1], field: field, example: "segment:8"))
        case ("partition", 2) where parts[1] == "uniform":
            self = .partition(.uniform)
        case ("partition", 2):
            self = .partition(.fixed(try WorkloadText.integer(parts[1], field: field, example: "partition:3")))
        case ("partition", 3) where parts[1] == "zipf":
            self = .partition(
                .zipf(exponent: try WorkloadText.number(parts[2], field: field, example: "partition:zipf:1.1"))
            )
        default:
            throw .invalidField(field, "'\(text)' is not a read target; use \(forms)")
        }
    }
}

extension DrainMode: CustomStringConvertible {
    public var description: String {
        switch self {
        case .full: "full"
        case .firstPages(let pages): "first:\(pages)"
        case .abandon(let probability): "abandon:\(probability)"
        }
    }

    /// Parses `full`, `first:K` or `abandon:P`.
    public init(parsing text: String, field: String = "workload.drain") throws(HarnessError) {
        let spec = WorkloadText.trimmed(text)
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false)
        switch (parts.first ?? "", parts.count) {
        case ("full", 1): self = .full
        case ("first", 2): self = .firstPages(try WorkloadText.integer(parts[1], field: field, example: "first:5"))
        case ("abandon", 2):
            self = .abandon(probability: try WorkloadText.number(parts[1], field: field, example: "abandon:0.2"))
        default:
            throw .invalidField(
                field,
                "'\(text)' is not a drain mode; use 'full', 'first:K' (pages) or 'abandon:P' (probability per page)"
            )
        }
    }
}

extension LoadModel: CustomStringConvertible {
    public var description: String {
        switch self {
        case .closed: "closed"
        case .open(let rate, let poisson): "\(poisson ? "open-poisson" : "open-fixed")" + (rate == 0 ? "" : ":\(rate)")
        }
    }

    /// Whether open-loop arrivals have exponential gaps.
    public var isPoisson: Bool {
        if case .open(_, true) = self { return true }
        return false
    }

    /// Parses `closed`, `open-fixed:RATE` or `open-poisson:RATE` (drains per second, `200` or
    /// `200/s` as rate stages write it).
    public init(parsing text: String, field: String = "workload.load") throws(HarnessError) {
        let spec = WorkloadText.trimmed(text)
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false)
        switch (parts.first ?? "", parts.count) {
        case ("closed", 1): self = .closed
        case ("open-fixed", 2), ("open-poisson", 2):
            let rateText = parts[1].hasSuffix("/s") ? parts[1].dropLast(2) : parts[1]
            guard Double(rateText) != nil else {
                throw .invalidField(field, "'\(text)': \(Self.rateUnit)")
            }
            let rate = try WorkloadText.number(rateText, field: field, example: "open-poisson:200/s")
            self = .open(drainsPerSecond: rate, poisson: parts[0] == "open-poisson")
        case ("open-fixed", 1), ("open-poisson", 1):
            // The rate comes from rate stages (H4); validation refuses it anywhere else.
            self = .open(drainsPerSecond: 0, poisson: parts[0] == "open-poisson")
        default:
            throw .invalidField(
                field,
                "'\(text)' is not a load model; use 'closed', 'open-fixed:RATE' or 'open-poisson:RATE' (without :RATE when rate stages set it); \(Self.rateUnit)"
            )
        }
    }

    /// What a rate is, for errors (issue 35: SREs think in requests per second).
    static let rateUnit =
        "RATE is drains per second (e.g. open-fixed:200/s), not requests: a drain is every page of one pagination, "
        + "so requests/s = drains/s × pages per drain; for one request per drain add --drain first:1"

}
