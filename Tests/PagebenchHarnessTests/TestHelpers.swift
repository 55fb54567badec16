import PagebenchHarness
import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchStore
import Synchronization

/// A page source with a fixed script: the same five pages for every drain, keyed by token
/// (3 items; empty with a token; empty with a token; 2 items; empty without a token).
struct ScriptedStoreSource: PageSource {
    static let items: [Item] = {
        let store = try! SyntheticStore(
            configuration: StoreConfiguration(partitions: 1, itemsPerPartition: .uniform(10))
        )
        return (0..<5).map { store.item(partition: 0, sortKey: UInt64($0))! }
    }()

    /// The script: token → page. Every page scans 10 items of 100 bytes.
    static let pages: [String: Page] = [
        "": Page(items: Array(items[0..<3]), scannedCount: 10, scannedBytes: 1000, nextToken: "t1"),
        "t1": Page(items: [], scannedCount: 10, scannedBytes: 1000, nextToken: "t2"),
        "t2": Page(items: [], scannedCount: 10, scannedBytes: 1000, nextToken: "t3"),
        "t3": Page(items: Array(items[3..<5]), scannedCount: 10, scannedBytes: 1000, nextToken: "t4"),
        "t4": Page(items: [], scannedCount: 10, scannedBytes: 1000, nextToken: nil),
    ]

    func fetch(_ request: PageRequest) async throws -> Page {
        await Task.yield()
        return Self.pages[request.token ?? ""]!
    }
}

/// Wraps a source, counting fetches in flight; holds a reference whose uniqueness tells
/// whether anything (a pager, a stream, a task) still holds a copy of the source.
struct TrackingSource<Base: PageSource>: PageSource where Base.Request == PageRequest, Base.Response == Page {
    final class Tracker: Sendable {
        let inFlight = Atomic<Int>(0)
        let started = Atomic<Int>(0)
        /// Requests of a first page (no token): the drains begun.
        let firstPages = Atomic<Int>(0)
    }

    let base: Base
    let tracker: Tracker

    func fetch(_ request: PageRequest) async throws -> Page {
        tracker.started.add(1, ordering: .relaxed)
        if request.token == nil { tracker.firstPages.add(1, ordering: .relaxed) }
        tracker.inFlight.add(1, ordering: .relaxed)
        defer { tracker.inFlight.subtract(1, ordering: .relaxed) }
        return try await base.fetch(request)
    }
}
