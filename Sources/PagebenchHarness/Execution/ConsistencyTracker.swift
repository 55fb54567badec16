import PagebenchMetrics
import PagebenchPage
import PagebenchStore
import Synchronization

/// One pager task's S25 accounting on a store under writes: it serves the task's requests
/// itself (``SyntheticStore/versionedPage(_:)``, so it knows the write versions each page
/// saw), keeps the keys the current drain returned, and when the drain reaches its last
/// page counts its duplicates (keys returned again) and skips (from the store's versioned
/// overlay, ``SyntheticStore/skippedItems(of:from:to:returned:)``: never by listing the
/// store again).
///
/// A drain starts with a request without a token and is counted when a page comes without
/// one; drains that stop early (first pages, abandoned, cancelled, failed) are not counted.
/// Only pager tasks of a phase with its own store have one (``PhaseRunner/Options/phaseStore``),
/// and it counts only where ``countsDrains`` (writes, and a pager whose drains are not
/// re-fetched by watching); elsewhere it only serves the requests from that store.
/// Used by one task at a time; the lock is never contended.
final class ConsistencyTracker: Sendable {
    let store: SyntheticStore
    /// Whether it counts S25 (else it only serves the requests).
    let countsDrains: Bool
    private let state = Mutex(State())

    private struct State {
        var drain: Drain?
        var counts = ConsistencyCounts()
    }

    private struct Drain {
        let request: PageRequest
        let firstVersion: UInt64
        var lastVersion: UInt64
        var returned: Set<ItemKey> = []
        var duplicates = 0
    }

    init(store: SyntheticStore, countsDrains: Bool) {
        self.store = store
        self.countsDrains = countsDrains
    }

    /// Serves `request` and accounts for its page.
    func fetch(_ request: PageRequest) async throws -> Page {
        guard countsDrains else { return try await store.page(request) }
        let served = try await store.versionedPage(request)
        let page = served.page
        let finished = state.withLock { state -> Drain? in
            if request.token == nil {
                state.drain = Drain(
                    request: request,
                    firstVersion: served.versionBefore,
                    lastVersion: served.versionAfter
                )
            }
            guard state.drain != nil else { return nil }
            state.drain!.lastVersion = served.versionAfter
            for item in page.items where !state.drain!.returned.insert(ItemKey(item)).inserted {
                state.drain!.duplicates += 1
            }
            guard page.nextToken == nil else { return nil }
            defer { state.drain = nil }
            return state.drain
        }
        if let finished {
            let skipped = store.skippedItems(
                of: finished.request,
                from: finished.firstVersion,
                to: finished.lastVersion,
                returned: finished.returned
            )
            state.withLock { $0.counts.record(duplicates: finished.duplicates, skipped: skipped) }
        }
        return page
    }

    /// The counts of every drain counted so far.
    var counts: ConsistencyCounts { state.withLock { $0.counts } }
}
