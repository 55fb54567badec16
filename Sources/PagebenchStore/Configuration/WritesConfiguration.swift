import PagebenchBase

/// Writes that arrive while pagers page the store (docs/contract.md S22): inserts, deletes and
/// updates at configured rates, at seeded partitions and keys, each with a logical version.
///
/// JSON (the `writes` object of a store configuration; every key optional):
/// `{"insertRate": 0.2, "deleteRate": 0.1, "updateRate": 0.1, "per": "request",
///   "position": "uniform", "hotPartitions": [0, 3], "hotFraction": 0.9}`.
///
/// With `per: "request"` (the default) a rate is writes per store request: request `n`
/// brings `⌊rate⌋` writes of the kind plus one more with probability `rate − ⌊rate⌋`, drawn
/// from the seed and `n`, so the same requests see the same writes (deterministic; what
/// tests and CI use). With `per: "second"`, writes fall due at `rate` per second of wall
/// clock from the first request and are applied at the next request (or by
/// ``SyntheticStore/applyDueWrites()``); which page sees which write then depends on timing.
public struct WritesConfiguration: Sendable, Hashable {
    /// Inserts per request (or per second): a new key between two existing sort keys (S22).
    public var insertRate: Double
    /// Deletes per request (or per second) of an existing key.
    public var deleteRate: Double
    /// Updates per request (or per second): an existing key gets a new size and category
    /// (so it can start or stop matching a filter).
    public var updateRate: Double
    /// What the rates count per.
    public var per: WriteRateUnit
    /// Where in a partition a write lands.
    public var position: WritePosition
    /// Partitions that receive ``hotFraction`` of the writes; empty spreads every write over
    /// the store, each base item equally likely to be near it.
    public var hotPartitions: [Int]
    /// The fraction of writes (0…1) that go to ``hotPartitions`` (the rest are spread).
    public var hotFraction: Double

    public init(
        insertRate: Double = 0,
        deleteRate: Double = 0,
        updateRate: Double = 0,
        per: WriteRateUnit = .request,
        position: WritePosition = .uniform,
        hotPartitions: [Int] = [],
        hotFraction: Double = 1
    ) {
        self.insertRate = insertRate
        self.deleteRate = deleteRate
        self.updateRate = updateRate
        self.per = per
        self.position = position
        self.hotPartitions = hotPartitions
        self.hotFraction = hotFraction
    }

    /// The most writes of one kind per request, and per second.
    public static let maximumRatePerRequest = 1_000.0
    public static let maximumRatePerSecond = 10_000_000.0

    /// The canonical text (part of the store's canonical text, so tokens and configuration
    /// hashes are bound to the writes).
    var canonicalText: String {
        "insert=\(insertRate),delete=\(deleteRate),update=\(updateRate),per=\(per.rawValue),position=\(position.rawValue),"
            + "hot=\(hotPartitions.map(String.init).joined(separator: "+")),hotFraction=\(hotFraction)"
    }

    /// Checks the rates, placement and hot partitions of a store with `partitions` partitions.
    func validate(partitions: Int) throws(StoreError) {
        func fail(_ message: String) -> StoreError { .invalidConfiguration("writes: " + message) }
        let maximum = per == .request ? Self.maximumRatePerRequest : Self.maximumRatePerSecond
        for (name, rate) in [("insertRate", insertRate), ("deleteRate", deleteRate), ("updateRate", updateRate)] {
            guard rate.isFinite, rate >= 0, rate <= maximum else {
                throw fail("\(name) must be between 0 and \(Int(maximum)) writes per \(per.rawValue), got \(rate)")
            }
        }
        guard hotFraction.isFinite, hotFraction >= 0, hotFraction <= 1 else {
            throw fail("hotFraction must be between 0 and 1 (a fraction of writes), got \(hotFraction)")
        }
        if let bad = hotPartitions.first(where: { $0 < 0 || $0 >= partitions }) {
            throw fail("hot partition \(bad) does not exist; partitions are 0 to \(partitions - 1)")
        }
        if let repeated = hotPartitions.firstRepeated()?.element {
            // A partition listed twice would take twice its share of the hot writes.
            throw fail("hotPartitions lists partition \(repeated) twice; give each hot partition once")
        }
    }
}

