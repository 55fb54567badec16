import PagebenchPage
import PagebenchStore
import Synchronization

/// Drives drains on a store under writes one page at a time (concurrency 1, so the writes
/// of request `n` are exactly those of the n-th call) and checks each page against
/// ``WritesModel``: the model is told the store's writes through the change feed (S26),
/// pages itself, and counts each drain's duplicates and skips (S25) on its own.
package struct WritesReplay {
    /// One drain as the model and the store saw it.
    package struct Drain: Sendable {
        package var pages = 0
        package var returned: [Item] = []
        /// Duplicates and skips by the model.
        package var modelDuplicates = 0
        package var modelSkipped = 0
        /// Skips by the store's own S25 accounting (``SyntheticStore/skippedItems(of:from:to:returned:)``).
        package var storeSkipped = 0
        /// The first page where the store and the model disagreed, described; nil if none did.
        package var mismatch: String?
    }

    package let store: SyntheticStore
    package private(set) var model: WritesModel
    private let changes = ChangeLog()
    private let subscription: ChangeSubscription?

    /// A replay of `store` (which must have writes and have served no request yet) for drains
    /// filtered by `filter`.
    package init(store: SyntheticStore, filter: Filter?) throws {
        self.store = store
        model = try WritesModel(configuration: store.configuration, filter: filter)
        let log = changes
        subscription = store.subscribeToChanges { change in log.append(change) }
    }

    /// Every change published so far.
    package var publishedChanges: [StoreChange] { changes.all }

    /// Drains `request` to its end (at most `maxPages` pages) through `store.page`.
    package mutating func drain(_ request: PageRequest, maxPages: Int = 100_000) async throws -> Drain {
        let configuration = store.configuration
        var drain = Drain()
        var cursor = WritesModel.Cursor.start
        var current = request
        var first: UInt64 = 0
        var last: UInt64 = 0
        while drain.pages < maxPages {
            let served = try await store.versionedPage(current)
            model.apply(changes.since(model.version), through: served.versionBefore)
            if drain.pages == 0 {
                model.beginDrain(range: request.range)
                first = served.versionBefore
            }
            last = served.versionAfter
            let expected = model.page(
                request,
                at: cursor,
                continuation: configuration.continuation,
                defaultLimit: configuration.defaultLimit,
                budgetBytes: configuration.scanBudgetBytes,
                boundary: configuration.budgetBoundary,
                exactEnd: configuration.exactEnd
            )
            let page = served.page
            if drain.mismatch == nil,
                page.items != expected.items || page.scannedCount != expected.scannedCount
                    || page.scannedBytes != expected.scannedBytes || (page.nextToken != nil) != (expected.next != nil)
            {
                drain.mismatch =
                    "page \(drain.pages) at version \(served.versionBefore): store \(page.items.map(\.sortKey)) "
                    + "scanned \(page.scannedCount) token \(page.nextToken != nil); model \(expected.items.map(\.sortKey)) "
                    + "scanned \(expected.scannedCount) token \(expected.next != nil)"
            }
            drain.pages += 1
            drain.returned += page.items
            guard let token = page.nextToken, let next = expected.next else { break }
            cursor = next
            current = request.with(token: token)
        }
        (drain.modelDuplicates, drain.modelSkipped) = model.endDrain(returned: drain.returned)
        drain.storeSkipped = store.skippedItems(
            of: request,
            from: first,
            to: last,
            returned: Set(drain.returned.map(ItemKey.init))
        )
        return drain
    }

    /// Stops following the change feed.
    package func cancel() { subscription?.cancel() }
}

/// The change feed's writes, in order, collected under a lock.
final class ChangeLog: Sendable {
    private let changes = Mutex<[StoreChange]>([])

    func append(_ change: StoreChange) { changes.withLock { $0.append(change) } }

    var all: [StoreChange] { changes.withLock { $0 } }

    /// The changes after version `version`, indexed like ``all``.
    func since(_ version: UInt64) -> ArraySlice<StoreChange> {
        changes.withLock { all in all[Int(version)...] }
    }
}
