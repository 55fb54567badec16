import PagebenchBase
import PagebenchPage
import Synchronization

/// What writes changed in a store (S22): per partition, the keys they inserted, deleted or
/// updated, with every key's history of versions. Unchanged items are still computed from
/// the seed, so a store of 10^9 items under writes starts at once and holds only what
/// changed.
///
/// Concurrency: writes are applied one at a time under ``writer``'s lock, in the order of
/// their version. A partition's changes live in one of ``shardCount`` shards, each behind
/// its own `Mutex`; a page reads a changed partition under that lock, for the part of the
/// page that lies in it. Whether a partition has any change is one bit in an array of
/// atomics, read without a lock, so pages over unchanged partitions take no lock and
/// never wait for each other or for a writer.
///
/// Versions: ``started`` is the version of the write being applied (or the last one),
/// ``committed`` the last version fully applied. A page that reads `committed` before it
/// starts and `started` after it ends saw every write up to the first and none after the
/// second (S23), the window the harness's consistency accounting needs (S25).
final class WriteOverlay: Sendable {
    static let shardCount = 64
    /// The most partitions that get a bit of their own; beyond, partitions share bits
    /// (a shared bit only costs a lock on a partition that has no change).
    static let maximumBits = 1 << 16

    let configuration: WritesConfiguration
    let layout: PartitionLayout
    let model: ItemModel
    /// Seeds of the write draws (counts per request, placement, attributes).
    let writeSeed: UInt64

    private let shards: [Shard]
    private let bits: [BitWord]
    private let bitCount: Int
    let started = Atomic<UInt64>(0)
    let committed = Atomic<UInt64>(0)
    let writer = Mutex(WriterState())
    /// Base matches per range and filter (S25's expected counts), computed once each.
    let matchCounts = Mutex<[MatchCountKey: Int]>([:])

    final class Shard: Sendable {
        let partitions = Mutex<[Int: PartitionChanges]>([:])
    }

    /// A change-feed subscriber and whether it was cancelled. Cancelling only sets the flag, so
    /// it never waits for the writer's lock: a subscriber is called under that lock, and a
    /// cancellation that waited for it could deadlock against one (a watching pager's task
    /// cancelled while a write delivers to it holds the task's lock the delivery needs).
    /// The writer drops cancelled subscribers at its next commit or subscription.
    final class Subscriber: Sendable {
        let receive: @Sendable (StoreChange) -> Void
        let cancelled = Atomic<Bool>(false)

        init(_ receive: @escaping @Sendable (StoreChange) -> Void) {
            self.receive = receive
        }
    }

    final class BitWord: Sendable {
        let bits = Atomic<UInt64>(0)
    }

    /// The writer's state: draws made so far and the change feed's subscribers.
    struct WriterState {
        /// Store requests that have drawn their writes (per-request rates).
        var requests: UInt64 = 0
        /// Writes drawn so far, per kind (insert, delete, update).
        var drawn: [UInt64] = [0, 0, 0]
        /// The first instant writes were asked for (per-second rates).
        var startNanoseconds: UInt64?
        var subscribers: [UInt64: Subscriber] = [:]
        var lastSubscriberID: UInt64 = 0
    }

    struct MatchCountKey: Hashable {
        let lowKey: UInt64
        let highKey: UInt64
        let filter: Filter?
    }

    init(configuration: WritesConfiguration, layout: PartitionLayout, model: ItemModel, seed: UInt64) {
        self.configuration = configuration
        self.layout = layout
        self.model = model
        writeSeed = StableHash.combine(seed, 0x7772_6974_6573)  // "writes"
        shards = (0..<Self.shardCount).map { _ in Shard() }
        bitCount = min(layout.partitions, Self.maximumBits)
        bits = (0..<(bitCount + 63) / 64).map { _ in BitWord() }
    }

    // MARK: Reading

    /// Whether `partition` may have changes: false means it has none, without a lock.
    @inline(__always)
    func mayHaveChanges(_ partition: Int) -> Bool {
        let bit = partition % bitCount
        return bits[bit >> 6].bits.load(ordering: .acquiring) & (1 << UInt64(bit & 63)) != 0
    }

    /// Runs `body` on the changes of `partition` (nil when it has none) under its shard's lock.
    @inline(__always)
    func withChanges<R>(of partition: Int, _ body: (PartitionChanges?) -> R) -> R {
        shards[partition % Self.shardCount].partitions.withLock { body($0[partition]) }
    }

    /// The last version fully applied: every write up to it is visible.
    @inline(__always)
    var committedVersion: UInt64 { committed.load(ordering: .acquiring) }

    /// The version of the last write begun: no write after it is visible.
    @inline(__always)
    var startedVersion: UInt64 { started.load(ordering: .acquiring) }

    /// Every partition that has changes, in order.
    func changedPartitions() -> [Int] {
        var result: [Int] = []
        for shard in shards {
            shard.partitions.withLock { result += $0.keys }
        }
        return result.sorted()
    }

    // MARK: Writing (under `writer`)

    /// Applies a change to `partition` as the next version, then publishes it. `body` gets
    /// the partition's changes and the version, and returns the change to publish, or nil
    /// when the write cannot land (nothing to delete, no free key): then no version is used.
    func commit(
        _ state: inout WriterState,
        partition: Int,
        _ body: (inout PartitionChanges, UInt64) -> StoreChange?
    ) {
        let version = started.load(ordering: .relaxed) + 1
        let change = shards[partition % Self.shardCount].partitions.withLock { partitions -> StoreChange? in
            var changes =
                partitions.removeValue(forKey: partition)
                ?? PartitionChanges(baseCount: layout.count(of: partition))
            // The version is announced before the change becomes visible: a page that sees it
            // reads a `started` at least as large afterwards.
            started.store(version, ordering: .releasing)
            let change = body(&changes, version)
            if changes.keyCount > 0 { partitions[partition] = changes }
            return change
        }
        guard let change else {
            started.store(version - 1, ordering: .releasing)
            return
        }
        let bit = partition % bitCount
        bits[bit >> 6].bits.bitwiseOr(1 << UInt64(bit & 63), ordering: .releasing)
        committed.store(version, ordering: .releasing)
        var ended: [UInt64] = []
        for (id, subscriber) in state.subscribers {
            if subscriber.cancelled.load(ordering: .acquiring) {
                ended.append(id)
            } else {
                subscriber.receive(change)
            }
        }
        for id in ended { state.subscribers.removeValue(forKey: id) }
    }

    /// Adds a change-feed subscriber; it is called under the writer's lock, so it must be
    /// quick and must not call the store. Its cancellation takes no lock (``Subscriber``): it
    /// may come from any thread, the subscriber's own call included.
    func subscribe(_ receive: @escaping @Sendable (StoreChange) -> Void) -> ChangeSubscription {
        let subscriber = Subscriber(receive)
        writer.withLock { state in
            state.subscribers = state.subscribers.filter { !$0.value.cancelled.load(ordering: .acquiring) }
            state.lastSubscriberID += 1
            state.subscribers[state.lastSubscriberID] = subscriber
        }
        return ChangeSubscription {
            subscriber.cancelled.store(true, ordering: .releasing)
        }
    }
}