/// What a write rate counts per (S22).
public enum WriteRateUnit: String, Sendable, Hashable, CaseIterable {
    /// Writes per store request, drawn from the seed and the request's ordinal: the same
    /// requests see the same writes.
    case request
    /// Writes per second of wall clock.
    case second
}

/// Where in a partition writes land (S22).
public enum WritePosition: String, Sendable, Hashable, CaseIterable {
    /// Anywhere: each gap (insert) or key (delete, update) equally likely.
    case uniform
    /// Before the first key (insert) or at the first key (delete, update).
    case head
    /// After the last key (insert) or at the last key (delete, update).
    case tail
}

/// How a page token resumes a listing (docs/contract.md S24).
public enum ContinuationMode: String, Sendable, Hashable, CaseIterable {
    /// Strictly after the last evaluated key (DynamoDB): under writes a key is never
    /// returned twice in one drain.
    case keyset
    /// At the n-th item of the range (offset pagination): under writes an insert before the
    /// cursor makes the next page repeat an item, and a delete before it skips one.
    case offset
}

extension WritesConfiguration: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case insertRate, deleteRate, updateRate, per, position, hotPartitions, hotFraction
    }

    /// Decodes the `writes` object; missing keys take their defaults, bad values throw a
    /// ``StoreError`` naming `writes.<key>`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        insertRate = try container.decodeIfPresent(Double.self, forKey: .insertRate) ?? insertRate
        deleteRate = try container.decodeIfPresent(Double.self, forKey: .deleteRate) ?? deleteRate
        updateRate = try container.decodeIfPresent(Double.self, forKey: .updateRate) ?? updateRate
        if let text = try container.decodeIfPresent(String.self, forKey: .per) {
            per = try WriteRateUnit(parsing: text, field: "writes.per")
        }
        if let text = try container.decodeIfPresent(String.self, forKey: .position) {
            position = try WritePosition(parsing: text, field: "writes.position")
        }
        hotPartitions = try container.decodeIfPresent([Int].self, forKey: .hotPartitions) ?? hotPartitions
        hotFraction = try container.decodeIfPresent(Double.self, forKey: .hotFraction) ?? hotFraction
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(insertRate, forKey: .insertRate)
        try container.encode(deleteRate, forKey: .deleteRate)
        try container.encode(updateRate, forKey: .updateRate)
        try container.encode(per.rawValue, forKey: .per)
        try container.encode(position.rawValue, forKey: .position)
        try container.encode(hotPartitions, forKey: .hotPartitions)
        try container.encode(hotFraction, forKey: .hotFraction)
    }
}

extension WriteRateUnit {
    /// Parses `request` or `second` (case-insensitive).
    public init(parsing text: String, field: String) throws(StoreError) {
        guard let unit = Self(rawValue: text.trimmingWhitespace().lowercased()) else {
            throw .invalidConfiguration("\(field): '\(text)' is not a rate unit; use 'request' or 'second'")
        }
        self = unit
    }
}

extension WritePosition {
    /// Parses `uniform`, `head` or `tail` (case-insensitive).
    public init(parsing text: String, field: String) throws(StoreError) {
        guard let position = Self(rawValue: text.trimmingWhitespace().lowercased()) else {
            throw .invalidConfiguration("\(field): '\(text)' is not a write position; use 'uniform', 'head' or 'tail'")
        }
        self = position
    }
}

extension ContinuationMode {
    /// Parses `keyset` or `offset` (case-insensitive).
    public init(parsing text: String, field: String = "continuation") throws(StoreError) {
        guard let mode = Self(rawValue: text.trimmingWhitespace().lowercased()) else {
            throw .invalidConfiguration("\(field): '\(text)' is not a continuation mode; use 'keyset' or 'offset'")
        }
        self = mode
    }
}
