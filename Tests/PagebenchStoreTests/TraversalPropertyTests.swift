import PagebenchBase
import PagebenchPage
import Testing

@testable import PagebenchStore

/// Property-based traversal (S2–S7, S10–S15): thousands of random configurations × limits ×
/// budgets × directions × ranges × filters, each fully paged and compared with the
/// unpaginated result. The generator is seeded, so a failure names a reproducible case.
@Suite struct TraversalPropertyTests {
    static let cases = 3000

    struct Case: CustomStringConvertible {
        var configuration: StoreConfiguration
        var request: PageRequest
        var description: String { "\(configuration.canonicalText) request=\(request)" }
    }

    static func randomCase(_ random: inout SplitMix64) -> Case {
        let partitions = Int.random(in: 1...5, using: &random)
        let itemsPerPartition: ItemsPerPartition =
            Bool.random(using: &random)
            ? .uniform(Int.random(in: 0...40, using: &random))
            : .zipf(mean: Int.random(in: 0...30, using: &random), exponent: Double.random(in: 0...2, using: &random))
        let size: ItemSizeDistribution
        switch Int.random(in: 0..<3, using: &random) {
        case 0: size = .fixed(Int.random(in: 1...500, using: &random))
        case 1:
            let low = Int.random(in: 1...300, using: &random)
            size = .uniform(min: low, max: low + Int.random(in: 0...2000, using: &random))
        default:
            size = .lognormal(
                median: Int.random(in: 10...400, using: &random),
                sigma: Double.random(in: 0...2, using: &random),
                min: 1,
                max: 5000
            )
        }
        let clustering: Clustering = [.even, .random, .runs(length: Int.random(in: 1...20, using: &random))]
            .randomElement(using: &random)!
        let configuration = StoreConfiguration(
            partitions: partitions,
            itemsPerPartition: itemsPerPartition,
            itemSize: size,
            selectivity: [0, 0.05, 0.3, 0.9, 1].randomElement(using: &random)!,
            clustering: clustering,
            scanBudgetBytes: [1, 50, 300, 1000, 4000, 1_048_576].randomElement(using: &random)!,
            budgetBoundary: Bool.random(using: &random) ? .exclusive : .inclusive,
            exactEnd: Bool.random(using: &random) ? .continuation : .final,
            tokenPolicy: Bool.random(using: &random) ? .strict : .lenient,
            seed: random.next()
        )
        let range: ScanRange
        switch Int.random(in: 0..<3, using: &random) {
        case 0: range = .partition(Int.random(in: 0..<partitions, using: &random))
        case 1: range = .scan
        default:
            let total = Int.random(in: 1...9, using: &random)
            range = .segment(index: Int.random(in: 0..<total, using: &random), total: total)
        }
        let filter: Filter? = [nil, .matching, .categoryNotEquals(0), .sizeAtLeast(200), .categoryEquals(99)]
            .randomElement(using: &random)!
        let limit: Int? = [nil, 1, 2, 3, 10, 1000].randomElement(using: &random)!
        return Case(
            configuration: configuration,
            request: PageRequest(range: range, reverse: Bool.random(using: &random), limit: limit, filter: filter)
        )
    }

    @Test func randomTraversalsMatchTheUnpaginatedResult() throws {
        var random = SplitMix64(seed: 0x5EED)
        var emptyPagesSeen = 0
        for _ in 0..<Self.cases {
            let testCase = Self.randomCase(&random)
            let store = try SyntheticStore(configuration: testCase.configuration)
            let request = testCase.request
            let limit = request.limit ?? 10
            let listing = Array(try store.listing(in: request.range, filter: request.filter, reverse: request.reverse))
            let pages = try drain(store, request, maxPages: listing.count + 2)
            let budget = testCase.configuration.scanBudgetBytes

            var offset = 0
            var failed = false
            for (index, page) in pages.enumerated() {
                let evaluated = listing[offset..<offset + page.scannedCount]
                failed = failed || page.returnedCount > page.scannedCount || page.scannedCount > limit
                failed = failed || page.items != evaluated.filter(\.matches).map(\.item)
                failed = failed || page.scannedBytes != evaluated.reduce(0) { $0 + $1.item.sizeBytes }
                if request.filter == nil { failed = failed || page.returnedCount != page.scannedCount }
                if testCase.configuration.budgetBoundary == .exclusive {
                    failed = failed || (page.scannedBytes > budget && page.scannedCount > 1)
                } else if let last = evaluated.last {
                    failed = failed || page.scannedBytes - last.item.sizeBytes >= budget
                }
                // Only the last page has no token; a zero-scanned page is only the S6 tail or an empty range.
                failed = failed || (page.nextToken == nil) != (index == pages.count - 1)
                if page.scannedCount == 0 {
                    failed = failed || index != pages.count - 1
                    failed = failed || (!listing.isEmpty && testCase.configuration.exactEnd == .final)
                }
                if page.isEmptyWithToken { emptyPagesSeen += 1 }
                offset += page.scannedCount
            }
            failed = failed || offset != listing.count  // S11: Σ scanned = items in range
            failed =
                failed
                || pages.flatMap(\.items)
                    != Array(
                        store.items(in: request.range, filter: request.filter, reverse: request.reverse)
                    )
            #expect(!failed, "traversal property violated for \(testCase)")
            if failed { return }
        }
        #expect(emptyPagesSeen > 0)  // the generator does produce S3 empty pages
    }

