import PagebenchBase
import PagebenchHarness
import PagebenchPage
import PagebenchPager
import PagebenchStore
import PagebenchTestSupport
import Testing

/// The pagers against the real synthetic store (docs/contract.md P7, P8, P15 with S3, S6, S10):
/// loadAll and the streaming pager each collect exactly the unpaginated filtered result.
@Suite(.timeLimit(.minutes(5)))
struct StorePagingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var configuration: StoreConfiguration
        var request: PageRequest
        var testDescription: String {
            "seed \(configuration.seed) \(request.range) reverse \(request.reverse) limit \(request.limit.map(String.init) ?? "nil") "
                + "filter \(request.filter.map { "\($0)" } ?? "none") budget \(configuration.scanBudgetBytes) "
                + "\(configuration.clustering) \(configuration.exactEnd) \(configuration.budgetBoundary)"
        }
    }

    /// Deterministic pseudo-random configurations (own SplitMix64, never `Hasher`).
    static let randomCases: [Case] = {
        var random = TestRandom(seed: 0x5EED)
        return (0..<16).map { _ in
            let partitions = random.int(in: 1...5)
            let configuration = StoreConfiguration(
                partitions: partitions,
                itemsPerPartition: .uniform(random.int(in: 0...120)),
                itemSize: .uniform(min: 64, max: 2_048),
                selectivity: [0.02, 0.1, 0.5, 1][random.int(in: 0...3)],
                clustering: [.even, .random, .runs(length: 40)][random.int(in: 0...2)],
                scanBudgetBytes: [4_096, 16_384, 1_048_576][random.int(in: 0...2)],
                budgetBoundary: random.int(in: 0...1) == 0 ? .exclusive : .inclusive,
                exactEnd: random.int(in: 0...1) == 0 ? .continuation : .final,
                seed: random.next()
            )
            let ranges: [ScanRange] = [.scan, .partition(random.int(in: 0..<partitions)), .segment(index: 1, total: 3)]
            let request = PageRequest(
                range: ranges[random.int(in: 0...2)],
                reverse: random.int(in: 0...1) == 1,
                limit: [1, 2, 7, 10, 1_000][random.int(in: 0...4)],
                filter: [nil, .matching, .categoryEquals(0), .sizeAtLeast(1_024)][random.int(in: 0...3)]
            )
            return Case(configuration: configuration, request: request)
        }
    }()

    /// A store where a rare, clustered filter leaves long runs of empty pages.
    static let emptyRunsCase = Case(
        configuration: StoreConfiguration(
            partitions: 2,
            itemsPerPartition: .uniform(400),
            itemSize: .fixed(256),
            selectivity: 0.02,
            clustering: .runs(length: 4),
            scanBudgetBytes: 1_048_576,
            seed: 7
        ),
        request: PageRequest(range: .scan, limit: 3, filter: .matching)
    )

    /// A partition whose size is a multiple of the limit: the last page is the exact-end
    /// empty page of S6 (zero items, zero scanned, nil token).
    static let exactEndCase = Case(
        configuration: StoreConfiguration(
            partitions: 3,
            itemsPerPartition: .uniform(60),
            itemSize: .fixed(128),
            exactEnd: .continuation,
            seed: 11
        ),
        request: PageRequest(range: .partition(1), limit: 10)
    )

    static func expectedItems(_ store: SyntheticStore, _ request: PageRequest) -> [Item] {
        Array(store.items(in: request.range, filter: request.filter, reverse: request.reverse))
    }

    @Test(arguments: randomCases + [emptyRunsCase, exactEndCase])
    func p8LoadAllCollectsExactlyTheUnpaginatedResult(_ testCase: Case) async throws {
        let store = try SyntheticStore(configuration: testCase.configuration)
        let source = StoreSource(store: store)
        let pager = source.queryPager(testCase.request)
        try await pager.loadAll()
        let output = try #require(pager.output)
        #expect(output.allPages.flatMap(\.items) == Self.expectedItems(store, testCase.request))
        #expect(pager.counters.requests == output.pageCount)
        #expect(!pager.canLoadNext)
    }

    @Test(arguments: randomCases + [emptyRunsCase, exactEndCase])
    func p15StreamCollectsExactlyTheUnpaginatedResult(_ testCase: Case) async throws {
        let store = try SyntheticStore(configuration: testCase.configuration)
        let source = StoreSource(store: store)
        var items: [Item] = []
        let stream = source.pageStream(testCase.request)
        for try await page in stream {
            items.append(contentsOf: page.items)
        }
        #expect(items == Self.expectedItems(store, testCase.request))

        var flattened: [Item] = []
        for try await item in source.pageStream(testCase.request).items(\.items) {
            flattened.append(item)
        }
        #expect(flattened == items)
    }

    @Test func p7LongRunsOfEmptyPagesAreFollowed() async throws {
        let store = try SyntheticStore(configuration: Self.emptyRunsCase.configuration)
        let request = Self.emptyRunsCase.request
        var pages: [Page] = []
        for try await page in StoreSource(store: store).pageStream(request) {
            pages.append(page)
        }
        // The case really exercises runs of empty pages.
        var longestRun = 0
        var run = 0
        for page in pages {
            run = page.isEmptyWithToken ? run + 1 : 0
            longestRun = max(longestRun, run)
        }
        #expect(longestRun >= 10)
        #expect(pages.flatMap(\.items) == Self.expectedItems(store, request))
        #expect(!Self.expectedItems(store, request).isEmpty)
    }

    @Test func p7ExactEndEmptyPageEndsBothPagers() async throws {
        let store = try SyntheticStore(configuration: Self.exactEndCase.configuration)
        let request = Self.exactEndCase.request
        let source = StoreSource(store: store)
        var pages: [Page] = []
        for try await page in source.pageStream(request) {
            pages.append(page)
        }
        let last = try #require(pages.last)
        #expect(last.items.isEmpty && last.scannedCount == 0 && last.nextToken == nil)
        #expect(pages.count == 60 / 10 + 1)

        let pager = source.queryPager(request)
        try await pager.loadAll()
        #expect(pager.output?.pageCount == pages.count)
        #expect(pager.output?.allPages.last == last)
    }

    @Test func p13CancellingDuringStoreServiceTimeStopsPromptly() async throws {
        // A service time far longer than any test: only cancellation can end the wait.
        var configuration = StoreConfiguration(partitions: 1, itemsPerPartition: .uniform(50), seed: 3)
        configuration.serviceTime = ServiceTimeModel(base: .fixed(nanoseconds: 3_600_000_000_000))
        let store = try SyntheticStore(configuration: configuration)
        let pager = StoreSource(store: store).queryPager(PageRequest(range: .scan, limit: 5))
        let load = Task { try await pager.loadAll() }
        while pager.counters.requests == 0 { await Task.yield() }
        load.cancel()
        #expect(await load.result.failure is CancellationError)
        #expect(!pager.isLoading)
        #expect(pager.output == nil)
    }

    @Test func retryPolicyRetriesStoreThrottling() async throws {
        var configuration = StoreConfiguration(partitions: 2, itemsPerPartition: .uniform(100), seed: 5)
        configuration.throttleRate = 0.3
        let store = try SyntheticStore(configuration: configuration)
        let request = PageRequest(range: .scan, limit: 7)
        var policy = StoreSource.retryPolicy(maxRetries: 50, seed: 9)
        policy.sleep = { _ in }
        let stream = StoreSource(store: store).pageStream(request, retryPolicy: policy)
        var items: [Item] = []
        for try await page in stream { items.append(contentsOf: page.items) }
        #expect(items == Self.expectedItems(store, request))
        #expect(stream.counters.retries > 0)
        #expect(stream.counters.requests == stream.counters.pages + stream.counters.retries)
    }
}

/// SplitMix64 for deterministic test cases.
typealias TestRandom = SplitMix64

extension SplitMix64 {
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
    mutating func int(in range: Range<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}
