// The drains the pager benchmarks time, without package-benchmark: the PagerBenchmarks
// target uses them, and Benchmarks/loadall-driver/run.sh compiles this file into its driver.

import PagebenchPage
import PagebenchPager
import PagebenchStore

/// The store as a page source (the pager library knows no store; this is the adapter).
///
/// Like the harness's `StoreSource`, it answers at once when the store has no service time
/// (the default store): `page(_:)`'s cancellation check and evaluation, as a plain call. Every
/// drain below asks for its pages that way, the bare loops too, so that all of them pay the
/// same per-page store call and the ratios compare the pagers, not two ways of calling the
/// store (results/apollo-loadall-fair.md).
struct StoreSource: PageSource {
    let store: SyntheticStore
    let servesWithoutWaiting: Bool

    init(store: SyntheticStore) {
        self.store = store
        self.servesWithoutWaiting = store.servesWithoutWaiting
    }

    func fetch(_ request: PageRequest) async throws -> Page { try await store.page(request) }

    func fetchWithoutWaiting(_ request: PageRequest) throws -> Page? {
        guard servesWithoutWaiting else { return nil }
        try Task.checkCancellation()
        return try store.evaluatePage(request)
    }

    /// A page as the bare loops ask for it: at once if the store answers at once, as the
    /// pagers do, awaited otherwise. Always inlined into the loops: an async call per page
    /// would cost them what the pagers avoid.
    @inline(__always)
    func page(_ request: PageRequest) async throws -> Page {
        if let page = try fetchWithoutWaiting(request) { return page }
        return try await fetch(request)
    }
}

/// Order-sensitive checksum of a drain: items and pages.
struct Checksum: Equatable {
    var value: UInt64 = 0
    var items = 0
    var pages = 0

    mutating func add(_ page: Page) {
        pages += 1
        for item in page.items { add(item) }
    }

    mutating func add(_ item: Item) {
        items += 1
        value = (value &* 0x100_0000_01B3) ^ (item.attributes?.fingerprint ?? 0)
    }
}

func makeStore(itemsPerPartition: Int) -> SyntheticStore {
    // The default store; the memory benchmarks vary only the item count.
    var configuration = StoreConfiguration.default
    configuration.itemsPerPartition = .uniform(itemsPerPartition)
    do {
        return try SyntheticStore(configuration: configuration)
    } catch {
        fatalError("benchmark store configuration rejected: \(error)")
    }
}

/// What a full drain must produce, from the unpaginated listing (S10, S11).
func expectedChecksum(_ store: SyntheticStore) -> Checksum {
    var checksum = Checksum()
    for item in store.items(in: .scan, filter: nil, reverse: false) { checksum.add(item) }
    return checksum
}

func check(_ checksum: Checksum, against expected: Checksum, _ name: String) {
    precondition(
        checksum.value == expected.value && checksum.items == expected.items,
        "\(name): drained \(checksum.items) items with checksum \(checksum.value), expected \(expected.items) / \(expected.value)"
    )
}

func bareLoop(_ store: SyntheticStore, limit: Int) async throws -> Checksum {
    let source = StoreSource(store: store)
    var checksum = Checksum()
    var request = PageRequest(range: .scan, limit: limit)
    while true {
        let page = try await source.page(request)
        checksum.add(page)
        guard let token = page.nextToken else { return checksum }
        request.token = token
    }
}

/// The bare loop that also keeps every page, as `loadAll` must (P8): the fair floor for
/// the Apollo-style pager (issue 12: against the plain bare loop the ratio measured the page
/// faults of holding every page, not the pager).
func bareLoopKeepingPages(_ store: SyntheticStore, limit: Int) async throws -> Checksum {
    let source = StoreSource(store: store)
    var pages: [Page] = []
    var request = PageRequest(range: .scan, limit: limit)
    while true {
        let page = try await source.page(request)
        pages.append(page)
        guard let token = page.nextToken else { break }
        request.token = token
    }
    var checksum = Checksum()
    for page in pages { checksum.add(page) }
    return checksum
}

func streamingPager(_ store: SyntheticStore, limit: Int) async throws -> Checksum {
    let request = PageRequest(range: .scan, limit: limit)
    let stream = PageStream(
        source: StoreSource(store: store),
        initialRequest: request,
        extractPageInfo: { CursorBasedPagination.Forward(nextToken: $0.nextToken) },
        pageResolver: { info, _ in info.endCursor.map { request.with(token: $0) } }
    )
    var checksum = Checksum()
    for try await page in stream { checksum.add(page) }
    precondition(stream.counters.pages == checksum.pages && stream.counters.requests == checksum.pages)
    return checksum
}

func apolloPager(_ store: SyntheticStore, limit: Int) async throws -> Checksum {
    let request = PageRequest(range: .scan, limit: limit)
    let source = StoreSource(store: store)
    let pager = QueryPager(
        source: source,
        initialRequest: request,
        extractPageInfo: { CursorBasedPagination.Forward(nextToken: $0.nextToken) },
        pageResolver: { info, _ in info.endCursor.map { request.with(token: $0) } }
    )
    try await pager.loadAll()
    guard let output = pager.output else { fatalError("loadAll returned without an output") }
    var checksum = Checksum()
    for page in output.previousPages { checksum.add(page) }
    checksum.add(output.initialPage)
    for page in output.nextPages { checksum.add(page) }
    precondition(pager.counters.requests == checksum.pages)
    return checksum
}
