import PagebenchBase
import PagebenchPage

/// A page with the versions that bracket what it saw (S23, S25): every write up to
/// ``versionBefore`` is reflected, none after ``versionAfter``. Both are 0 without writes;
/// at concurrency 1 with per-request writes they are equal.
public struct VersionedPage: Sendable {
    public let page: Page
    public let versionBefore: UInt64
    public let versionAfter: UInt64
}

extension SyntheticStore {
    // MARK: Versions and the change feed

    /// The version of the last write applied (0 before any write, and without writes).
    public var writeVersion: UInt64 { overlay?.committedVersion ?? 0 }

    /// Calls `receive` with every write committed from now on (S26), in version order,
    /// until the subscription is cancelled. `receive` runs while the store applies the
    /// write: it must be quick and must not call the store. Nil without writes.
    public func subscribeToChanges(_ receive: @escaping @Sendable (StoreChange) -> Void) -> ChangeSubscription? {
        overlay?.subscribe(receive)
    }

    /// Every write committed from now on (S26), as a stream that buffers what its reader has
    /// not read yet; the subscription ends when the stream is dropped or its reader's task
    /// is cancelled. A store without writes gives a stream that ends at once.
    public func changeFeed() -> AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreChange.self)
        guard let subscription = subscribeToChanges({ continuation.yield($0) }) else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }

    // MARK: Writes arriving

    /// Applies the writes of `requests` store requests at once, as if that many requests had
    /// arrived (per-request rates; with per-second rates, the writes now due). For tests and
    /// benchmarks that need an overlay of a given size. Returns the version reached.
    @discardableResult
    public func applyWrites(requests: Int) -> UInt64 {
        guard let overlay else { return 0 }
        for _ in 0..<max(0, requests) { writesArrive(overlay) }
        return overlay.committedVersion
    }

    /// Applies the per-second writes that have fallen due (a store with per-request rates
    /// applies nothing here): what a harness calls on a timer so that writes keep arriving
    /// while no page is requested (watching, P16). Returns the version reached.
    @discardableResult
    public func applyDueWrites() -> UInt64 {
        guard let overlay else { return 0 }
        if overlay.configuration.per == .second { writesArrive(overlay) }
        return overlay.committedVersion
    }

    /// The writes that arrive with one store request (S22): per-request rates draw them from
    /// the request's ordinal; per-second rates apply what has fallen due (at most
    /// ``maximumDueWritesPerCall`` at once, the rest at the next call).
    func writesArrive(_ overlay: WriteOverlay) {
        let configuration = overlay.configuration
        let rates = [configuration.insertRate, configuration.deleteRate, configuration.updateRate]
        guard rates.contains(where: { $0 > 0 }) else { return }
        overlay.writer.withLock { state in
            var counts = [0, 0, 0]
            switch configuration.per {
            case .request:
                let ordinal = state.requests
                state.requests += 1
                for kind in 0..<3 where rates[kind] > 0 {
                    let whole = rates[kind].rounded(.down)
                    var random = SplitMix64(
                        seed: overlay.writeSeed,
                        stream: 0x7265_7175_0000 | UInt64(kind),
                        index: ordinal
                    )
                    counts[kind] = Int(whole) + (random.nextUnit() < rates[kind] - whole ? 1 : 0)
                }
            case .second:
                let now = MonotonicTime.nanoseconds()
                let start = state.startNanoseconds ?? now
                state.startNanoseconds = start
                let seconds = Double(now - start) / 1e9
                for kind in 0..<3 where rates[kind] > 0 {
                    let due = UInt64((rates[kind] * seconds).rounded(.down))
                    counts[kind] = Int(min(due - min(due, state.drawn[kind]), Self.maximumDueWritesPerCall))
                }
            }
            for kind in 0..<3 {
                for _ in 0..<counts[kind] {
                    let index = state.drawn[kind]
                    state.drawn[kind] += 1
                    applyWrite(StoreChange.Kind.allCases[kind], index: index, overlay: overlay, state: &state)
                }
            }
        }
    }

    /// The most per-second writes one call applies (a long pause does not become one long
    /// burst under the writer's lock).
    static let maximumDueWritesPerCall: UInt64 = 10_000

    /// Applies write `index` of `kind`: a seeded partition and place (S22), new attributes
    /// for inserts and updates. A write that cannot land (a delete or update in an empty
    /// partition, an insert into a gap with no free key) takes no version.
    private func applyWrite(
        _ kind: StoreChange.Kind,
        index: UInt64,
        overlay: WriteOverlay,
        state: inout WriteOverlay.WriterState
    ) {
        let configuration = overlay.configuration
        var random = SplitMix64(seed: overlay.writeSeed, stream: 0x7772_0000 | UInt64(kind.hashIndex), index: index)
        let partition: Int
        if !configuration.hotPartitions.isEmpty, random.nextUnit() < configuration.hotFraction {
            partition = configuration.hotPartitions[random.next(below: configuration.hotPartitions.count)]
        } else if layout.total > 0 {
            partition = layout.partition(containing: random.next(below: layout.total))
        } else {
            partition = random.next(below: layout.partitions)
        }
        let placeDraw = random.next()
        let keyDraw = random.next()
        let fingerprint = random.next()
        let position = configuration.position
        let model = self.model
        overlay.commit(&state, partition: partition) { changes, version in
            let count = changes.itemCount
            func rank(among items: Int) -> Int {
                switch position {
                case .head: 0
                case .tail: items - 1
                case .uniform: Int(placeDraw.multipliedFullWidth(by: UInt64(items)).high)
                }
            }
            let sizeBytes = model.size(fingerprint)
            let category = model.category(hash: fingerprint, partitionSeed: 0, sortKey: 0, clustering: 1)
            switch kind {
            case .insert:
                // The gap before the item at `gap` (gap == count: after the last item).
                let gap = rank(among: count + 1)
                let lowFree = gap > 0 ? changes.key(ofItemAt: gap - 1) + 1 : 0
                let high = gap < count ? changes.key(ofItemAt: gap) : KeySpace.localEnd(count: changes.baseCount)
                guard lowFree < high else { return nil }
                let width = high - lowFree
                let preferred: UInt64
                switch position {
                case .head: preferred = high - 1 - keyDraw % min(width, 16)
                case .tail: preferred = lowFree + keyDraw % min(width, 16)
                case .uniform: preferred = lowFree + keyDraw.multipliedFullWidth(by: width).high
                }
                guard let key = Self.freeKey(near: preferred, in: lowFree..<high, changes: changes) else { return nil }
                changes.insert(
                    ChangedKey(
                        key: key,
                        isBase: false,
                        live: true,
                        sizeBytes: sizeBytes,
                        category: category,
                        fingerprint: fingerprint,
                        history: [KeyEvent(version: version, live: true, sizeBytes: sizeBytes, category: category)]
                    )
                )
                return StoreChange(
                    version: version,
                    kind: .insert,
                    partition: partition,
                    sortKey: key,
                    item: Item(
                        partition: partition,
                        sortKey: key,
                        sizeBytes: sizeBytes,
                        category: category,
                        fingerprint: fingerprint
                    ),
                    committedAtNanoseconds: MonotonicTime.nanoseconds()
                )
            case .delete, .update:
                guard count > 0 else { return nil }
                let key = changes.key(ofItemAt: rank(among: count))
                let live = kind == .update
                let event = KeyEvent(
                    version: version,
                    live: live,
                    sizeBytes: live ? sizeBytes : 0,
                    category: live ? category : 0
                )
                if let index = changes.find(key) {
                    changes.update(at: index) { changed in
                        changed.live = live
                        if live {
                            changed.sizeBytes = sizeBytes
                            changed.category = category
                            changed.fingerprint = fingerprint
                        }
                        changed.history.append(event)
                    }
                } else {
                    // An unchanged base item: it becomes a changed key.
                    let index = KeySpace.baseIndex(ofKey: key, count: changes.baseCount) ?? 0
                    let base = model.item(
                        partition: partition,
                        partitionSeed: model.partitionSeed(partition),
                        sortKey: UInt64(index)
                    )
                    changes.insert(
                        ChangedKey(
                            key: key,
                            isBase: true,
                            live: live,
                            sizeBytes: live ? sizeBytes : base.sizeBytes,
                            category: live ? category : base.storeAttributes.category,
                            fingerprint: live ? fingerprint : base.storeAttributes.fingerprint,
                            history: [event]
                        )
                    )
                }
                return StoreChange(
                    version: version,
                    kind: kind,
                    partition: partition,
                    sortKey: key,
                    item: live
                        ? Item(
                            partition: partition,
                            sortKey: key,
                            sizeBytes: sizeBytes,
                            category: category,
                            fingerprint: fingerprint
                        ) : nil,
                    committedAtNanoseconds: MonotonicTime.nanoseconds()
                )
            }
        }
    }

    /// A key of `range` that no changed key holds (deleted keys keep theirs: a key never
    /// comes back), as near `preferred` as the changed keys around it allow: upwards first,
    /// then downwards; nil when every key of the range is taken.
    static func freeKey(near preferred: UInt64, in range: Range<UInt64>, changes: PartitionChanges) -> UInt64? {
        var candidate = preferred
        var index = changes.firstIndex(atOrAfter: candidate)
        while candidate < range.upperBound {
            guard index != changes.endIndex, changes[index].key == candidate else { return candidate }
            candidate += 1
            index = changes.index(after: index)
        }
        guard preferred > range.lowerBound else { return nil }
        candidate = preferred - 1
        var below = changes.index(before: changes.firstIndex(atOrAfter: preferred))
        while true {
            guard let current = below, changes[current].key == candidate else { return candidate }
            guard candidate > range.lowerBound else { return nil }
            candidate -= 1
            below = changes.index(before: current)
        }
    }
}

extension StoreChange.Kind {
    /// 0 insert, 1 delete, 2 update: the stream of a kind's seeded draws.
    var hashIndex: Int {
        switch self {
        case .insert: 0
        case .delete: 1
        case .update: 2
        }
    }
}