    /// The store writes a page's items into a 24-item stack buffer and, for larger pages, into
    /// an array reserved for at most 4096 items: pages around and beyond both sizes, in the
    /// default configuration's own scan loop (log-normal sizes, even matches, exclusive
    /// boundary) and in the general one, must still return exactly the unpaginated items
    /// (S2, S10, S11).
    @Test(arguments: [
        ItemSizeDistribution.lognormal(median: 64, sigma: 0.5, min: 16, max: 1024), .fixed(10),
    ])
    func pagesLargerThanTheResultBuffersMatchTheUnpaginatedResult(size: ItemSizeDistribution) throws {
        for boundary in [BudgetBoundary.exclusive, .inclusive] {
            let store = try smallStore(partitions: 3, items: 4000, size: size, boundary: boundary, selectivity: 0.6)
            for filter in [nil, Filter.matching, .categoryNotEquals(0)] {
                for limit in [23, 24, 25, 48, 49, 5000] {
                    for reverse in [false, true] {
                        let request = PageRequest(range: .scan, reverse: reverse, limit: limit, filter: filter)
                        let pages = try drain(store, request, maxPages: 12_002)
                        let expected = Array(store.items(in: .scan, filter: filter, reverse: reverse))
                        #expect(
                            pages.flatMap(\.items) == expected,
                            "\(boundary) \(String(describing: filter)) limit \(limit)"
                        )
                        #expect(pages.reduce(0) { $0 + $1.scannedCount } == 12_000)
                        #expect(pages.allSatisfy { $0.scannedCount <= limit && $0.returnedCount <= $0.scannedCount })
                    }
                }
            }
        }
        // The large limit does fill more than 4096 items into one page.
        let store = try smallStore(partitions: 3, items: 4000, size: size)
        #expect(try store.evaluatePage(PageRequest(range: .scan, limit: 5000)).returnedCount == 5000)
    }

    @Test func reverseTraversalIsTheForwardOneReversed() throws {
        var random = SplitMix64(seed: 0xBAC4)
        for _ in 0..<300 {
            let testCase = Self.randomCase(&random)
            let store = try SyntheticStore(configuration: testCase.configuration)
            var forward = testCase.request
            forward.reverse = false
            var backward = forward
            backward.reverse = true
            let forwardItems = try drain(store, forward).flatMap(\.items)
            #expect(try drain(store, backward).flatMap(\.items) == Array(forwardItems.reversed()), "\(testCase)")
        }
    }

    @Test func segmentsPartitionTheScan() throws {
        var random = SplitMix64(seed: 0x5E6)
        for _ in 0..<300 {
            let testCase = Self.randomCase(&random)
            let store = try SyntheticStore(configuration: testCase.configuration)
            let total = Int.random(in: 1...12, using: &random)
            var request = testCase.request
            request.range = .scan
            let scan = try drain(store, request).flatMap(\.items)
            var union: [Item] = []
            for index in 0..<total {
                request.range = .segment(index: index, total: total)
                union += try drain(store, request).flatMap(\.items)
            }
            #expect((request.reverse ? [] : union) == (request.reverse ? [] : scan), "\(testCase)")
            #expect(Set(union) == Set(scan) && union.count == scan.count, "\(testCase)")
        }
    }
}
