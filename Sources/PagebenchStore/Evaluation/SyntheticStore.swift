import PagebenchPage
import Synchronization

/// A deterministic, seeded, partitioned item store with DynamoDB/AppSync paging semantics
/// (docs/contract.md S1–S21).
///
/// Nothing is stored per item: every attribute is computed from (seed, partition, sort key),
/// so a store of 10⁹ items is created at once and pages in a few megabytes. Without writes
/// the store is an immutable value; any number of tasks may page it at once, and the read
/// path takes no lock (the only shared mutable state is one atomic request counter, used
/// only when throttling or faults are configured). With `writes` (S22–S26) it also holds a
/// ``WriteOverlay`` of what writes changed, shared by every copy of the store.
public struct SyntheticStore: Sendable {
    /// The validated configuration.
    public let configuration: StoreConfiguration
    /// ``StoreConfiguration/configurationHash`` of ``configuration``.
    public let configurationHash: String

    let layout: PartitionLayout
    let model: ItemModel
    /// The token MAC key, derived from the configuration (S18: tokens are bound to the store).
    let tokenKey: SipHash13
    let service: ServiceModel
    let counters: Counters
    let sleep: @Sendable (Duration) async throws -> Void
    let budgetBytes: Int
    let exclusiveBoundary: Bool
    let continuationAtExactEnd: Bool
    let strictTokens: Bool
    let defaultLimit: Int
    /// The most items a budget can hold, to size result arrays without over-allocating.
    let itemsPerBudget: Int
    /// What writes changed (S22); nil for a store without writes, whose pages never look.
    let overlay: WriteOverlay?
    /// Offset continuation (S24) under writes; without writes both modes page alike.
    let offsetContinuation: Bool

    /// Creates a store; `Task.sleep` provides the injected service times (S20).
    ///
    /// - Throws: ``StoreError`` (`invalidConfiguration`) naming the field that is out of range.
    public init(configuration: StoreConfiguration) throws {
        try self.init(configuration: configuration, sleep: { try await Task.sleep(for: $0) })
    }

    /// Creates a store whose service times (S20) sleep on `clock`.
    public init<C: Clock>(configuration: StoreConfiguration, clock: C) throws where C.Duration == Duration {
        try self.init(configuration: configuration, sleep: { try await clock.sleep(for: $0) })
    }

    /// Creates a store whose service times (S20) are waited out by `sleep`, which must throw
    /// `CancellationError` when the calling task is cancelled.
    public init(
        configuration: StoreConfiguration,
        sleep: @escaping @Sendable (Duration) async throws -> Void
    ) throws {
        try configuration.validateTyped()
        self.configuration = configuration
        let canonical = configuration.canonicalText
        configurationHash = configuration.configurationHash
        layout = PartitionLayout(partitions: configuration.partitions, items: configuration.itemsPerPartition)
        model = ItemModel(configuration: configuration)
        // Two SipHash-2-4 outputs under fixed domain-separation keys give the 128-bit key of
        // the token MAC (SipHash-1-3).
        let derive0 = SipHash24(k0: 0x7061_6765_6265_6E63, k1: 0x746F_6B65_6E2D_6B30)  // "pagebenc" "token-k0"
        let derive1 = SipHash24(k0: 0x7061_6765_6265_6E63, k1: 0x746F_6B65_6E2D_6B31)
        tokenKey = SipHash13(k0: derive0.mac(canonical.utf8), k1: derive1.mac(canonical.utf8))
        service = ServiceModel(configuration: configuration)
        counters = Counters()
        self.sleep = sleep
        budgetBytes = configuration.scanBudgetBytes
        exclusiveBoundary = configuration.budgetBoundary == .exclusive
        continuationAtExactEnd = configuration.exactEnd == .continuation
        strictTokens = configuration.tokenPolicy == .strict
        defaultLimit = configuration.defaultLimit
        itemsPerBudget = configuration.scanBudgetBytes / configuration.itemSize.minimumBytes + 1
        if let writes = configuration.writes {
            overlay = WriteOverlay(configuration: writes, layout: layout, model: model, seed: configuration.seed)
        } else {
            overlay = nil
        }
        offsetContinuation = configuration.continuation == .offset
    }

    /// This store as it was created: the same configuration and service-time sleep, none of
    /// the writes applied since (S22), and its request count, which injected failures are
    /// drawn from (S21), back at zero. A harness gives each phase one so that what one phase
    /// did never changes what another sees (H9). Cheap: nothing is stored per item.
    public func asCreated() -> SyntheticStore {
        SyntheticStore(asCreated: self)
    }

    private init(asCreated other: SyntheticStore) {
        configuration = other.configuration
        configurationHash = other.configurationHash
        layout = other.layout
        model = other.model
        tokenKey = other.tokenKey
        service = other.service
        counters = Counters()
        sleep = other.sleep
        budgetBytes = other.budgetBytes
        exclusiveBoundary = other.exclusiveBoundary
        continuationAtExactEnd = other.continuationAtExactEnd
        strictTokens = other.strictTokens
        defaultLimit = other.defaultLimit
        itemsPerBudget = other.itemsPerBudget
        overlay = other.configuration.writes.map {
            WriteOverlay(configuration: $0, layout: other.layout, model: other.model, seed: other.configuration.seed)
        }
        offsetContinuation = other.offsetContinuation
    }

    /// Whether a request can change what later requests see: writes arrive with requests
    /// (S22), or injected failures are drawn from the requests' arrival count (S21).
    public var keepsRequestState: Bool { overlay != nil || service.injectsFailures }

    /// The number of items the store was created with (writes change what pages return,
    /// not this).
    public var totalItems: Int { layout.total }

    /// Whether the store has `writes` configured (S22).
    public var hasWrites: Bool { overlay != nil }

    /// Whether the store has `partition` (0 ..< partitions).
    public func hasPartition(_ partition: Int) -> Bool {
        partition >= 0 && partition < layout.partitions
    }

    /// The number of items in `partition` (0 for a partition the store does not have).
    public func itemCount(inPartition partition: Int) -> Int {
        guard partition >= 0, partition < layout.partitions else { return 0 }
        return layout.count(of: partition)
    }

    /// The number of items a range holds (Σ scanned over its full traversal, S11).
    ///
    /// - Throws: ``StoreError`` for an unknown partition or invalid segment.
    public func itemCount(in range: ScanRange) throws -> Int {
        let (lo, hi) = try bounds(of: range)
        return hi - lo
    }

    /// The number of ``page(_:)`` calls made so far (counted only when throttling or faults
    /// are configured, since it decides which calls fail).
    public var injectionOrdinal: UInt64 { counters.requests.load(ordering: .relaxed) }
}

/// The store's only shared mutable state.
final class Counters: Sendable {
    /// `page(_:)` calls that drew a throttle/fault decision, in arrival order.
    let requests = Atomic<UInt64>(0)
}
