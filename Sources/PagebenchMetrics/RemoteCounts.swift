import PagebenchPage

/// What a remote target answered during one measured phase (issue 14): responses by HTTP
/// status, non-page responses by kind (docs/contract.md T2), DynamoDB consumed capacity (W4).
/// Taken as the difference of two snapshots of the source's live counters.
public struct RemoteCounts: Sendable, Hashable {
    /// Responses per status, keyed `"200"`, …, plus `"transport"` for requests that got none.
    public var responses: [String: Int]
    /// Non-page responses per cause (the page contract's ``PagebenchPage/PageError/Cause``:
    /// `notJSON`, `missingItems`, …).
    public var targetErrors: [PageError.Cause: Int]
    /// Sum of `ConsumedCapacity.CapacityUnits`; nil when no response carried it.
    public var consumedCapacityUnits: Double?

    public init(
        responses: [String: Int] = [:],
        targetErrors: [PageError.Cause: Int] = [:],
        consumedCapacityUnits: Double? = nil
    ) {
        self.responses = responses
        self.targetErrors = targetErrors
        self.consumedCapacityUnits = consumedCapacityUnits
    }

    /// The counts since `earlier` (a snapshot of the same counters).
    public func since(_ earlier: RemoteCounts) -> RemoteCounts {
        func difference<Key>(_ now: [Key: Int], _ then: [Key: Int], keeping kept: Key?) -> [Key: Int] {
            now.reduce(into: [:]) { result, entry in
                let value = entry.value - (then[entry.key] ?? 0)
                if value != 0 || entry.key == kept { result[entry.key] = value }
            }
        }
        var capacity: Double?
        if let units = consumedCapacityUnits { capacity = units - (earlier.consumedCapacityUnits ?? 0) }
        return RemoteCounts(
            responses: difference(responses, earlier.responses, keeping: "transport"),
            targetErrors: difference(targetErrors, earlier.targetErrors, keeping: nil),
            consumedCapacityUnits: capacity
        )
    }

    /// Adds another shard's counts.
    public mutating func add(_ other: RemoteCounts) {
        responses.merge(other.responses, uniquingKeysWith: +)
        targetErrors.merge(other.targetErrors, uniquingKeysWith: +)
        if let units = other.consumedCapacityUnits { consumedCapacityUnits = (consumedCapacityUnits ?? 0) + units }
    }

    /// `200=1234 429=5 transport=0`: statuses ascending, `transport` last (the CSV cell).
    public var responsesText: String {
        let statuses = responses.keys.compactMap { Int($0) }.sorted().map { "\($0)=\(responses[String($0)]!)" }
        return (statuses + ["transport=\(responses["transport"] ?? 0)"]).joined(separator: " ")
    }

    /// Parses ``responsesText``; nil for text that is not of that form.
    public static func responses(fromText text: String) -> [String: Int]? {
        guard !text.isEmpty else { return [:] }
        var responses: [String: Int] = [:]
        for part in text.split(separator: " ") {
            let pieces = part.split(separator: "=")
            guard pieces.count == 2, let count = Int(pieces[1]), count >= 0,
                pieces[0] == "transport" || Int(pieces[0]).map({ (100...599).contains($0) }) == true
            else { return nil }
            responses[String(pieces[0]), default: 0] += count
        }
        return responses
    }
}

/// Drains of a target run that ended on a response that is not a page (T2), by the page
/// contract's finer cause (``PagebenchPage/PageError/Cause``): the breakdown of `errors_other`
/// for target rows. Lower is better; all zero in-process.
///
/// Stored as one dictionary of the non-zero counts (the row stays small: a results row is
/// copied by value everywhere), read and written per cause through the properties.
public struct TargetErrorCounts: Sendable, Hashable {
    /// The non-zero counts by cause, as ``RemoteCounts/targetErrors`` keys them.
    public private(set) var byKind: [PageError.Cause: Int] = [:]

    public init() {}

    /// The counts of a ``RemoteCounts/targetErrors`` dictionary.
    public init(_ byKind: [PageError.Cause: Int]) {
        self.byKind = byKind.filter { $0.value != 0 }
    }

    /// The drains that ended on `cause`.
    public subscript(_ cause: PageError.Cause) -> Int {
        get { byKind[cause] ?? 0 }
        set { byKind[cause] = newValue == 0 ? nil : newValue }
    }

    public var transport: Int {
        get { self[.transport] }
        set { self[.transport] = newValue }
    }
    public var unauthorized: Int {
        get { self[.unauthorized] }
        set { self[.unauthorized] = newValue }
    }
    public var httpStatus: Int {
        get { self[.httpStatus] }
        set { self[.httpStatus] = newValue }
    }
    public var notJSON: Int {
        get { self[.notJSON] }
        set { self[.notJSON] = newValue }
    }
    public var missingItems: Int {
        get { self[.missingItems] }
        set { self[.missingItems] = newValue }
    }
    public var badContinuation: Int {
        get { self[.badContinuation] }
        set { self[.badContinuation] = newValue }
    }
    public var graphQLError: Int {
        get { self[.graphQLError] }
        set { self[.graphQLError] = newValue }
    }
    public var apiError: Int {
        get { self[.apiError] }
        set { self[.apiError] = newValue }
    }
    public var repeatedContinuation: Int {
        get { self[.repeatedContinuation] }
        set { self[.repeatedContinuation] = newValue }
    }
}
