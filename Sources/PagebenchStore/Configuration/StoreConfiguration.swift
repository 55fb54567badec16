import PagebenchBase
import PagebenchPage

/// Everything that defines a synthetic store: its data (partitions, counts, sizes,
/// attributes, seed) and its paging semantics (budget, boundary, exact end, token policy,
/// default limit), plus the load model (service time, throttling and faults).
///
/// A `Codable` value: load it from JSON with ``load(json:)`` or ``load(contentsOf:)``
/// (missing keys take their defaults, so a scenario file can name only what it changes),
/// override fields from flags, then ``validate()``. Same configuration, same data, pages
/// and tokens, on any machine (S8).
public struct StoreConfiguration: Sendable, Hashable {
    /// Number of partitions (≥ 1). Partition keys are `0 ..< partitions`.
    public var partitions: Int
    /// Items per partition; sort keys of partition `p` are `0 ..< count(p)`.
    public var itemsPerPartition: ItemsPerPartition
    /// Item sizes in bytes; the scan budget is charged with them (S3, S4).
    public var itemSize: ItemSizeDistribution
    /// The fraction of items (0…1) in category 0, the category the `match` filter selects.
    public var selectivity: Double
    /// How the category-0 items are laid out along the sort keys.
    public var clustering: Clustering
    /// The byte budget of one page, charged on evaluated items before the filter (S3, S4).
    public var scanBudgetBytes: Int
    /// Whether the item that crosses the budget starts the next page (S4).
    public var budgetBoundary: BudgetBoundary
    /// Whether a page that ends exactly at the range's end by limit still returns a token (S6).
    public var exactEnd: ExactEnd
    /// What a token is bound to besides range and direction (S18).
    public var tokenPolicy: TokenPolicy
    /// The limit of a request without one (S1).
    public var defaultLimit: Int
    /// The seed of all generated data, latencies and injected failures.
    public var seed: UInt64
    /// The service-time model of ``SyntheticStore/page(_:)`` (S20).
    public var serviceTime: ServiceTimeModel
    /// The fraction of ``SyntheticStore/page(_:)`` calls (0…1) that fail as throttled (S21).
    public var throttleRate: Double
    /// The fraction of ``SyntheticStore/page(_:)`` calls (0…1) that fail with an injected fault (S21).
    public var faultRate: Double
    /// Writes during pagination (S22); nil for an immutable store (the default).
    public var writes: WritesConfiguration?
    /// How tokens resume (S24): after the last evaluated key (default) or at an offset.
    public var continuation: ContinuationMode

    public init(
        partitions: Int = 64,
        itemsPerPartition: ItemsPerPartition = .uniform(10_000),
        itemSize: ItemSizeDistribution = .lognormal(median: 512, sigma: 1.0, min: 64, max: 409_600),
        selectivity: Double = 0.1,
        clustering: Clustering = .even,
        scanBudgetBytes: Int = 1_048_576,
        budgetBoundary: BudgetBoundary = .exclusive,
        exactEnd: ExactEnd = .continuation,
        tokenPolicy: TokenPolicy = .strict,
        defaultLimit: Int = 10,
        seed: UInt64 = 42,
        serviceTime: ServiceTimeModel = .none,
        throttleRate: Double = 0,
        faultRate: Double = 0,
        writes: WritesConfiguration? = nil,
        continuation: ContinuationMode = .keyset
    ) {
        self.partitions = partitions
        self.itemsPerPartition = itemsPerPartition
        self.itemSize = itemSize
        self.selectivity = selectivity
        self.clustering = clustering
        self.scanBudgetBytes = scanBudgetBytes
        self.budgetBoundary = budgetBoundary
        self.exactEnd = exactEnd
        self.tokenPolicy = tokenPolicy
        self.defaultLimit = defaultLimit
        self.seed = seed
        self.serviceTime = serviceTime
        self.throttleRate = throttleRate
        self.faultRate = faultRate
        self.writes = writes
        self.continuation = continuation
    }

    /// The default store: 64 partitions × 10,000 items, log-normal sizes (median 512 B),
    /// 10 % of items in category 0 spread evenly, 1 MiB budget, docs/contract.md defaults.
    public static let `default` = StoreConfiguration()

