// The drains the pager benchmarks time, without package-benchmark: the PagerBenchmarks
// target uses them, and Benchmarks/loadall-driver/run.sh compiles this file into its driver.

import PagebenchPager
import PagebenchStore

/// The store as a page source (the pager library knows no store; this is the adapter).
struct StoreSource: PageSource {
    let store: SyntheticStore
    func fetch(_ request: PageRequest) async throws -> Page { try await store.page(request) }
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
        value = (value &* 0x100_0000_01B3) ^ item.fingerprint
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
    var checksum = Checksum()
    var request = PageRequest(range: .scan, limit: limit)
    while true {
        let page = try await store.page(request)
        checksum.add(page)
        guard let token = page.nextToken else { return checksum }
        request.token = token
    }
}

/// The bare loop that also keeps every page, as `loadAll` must (P8): the fair floor for
/// the Apollo-style pager (issue 12: against the plain bare loop the ratio measured the page
/// faults of holding every page, not the pager).
func bareLoopKeepingPages(_ store: SyntheticStore, limit: Int) async throws -> Checksum {
    var pages: [Page] = []
    var request = PageRequest(range: .scan, limit: limit)
    while true {
        let page = try await store.page(request)
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
