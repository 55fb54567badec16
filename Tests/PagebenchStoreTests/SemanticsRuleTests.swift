import PagebenchPage
import Testing

@testable import PagebenchStore

/// One test per store rule of docs/contract.md (S1–S19), named after it.
@Suite struct SemanticsRuleTests {
    @Test func s1AbsentLimitBehavesLikeTenAndLimitBelowOneIsRejected() throws {
        let store = try smallStore()
        #expect(store.configuration.defaultLimit == 10)
        let absent = try store.evaluatePage(PageRequest(range: .scan))
        let ten = try store.evaluatePage(PageRequest(range: .scan, limit: 10))
        #expect(absent == ten)
        #expect(absent.scannedCount == 10)
        // The continuation is interchangeable too.
        let next = try store.evaluatePage(PageRequest(range: .scan, limit: 10, token: absent.nextToken))
        #expect(next == (try store.evaluatePage(PageRequest(range: .scan, token: ten.nextToken))))
        for bad in [0, -1, Int.min] {
            let error = storeError { _ = try store.evaluatePage(PageRequest(range: .scan, limit: bad)) }
            #expect(error?.code == .invalidLimit)
            #expect(error?.message.contains("limit \(bad)") == true)
        }
    }

    @Test func s2LimitCountsEvaluatedItemsNotReturnedItems() throws {
        let store = try smallStore(selectivity: 0.3)
        for limit in [1, 3, 10] {
            let pages = try drain(store, PageRequest(range: .scan, limit: limit, filter: .matching))
            #expect(pages.allSatisfy { $0.returnedCount <= $0.scannedCount && $0.scannedCount <= limit })
            // Some pages evaluate `limit` items and return fewer.
            #expect(pages.contains { $0.scannedCount == limit && $0.returnedCount < limit })
        }
    }

    @Test func s3BudgetIsChargedBeforeTheFilterSoEmptyPagesCarryTokens() throws {
        let store = try smallStore(items: 50, budget: 1000)
        let page = try store.evaluatePage(PageRequest(range: .scan, limit: 1000, filter: .categoryEquals(99)))
        #expect(page.items.isEmpty)
        #expect(page.scannedCount == 10)  // 10 × 100 bytes = the budget
        #expect(page.scannedBytes == 1000)
        #expect(page.nextToken != nil)
        #expect(page.isEmptyWithToken)
    }