    /// A canonical, versioned text of every field, in a fixed order. Two configurations
    /// have the same canonical text exactly when they are equal. `writes` and
    /// `continuation` appear only when set (writes) or not the default (keyset), so a store
    /// without them keeps the text, hash and tokens it had before they existed.
    public var canonicalText: String {
        var fields = [
            "pagebench-store-v1",
            "partitions=\(partitions)",
            "itemsPerPartition=\(itemsPerPartition)",
            "itemSize=\(itemSize)",
            "selectivity=\(selectivity)",
            "clustering=\(clustering)",
            "scanBudgetBytes=\(scanBudgetBytes)",
            "budgetBoundary=\(budgetBoundary.rawValue)",
            "exactEnd=\(exactEnd.rawValue)",
            "tokenPolicy=\(tokenPolicy.rawValue)",
            "defaultLimit=\(defaultLimit)",
            "seed=\(seed)",
            "serviceTime=\(serviceTime.canonicalText)",
            "throttleRate=\(throttleRate)",
            "faultRate=\(faultRate)",
        ]
        if let writes { fields.append("writes=\(writes.canonicalText)") }
        if continuation != .keyset { fields.append("continuation=\(continuation.rawValue)") }
        return fields.joined(separator: ";")
    }

    /// A stable identity of this configuration: 16 hex digits of FNV-1a-64 over
    /// ``canonicalText``. The same on every machine and run; written into CSV rows.
    public var configurationHash: String {
        StableHash.hex(StableHash.fnv1a64(canonicalText))
    }

    /// The fields in which two ``canonicalText``s differ, in their order, each with both
    /// values: `itemsPerPartition` `300` and `301`; a nested field by its path
    /// (`serviceTime.base`); a field only one text has with `(not set)` on the other side.
    public static func differences(
        canonical first: String,
        _ second: String
    ) -> [(field: String, first: String, second: String)] {
        func fields(_ text: String) -> [(String, String)] {
            text.split(separator: ";").map { part in
                let pieces = part.split(separator: "=", maxSplits: 1)
                return (String(pieces[0]), pieces.count > 1 ? String(pieces[1]) : "")
            }
        }
        /// `base=none,perByte=0.0` → its members, or nil when the value is not of that form.
        func members(_ value: String) -> [(String, String)]? {
            let parts = value.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count > 1, parts.allSatisfy({ $0.contains("=") }) else { return nil }
            return parts.map { part in
                let pieces = part.split(separator: "=", maxSplits: 1)
                return (String(pieces[0]), pieces.count > 1 ? String(pieces[1]) : "")
            }
        }
        func compare(
            _ a: [(String, String)],
            _ b: [(String, String)],
            prefix: String
        ) -> [(field: String, first: String, second: String)] {
            var names = a.map(\.0)
            for (name, _) in b where !names.contains(name) { names.append(name) }
            var found: [(field: String, first: String, second: String)] = []
            for name in names {
                let x = a.first { $0.0 == name }?.1
                let y = b.first { $0.0 == name }?.1
                guard x != y else { continue }
                if let x, let y, let xs = members(x), let ys = members(y) {
                    found += compare(xs, ys, prefix: prefix + name + ".")
                } else {
                    found.append((prefix + name, x ?? "(not set)", y ?? "(not set)"))
                }
            }
            return found
        }
        return compare(fields(first), fields(second), prefix: "")
    }
}

/// S4: what happens to the item whose size would cross the page's byte budget.
public enum BudgetBoundary: String, Sendable, Hashable, Codable, CaseIterable {
    /// Evaluated bytes never exceed the budget; the crossing item starts the next page.
    /// An item larger than the whole budget is evaluated alone on its own page.
    case exclusive
    /// The crossing item is still evaluated on this page.
    case inclusive
}

/// S6: what a page that reaches `limit` exactly at the last item of the range returns.
public enum ExactEnd: String, Sendable, Hashable, Codable, CaseIterable {
    /// A token, and the next call returns zero items and no token (DynamoDB, AppSync).
    case continuation
    /// No token at once.
    case final
}

/// S18: which request inputs a token is bound to.
public enum TokenPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Range, segment, direction, limit and filter must all stay the same.
    case strict
    /// Only range, segment and direction are bound; limit and filter may change.
    case lenient
}