    @Test func s4PageStopsAtLimitOrBudgetByTheBoundaryRule() throws {
        // Exclusive: 250-byte budget, 100-byte items → 2 items (200 bytes) per page.
        let exclusive = try smallStore(partitions: 1, items: 7, budget: 250, boundary: .exclusive)
        let exclusivePages = try drain(exclusive, PageRequest(range: .scan, limit: 100))
        #expect(exclusivePages.map(\.scannedCount) == [2, 2, 2, 1])
        #expect(exclusivePages.allSatisfy { $0.scannedBytes <= 250 })
        // Inclusive: the crossing item is evaluated → 3 items (300 bytes).
        let inclusive = try smallStore(partitions: 1, items: 7, budget: 250, boundary: .inclusive)
        #expect(try drain(inclusive, PageRequest(range: .scan, limit: 100)).map(\.scannedCount) == [3, 3, 1])
        // Limit first when it comes first.
        #expect(
            try drain(exclusive, PageRequest(range: .scan, limit: 1)).map(\.scannedCount) == Array(
                repeating: 1,
                count: 7
            ) + [0]
        )  // S6: a final empty page
        // An item larger than the whole budget is evaluated alone and the scan never stalls.
        let oversized = try smallStore(partitions: 2, items: 3, size: .fixed(5000), budget: 1000)
        let pages = try drain(oversized, PageRequest(range: .scan, limit: 10))
        #expect(pages.map(\.scannedCount) == Array(repeating: 1, count: 6))
        #expect(pages.allSatisfy { $0.scannedBytes == 5000 })
        // Mixed sizes: a big item inside a run of small ones starts its own page.
        let mixed = try smallStore(partitions: 1, items: 200, size: .uniform(min: 1, max: 3000), budget: 1500)
        for page in try drain(mixed, PageRequest(range: .scan, limit: 1000)) {
            #expect(page.scannedBytes <= 1500 || page.scannedCount == 1)
        }
    }

    @Test func s5NextTokenIsNilExactlyWhenTheRangeIsExhaustedAndThePageWasNotCut() throws {
        let store = try smallStore(partitions: 1, items: 25)
        let pages = try drain(store, PageRequest(range: .partition(0), limit: 10))
        #expect(pages.map(\.scannedCount) == [10, 10, 5])
        #expect(pages.map { $0.nextToken != nil } == [true, true, false])
        // Cut by budget before the end: a token, even though the limit was not reached.
        let budgeted = try smallStore(partitions: 1, items: 25, budget: 500)
        let first = try budgeted.evaluatePage(PageRequest(range: .partition(0), limit: 100))
        #expect(first.scannedCount == 5)
        #expect(first.nextToken != nil)
    }

    @Test func s6ExactEndContinuationReturnsATokenThenAnEmptyFinalPage() throws {
        let continuation = try smallStore(partitions: 1, items: 20, exactEnd: .continuation)
        let pages = try drain(continuation, PageRequest(range: .partition(0), limit: 10))
        #expect(pages.count == 3)
        #expect(pages[1].nextToken != nil)
        #expect(pages[2].items.isEmpty && pages[2].scannedCount == 0 && pages[2].scannedBytes == 0)
        #expect(pages[2].nextToken == nil)

        let final = try smallStore(partitions: 1, items: 20, exactEnd: .final)
        let finalPages = try drain(final, PageRequest(range: .partition(0), limit: 10))
        #expect(finalPages.count == 2)
        #expect(finalPages[1].scannedCount == 10 && finalPages[1].nextToken == nil)
    }

    @Test func s7WithoutAFilterReturnedEqualsScanned() throws {
        let store = try smallStore(size: .uniform(min: 10, max: 400), budget: 1000)
        for limit in [1, 7, 50] {
            for page in try drain(store, PageRequest(range: .scan, limit: limit)) {
                #expect(page.returnedCount == page.scannedCount)
            }
        }
    }

    @Test func s8PagesAreDeterministic() throws {
        let configuration = StoreConfiguration(partitions: 4, itemsPerPartition: .uniform(300), seed: 99)
        let a = try SyntheticStore(configuration: configuration)
        let b = try SyntheticStore(configuration: configuration)
        var request = PageRequest(range: .scan, limit: 37, filter: .sizeAtLeast(300))
        for _ in 0..<10 {
            let page = try a.evaluatePage(request)
            #expect(page == (try a.evaluatePage(request)))  // same store, same request
            #expect(page == (try b.evaluatePage(request)))  // another instance, same configuration
            #expect(
                page.items.map { $0.payload?.checksum() }
                    == (try b.evaluatePage(request)).items.map { $0.payload?.checksum() }
            )
            request.token = page.nextToken
        }
        // A different seed gives different data.
        var other = configuration
        other.seed = 100
        let first = try a.evaluatePage(PageRequest(range: .scan, limit: 20))
        #expect(
            first.items
                != (try SyntheticStore(configuration: other).evaluatePage(PageRequest(range: .scan, limit: 20))).items
        )
    }

    @Test func s9PagesReportScannedCountScannedBytesAndReturnedCount() throws {
        let store = try smallStore(size: .uniform(min: 50, max: 500), budget: 2000)
        let listing = Array(try store.listing(in: .scan, filter: .matching, reverse: false))
        var offset = 0
        for page in try drain(store, PageRequest(range: .scan, limit: 9, filter: .matching)) {
            let evaluated = listing[offset..<offset + page.scannedCount]
            #expect(page.scannedBytes == evaluated.reduce(0) { $0 + $1.item.sizeBytes })
            #expect(page.returnedCount == page.items.count)
            #expect(page.returnedCount == evaluated.filter(\.matches).count)
            offset += page.scannedCount
        }
        #expect(offset == listing.count)
    }

    @Test(arguments: [1, 2, 10, 1000])
    func s10FollowingTokensReturnsEveryMatchingItemOnceInOrder(limit: Int) throws {
        for budget in [150, 1000, 1_048_576] {
            let store = try smallStore(partitions: 4, items: 30, size: .uniform(min: 20, max: 200), budget: budget)
            for filter in [nil, Filter.matching, .sizeAtMost(100)] {
                let pages = try drain(store, PageRequest(range: .scan, limit: limit, filter: filter))
                let expected = Array(store.items(in: .scan, filter: filter, reverse: false))
                #expect(pages.flatMap(\.items) == expected)
                #expect(Set(expected.map { [$0.partition, Int($0.sortKey)] }).count == expected.count)
            }
        }
    }

    @Test func s11ScannedSumsToTheItemsInRangeAndPagesConcatenateToTheUnpaginatedResult() throws {
        let store = try smallStore(partitions: 5, items: 17, size: .uniform(min: 1, max: 300), budget: 700)
        for range in [ScanRange.scan, .partition(2), .segment(index: 1, total: 3)] {
            let pages = try drain(store, PageRequest(range: range, limit: 6, filter: .matching))
            #expect(pages.reduce(0) { $0 + $1.scannedCount } == (try store.itemCount(in: range)))
            #expect(pages.flatMap(\.items) == Array(store.items(in: range, filter: .matching, reverse: false)))
        }
    }

    @Test func s12TokensAreExclusive() throws {
        let store = try smallStore(partitions: 2, items: 23)
        let listing = Array(try store.listing(in: .scan, filter: nil, reverse: false)).map(\.item)
        var offset = 0
        for page in try drain(store, PageRequest(range: .scan, limit: 4)) {
            // Page n+1 starts right after page n's last evaluated item: no repeats, no gaps.
            #expect(page.items == Array(listing[offset..<offset + page.scannedCount]))
            offset += page.scannedCount
        }
        #expect(offset == listing.count)
    }

    @Test func s13ReverseYieldsTheExactReverseSequenceWithItsOwnTokens() throws {
        let store = try smallStore(partitions: 3, items: 21, size: .uniform(min: 10, max: 90), budget: 400)
        for range in [ScanRange.scan, .partition(1), .segment(index: 0, total: 2)] {
            let forward = try drain(store, PageRequest(range: range, limit: 8, filter: .matching)).flatMap(\.items)
            let backward = try drain(store, PageRequest(range: range, reverse: true, limit: 8, filter: .matching))
            #expect(backward.flatMap(\.items) == Array(forward.reversed()))
            #expect(Array(store.items(in: range, filter: .matching, reverse: true)) == Array(forward.reversed()))
        }
        let reverseToken = try store.evaluatePage(PageRequest(range: .scan, reverse: true, limit: 3)).nextToken
        let error = storeError { _ = try store.evaluatePage(PageRequest(range: .scan, limit: 3, token: reverseToken)) }
        #expect(error?.code == .tokenMismatch)
        #expect(error?.message.contains("direction was reverse, now forward") == true)
    }

    @Test func s14AQueryStaysInItsPartitionAndAScanCrossesPartitions() throws {
        let store = try smallStore(partitions: 4, items: 13)
        let query = try drain(store, PageRequest(range: .partition(2), limit: 5)).flatMap(\.items)
        #expect(query.count == 13)
        #expect(query.allSatisfy { $0.partition == 2 })
        let scanPages = try drain(store, PageRequest(range: .scan, limit: 5))
        #expect(scanPages.contains { Set($0.items.map(\.partition)).count > 1 })
        #expect(scanPages.flatMap(\.items).map(\.partition) == (0..<4).flatMap { Array(repeating: $0, count: 13) })
        for bad in [-1, 4, Int.max] {
            let error = storeError { _ = try store.evaluatePage(PageRequest(range: .partition(bad))) }
            #expect(error?.code == .unknownPartition)
            #expect(error?.message.contains("partitions 0 to 3") == true)
        }
    }

    @Test func s15SegmentsAreDisjointTheirUnionIsTheScanAndMayBeEmpty() throws {
        let store = try smallStore(partitions: 3, items: 7)
        let scan = try drain(store, PageRequest(range: .scan, limit: 4)).flatMap(\.items)
        for total in [1, 2, 5, 21] {
            let union = try (0..<total).flatMap { index in
                try drain(store, PageRequest(range: .segment(index: index, total: total), limit: 4)).flatMap(\.items)
            }
            #expect(union == scan)
        }
        // More segments than items: some segments are empty on the first call.
        let tiny = try smallStore(partitions: 1, items: 3)
        let empties = try (0..<8).map { try tiny.evaluatePage(PageRequest(range: .segment(index: $0, total: 8))) }
            .filter { $0.scannedCount == 0 }
        #expect(empties.count == 5)
        #expect(empties.allSatisfy { $0.items.isEmpty && $0.nextToken == nil })
        for (index, total) in [(4, 4), (-1, 4), (0, 0), (0, -2)] {
            let error = storeError {
                _ = try store.evaluatePage(PageRequest(range: .segment(index: index, total: total)))
            }
            #expect(error?.code == .invalidSegment)
            #expect(error?.message.contains("segment \(index) of \(total)") == true)
        }
    }

    @Test func s16TokensAreOpaqueVersionedURLSafeTextThatResumeWithoutServerState() throws {
        let configuration = StoreConfiguration(partitions: 2, itemsPerPartition: .uniform(50))
        let issuer = try SyntheticStore(configuration: configuration)
        let first = try issuer.evaluatePage(PageRequest(range: .scan, limit: 7))
        let token = try #require(first.nextToken)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        #expect(token.allSatisfy(alphabet.contains))
        #expect(token.count == PageToken.textCount)
        #expect(try PageToken.decode(token, key: issuer.tokenKey).lastPosition == 6)
        // A fresh store instance (no shared state) continues where the first left off.
        let resumer = try SyntheticStore(configuration: configuration)
        let second = try resumer.evaluatePage(PageRequest(range: .scan, limit: 7, token: token))
        #expect(second.items.first?.sortKey == 7)
    }

    @Test func s17MalformedTruncatedForgedOrTamperedTokensAreRejected() throws {
        let store = try smallStore()
        let token = try #require(try store.evaluatePage(PageRequest(range: .scan, limit: 5)).nextToken)
        let request = PageRequest(range: .scan, limit: 5)
        var tampered = Array(token.utf8)
        tampered[20] = tampered[20] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        for bad in ["", "garbage", String(token.dropLast()), token + "A", String(decoding: tampered, as: UTF8.self)] {
            let error = storeError { _ = try store.evaluatePage(request.with(token: bad)) }
            #expect(error?.code == .invalidToken, "token \(bad)")
        }
    }

    @Test func s18TokensAreBoundToTheRequestAndMismatchesNameWhatChanged() throws {
        let strict = try smallStore(policy: .strict)
        let request = PageRequest(range: .partition(1), limit: 8, filter: .matching)
        let token = try #require(try strict.evaluatePage(request).nextToken)
        func message(_ changed: PageRequest, _ store: SyntheticStore) -> StoreError? {
            storeError { _ = try store.evaluatePage(changed.with(token: token)) }
        }
        var changed = request
        changed.limit = 10
        #expect(message(changed, strict)?.message.contains("limit was 8, now 10") == true)
        changed = request
        changed.filter = nil
        #expect(message(changed, strict)?.message.contains("filter was category=0, now none") == true)
        changed = request
        changed.range = .partition(2)
        #expect(message(changed, strict)?.message.contains("range was partition 1, now partition 2") == true)
        changed.limit = 3
        let both = message(changed, strict)
        #expect(both?.code == .tokenMismatch)
        #expect(both?.message.contains("range was partition 1, now partition 2; limit was 8, now 3") == true)

        // Lenient binds range and direction only.
        let lenient = try smallStore(policy: .lenient)
        let lenientToken = try #require(try lenient.evaluatePage(request).nextToken)
        var relaxed = request.with(token: lenientToken)
        relaxed.limit = 3
        relaxed.filter = nil
        let page = try lenient.evaluatePage(relaxed)
        #expect(page.scannedCount == 3 && page.items.first?.sortKey == 8)
        relaxed.reverse = true
        #expect(storeErrorCode { _ = try lenient.evaluatePage(relaxed) } == .tokenMismatch)

        // Store identity: another configuration's token does not verify.
        let other = try smallStore(seed: 2)
        #expect(storeErrorCode { _ = try other.evaluatePage(request.with(token: token)) } == .invalidToken)
    }

    @Test func s19AFirstCallWithAForeignTokenIsAnErrorNeverAFirstPage() throws {
        let store = try smallStore()
        let scanToken = try #require(try store.evaluatePage(PageRequest(range: .scan)).nextToken)
        for request in [
            PageRequest(range: .partition(0), token: scanToken),
            PageRequest(range: .segment(index: 0, total: 2), token: scanToken),
            PageRequest(range: .scan, reverse: true, token: scanToken),
            PageRequest(range: .scan, limit: 11, token: scanToken),
        ] {
            #expect(storeErrorCode { _ = try store.evaluatePage(request) } == .tokenMismatch)
        }
    }
}
