import Foundation
import PagebenchBase
import PagebenchPage
import PagebenchTestSupport
import Synchronization
import Testing

@testable import PagebenchStore

/// A small store with writes (S22) for rule tests.
func writesStore(
    partitions: Int = 3,
    items: Int = 25,
    size: ItemSizeDistribution = .fixed(100),
    budget: Int = 1_048_576,
    boundary: BudgetBoundary = .exclusive,
    exactEnd: ExactEnd = .continuation,
    selectivity: Double = 0.3,
    writes: WritesConfiguration,
    continuation: ContinuationMode = .keyset,
    seed: UInt64 = 1
) throws -> SyntheticStore {
    try SyntheticStore(
        configuration: StoreConfiguration(
            partitions: partitions,
            itemsPerPartition: .uniform(items),
            itemSize: size,
            selectivity: selectivity,
            scanBudgetBytes: budget,
            budgetBoundary: boundary,
            exactEnd: exactEnd,
            seed: seed,
            writes: writes,
            continuation: continuation
        )
    )
}

@Suite struct WritesConfigurationTests {
    @Test func aStoreWithoutWritesKeepsItsCanonicalTextAndHash() throws {
        // S22–S26 add nothing to a configuration that does not use them: hashes, tokens and
        // the CI baseline stay what they were.
        let plain = StoreConfiguration.default
        #expect(!plain.canonicalText.contains("writes=") && !plain.canonicalText.contains(";continuation="))
        #expect(plain.configurationHash == "\(StableHash.hex(StableHash.fnv1a64(plain.canonicalText)))")
        var keyset = plain
        keyset.continuation = .keyset
        #expect(keyset.configurationHash == plain.configurationHash)
        var offset = plain
        offset.continuation = .offset
        #expect(offset.configurationHash != plain.configurationHash)
        var written = plain
        written.writes = WritesConfiguration()
        #expect(written.configurationHash != plain.configurationHash)
    }

    @Test func writesDecodeFromJSONAndRoundTrip() throws {
        let json = """
            {"partitions": 4, "continuation": "offset",
             "writes": {"insertRate": 0.5, "deleteRate": 0.25, "per": "second", "position": "head",
                        "hotPartitions": [1, 3], "hotFraction": 0.75}}
            """
        let configuration = try StoreConfiguration.load(json: Data(json.utf8))
        #expect(configuration.continuation == .offset)
        #expect(
            configuration.writes
                == WritesConfiguration(
                    insertRate: 0.5,
                    deleteRate: 0.25,
                    updateRate: 0,
                    per: .second,
                    position: .head,
                    hotPartitions: [1, 3],
                    hotFraction: 0.75
                )
        )
        let again = try StoreConfiguration.load(json: Data(try configuration.jsonText().utf8))
        #expect(again == configuration)
    }

    @Test(arguments: [
        (#"{"writes": {"insertRat": 1}}"#, "writes.insertRat"),
        (#"{"writes": {"per": "minute"}}"#, "writes.per"),
        (#"{"writes": {"position": "middle"}}"#, "writes.position"),
        (#"{"writes": {"insertRate": -1}}"#, "insertRate"),
        (#"{"writes": {"deleteRate": 5000}}"#, "deleteRate"),
        (#"{"writes": {"hotPartitions": [64]}}"#, "hot partition 64"),
        (#"{"writes": {"hotFraction": 2}}"#, "hotFraction"),
        (#"{"continuation": "cursor"}"#, "continuation"),
        (#"{"partitions": 1, "itemsPerPartition": 1099511627776, "writes": {}}"#, "under writes"),
    ])
    func badWritesAreRefusedNamingTheField(json: String, named: String) {
        let error = storeError { _ = try StoreConfiguration.load(json: Data(json.utf8)) }
        #expect(error?.code == .invalidConfiguration, "\(json)")
        #expect(error?.message.contains(named) == true, "\(json): \(error?.message ?? "no error")")
    }
}

@Suite struct WritesStoreTests {
    // MARK: S24 without writes

    /// S24: without writes, keyset and offset continuation give identical pages (items,
    /// counts, where tokens are) on every configuration, range, limit, budget and direction.
    @Test func keysetAndOffsetPageAlikeWithoutWrites() throws {
        var random = SplitMix64(seed: 0x0FF5E7)
        for _ in 0..<400 {
            let testCase = TraversalPropertyTests.randomCase(&random)
            var offset = testCase.configuration
            offset.continuation = .offset
            let keyset = try drain(SyntheticStore(configuration: testCase.configuration), testCase.request)
            let offsets = try drain(SyntheticStore(configuration: offset), testCase.request)
            #expect(keyset.count == offsets.count, "\(testCase)")
            for (a, b) in zip(keyset, offsets) {
                #expect(
                    a.items == b.items && a.scannedCount == b.scannedCount && a.scannedBytes == b.scannedBytes
                        && (a.nextToken == nil) == (b.nextToken == nil),
                    "\(testCase)"
                )
            }
        }
    }

    /// S24 also holds for a store with writes configured before any write lands: both
    /// modes page the same items, and those are the base items under their spaced keys.
    @Test func keysetAndOffsetPageAlikeBeforeAnyWrite() throws {
        var random = SplitMix64(seed: 0xBEF0)
        for _ in 0..<300 {
            let testCase = TraversalPropertyTests.randomCase(&random)
            var written = testCase.configuration
            written.writes = WritesConfiguration(insertRate: 1, deleteRate: 1)
            var offset = written
            offset.continuation = .offset
            let plain = try drain(SyntheticStore(configuration: testCase.configuration), testCase.request)
            let keyset = try drain(SyntheticStore(configuration: written), testCase.request)
            let offsets = try drain(SyntheticStore(configuration: offset), testCase.request)
            let spaced = plain.flatMap(\.items).map {
                Item(
                    partition: $0.partition,
                    sortKey: ($0.sortKey + 1) << 24,
                    sizeBytes: $0.sizeBytes,
                    category: $0.storeAttributes.category,
                    fingerprint: $0.storeAttributes.fingerprint
                )
            }
            #expect(keyset.flatMap(\.items) == spaced, "\(testCase)")
            #expect(offsets.flatMap(\.items) == spaced, "\(testCase)")
            #expect(keyset.map(\.scannedCount) == plain.map(\.scannedCount), "\(testCase)")
            #expect(offsets.map(\.scannedCount) == plain.map(\.scannedCount), "\(testCase)")
            #expect(keyset.map { $0.nextToken == nil } == plain.map { $0.nextToken == nil }, "\(testCase)")
        }
    }

    /// S22, S24: before its first write a store with writes pages its base items through the
    /// base loop; that must be exactly what the overlay walk gives: the same items under
    /// their spaced keys, counts, bytes, tokens byte for byte, and the same errors for tokens
    /// that resume anywhere (between base keys, outside the range, past the end).
    @Test(arguments: [ContinuationMode.keyset, .offset])
    func theBaseLoopBeforeAnyWriteIsTheOverlayWalk(continuation: ContinuationMode) throws {
        var random = SplitMix64(seed: continuation == .keyset ? 0xF457 : 0x0FF5)
        func outcome(_ body: () throws -> Page) -> Result<Page, StoreError> {
            do { return .success(try body()) } catch let error as StoreError { return .failure(error) } catch {
                Issue.record("unexpected \(error)")
                return .failure(StoreError.invalidToken("unexpected"))
            }
        }
        var pagesCompared = 0
        var resumptionsCompared = 0
        for _ in 0..<300 {
            var testCase = TraversalPropertyTests.randomCase(&random)
            testCase.configuration.writes = WritesConfiguration(insertRate: 1, deleteRate: 1, updateRate: 1)
            testCase.configuration.continuation = continuation
            let store = try SyntheticStore(configuration: testCase.configuration)
            let overlay = try #require(store.overlay)
            var request = testCase.request
            if case .partition(let partition) = request.range, Bool.random(using: &random) {
                let end = KeySpace.localEnd(count: store.layout.count(of: partition))
                let a = UInt64.random(in: 0...end + 3, using: &random)
                let b = UInt64.random(in: 0...end + 3, using: &random)
                request.sortKeys = min(a, b)..<max(a, b)
            }
            let base = { (request: PageRequest) in outcome { try store.evaluatePage(request) } }
            let walk = { (request: PageRequest) in outcome { try store.evaluateUnderWrites(request, overlay: overlay) }
            }

            // A whole drain, page by page.
            var current = request
            for _ in 0..<10_000 {
                let page = base(current)
                // One failure per drain: the pages after a wrong one differ too.
                guard page == walk(current) else {
                    Issue.record("\(testCase) \(current): the base loop's page differs from the overlay walk's")
                    break
                }
                pagesCompared += 1
                guard case .success(let got) = page, let token = got.nextToken else { break }
                current = current.with(token: token)
            }

            // Tokens that resume anywhere.
            let limit = request.limit ?? 100
            for _ in 0..<8 {
                let token: String
                if continuation == .offset {
                    let offset = [
                        0, 1, 5, Int.random(in: 0...200, using: &random), Int.max,
                        Int.random(in: 0...3, using: &random),
                    ]
                    .randomElement(using: &random)!
                    token = PageToken(request: request, limit: limit, lastPosition: 0)
                        .with(lastPosition: offset == Int.max ? UInt64.max : UInt64(offset)).encode(key: store.tokenKey)
                } else {
                    let partition = Int.random(in: 0..<store.layout.partitions, using: &random)
                    let end = KeySpace.localEnd(count: store.layout.count(of: partition))
                    let key = store.layout.startKey(of: partition) + UInt64.random(in: 0..<end, using: &random)
                    token = PageToken(request: request, limit: limit, lastPosition: 0).with(lastPosition: key)
                        .encode(key: store.tokenKey)
                }
                let resumed = request.with(token: token)
                #expect(base(resumed) == walk(resumed), "\(testCase) \(resumed)")
                resumptionsCompared += 1
            }
        }
        #expect(pagesCompared > 1000)
        #expect(resumptionsCompared == 2400)
    }

    // MARK: Pages under a fixed overlay

    static func randomWrittenCase(_ random: inout SplitMix64) -> TraversalPropertyTests.Case {
        var testCase = TraversalPropertyTests.randomCase(&random)
        testCase.configuration.writes = WritesConfiguration(
            insertRate: [0, 0.5, 2].randomElement(using: &random)!,
            deleteRate: [0, 0.5, 2].randomElement(using: &random)!,
            updateRate: [0, 0.5, 1].randomElement(using: &random)!,
            position: WritePosition.allCases.randomElement(using: &random)!,
            hotPartitions: Bool.random(using: &random) ? [0] : [],
            hotFraction: 0.8
        )
        testCase.configuration.continuation = Bool.random(using: &random) ? .keyset : .offset
        if case .segment = testCase.request.range { testCase.request.range = .scan }
        return testCase
    }

    /// S1–S7, S10–S13 under writes: with an overlay that no longer changes, every page of a
    /// drain is exactly the independent model's page (a sorted array with the same writes)
    /// — items, scanned count and bytes, whether a token follows — in both continuation
    /// modes, both directions, every budget rule and filter.
    @Test func pagesUnderAFixedOverlayAreTheModelsPages() async throws {
        var random = SplitMix64(seed: 0xFEED)
        for _ in 0..<600 {
            let testCase = Self.randomWrittenCase(&random)
            let store = try SyntheticStore(configuration: testCase.configuration)
            let replay = try WritesReplay(store: store, filter: testCase.request.filter)
            store.applyWrites(requests: Int.random(in: 0...60, using: &random))
            // Pages apply no write from here on: evaluate the drain directly.
            var model = replay.model
            model.apply(replay.publishedChanges, through: store.writeVersion)
            let pages = try drain(store, testCase.request, maxPages: 10_000)
            var cursor = WritesModel.Cursor.start
            let configuration = testCase.configuration
            for page in pages {
                let expected = model.page(
                    testCase.request,
                    at: cursor,
                    continuation: configuration.continuation,
                    defaultLimit: configuration.defaultLimit,
                    budgetBytes: configuration.scanBudgetBytes,
                    boundary: configuration.budgetBoundary,
                    exactEnd: configuration.exactEnd
                )
                let same =
                    page.items == expected.items && page.scannedCount == expected.scannedCount
                    && page.scannedBytes == expected.scannedBytes && (page.nextToken == nil) == (expected.next == nil)
                #expect(same, "\(testCase) at \(cursor)")
                guard same, let next = expected.next else { break }
                cursor = next
            }
            // S10, S11: the drain is the model's listing, and the store's own listing agrees.
            let listing = model.items(in: testCase.request.range, reverse: testCase.request.reverse)
            #expect(pages.flatMap(\.items) == listing.filter { $0.matches(testCase.request.filter) }, "\(testCase)")
            #expect(
                Array(
                    store.items(
                        in: testCase.request.range,
                        filter: testCase.request.filter,
                        reverse: testCase.request.reverse
                    )
                )
                    == listing.filter { $0.matches(testCase.request.filter) },
                "\(testCase)"
            )
            replay.cancel()
        }
    }

    /// S15 under writes: segments stay disjoint and their union is the scan (inserted keys
    /// go with the item after them).
    @Test func segmentsPartitionTheScanUnderWrites() throws {
        var random = SplitMix64(seed: 0x5E6_0)
        for _ in 0..<200 {
            let testCase = Self.randomWrittenCase(&random)
            let store = try SyntheticStore(configuration: testCase.configuration)
            store.applyWrites(requests: Int.random(in: 0...60, using: &random))
            var request = testCase.request
            request.range = .scan
            let scan = try drain(store, request).flatMap(\.items)
            let total = Int.random(in: 1...9, using: &random)
            var union: [Item] = []
            for index in 0..<total {
                request.range = .segment(index: index, total: total)
                union += try drain(store, request).flatMap(\.items)
            }
            if request.reverse {
                #expect(Set(union) == Set(scan) && union.count == scan.count, "\(testCase)")
            } else {
                #expect(union == scan, "\(testCase)")
            }
        }
    }

    // MARK: S22, S23, S26

    /// S22: per-request writes are deterministic — two stores serving the same requests
    /// publish the same changes and return the same pages and tokens.
    @Test func theSameRequestsSeeTheSameWrites() async throws {
        let writes = WritesConfiguration(insertRate: 0.7, deleteRate: 0.4, updateRate: 0.3)
        let stores = try (0..<2).map { _ in try writesStore(partitions: 4, items: 50, writes: writes, seed: 9) }
        let replays = try stores.map { try WritesReplay(store: $0, filter: nil) }
        var pages: [[Page]] = [[], []]
        for (index, store) in stores.enumerated() {
            var request = PageRequest(range: .scan, limit: 7)
            while true {
                let page = try await store.page(request)
                pages[index].append(page)
                guard let token = page.nextToken else { break }
                request.token = token
            }
        }
        #expect(pages[0] == pages[1])
        let changes = replays.map { $0.publishedChanges.map { [$0.version, UInt64($0.partition), $0.sortKey] } }
        #expect(changes[0] == changes[1] && !changes[0].isEmpty)
    }

    /// S26: the feed publishes every write once, versions 1, 2, 3, …, and a page's versions
    /// bracket what it saw (S23).
    @Test func theChangeFeedPublishesEveryWriteInVersionOrder() async throws {
        let store = try writesStore(writes: WritesConfiguration(insertRate: 1, deleteRate: 0.5, updateRate: 0.5))
        let feed = store.changeFeed()
        var request = PageRequest(range: .partition(1), limit: 3)
        var versions: [(UInt64, UInt64)] = []
        for _ in 0..<20 {
            let served = try await store.versionedPage(request)
            versions.append((served.versionBefore, served.versionAfter))
            request.token = served.page.nextToken
            if request.token == nil { break }
        }
        let total = store.writeVersion
        #expect(total > 0)
        #expect(versions.allSatisfy { $0.0 == $0.1 })  // concurrency 1: nothing lands during a page
        var seen: [UInt64] = []
        for await change in feed {
            seen.append(change.version)
            #expect((change.item == nil) == (change.kind == .delete))
            if change.version == total { break }
        }
        #expect(seen == Array(1...total))
    }

    /// S26: a subscription can be cancelled while the writer delivers to it — here from inside
    /// its own delivery, which runs under the writer's lock. Cancelling waited for that lock,
    /// and a watching pager cancelled while a write delivered to it deadlocked the store (a
    /// fresh-clone CI run hung in a watch test, 2026-11-26): the delivery waited for the
    /// pager task's lock, which the cancellation held while it waited for the writer's.
    /// After the cancellation nothing more is delivered, and other subscribers still are.
    @Test func s26ASubscriptionCancelledDuringItsDeliveryEndsWithoutWaitingForTheWriter() async throws {
        let store = try writesStore(writes: WritesConfiguration(insertRate: 1, deleteRate: 0.5, updateRate: 0.5))
        let delivered = Mutex<[UInt64]>([])
        let subscription = Mutex<ChangeSubscription?>(nil)
        let own = try #require(
            store.subscribeToChanges { change in
                delivered.withLock { $0.append(change.version) }
                subscription.withLock { $0 }?.cancel()
            }
        )
        subscription.withLock { $0 = own }
        let others = Mutex<Int>(0)
        let other = try #require(store.subscribeToChanges { _ in others.withLock { $0 += 1 } })
        defer { other.cancel() }
        var request = PageRequest(range: .partition(1), limit: 3)
        for _ in 0..<10 {
            let page = try await store.page(request)
            request.token = page.nextToken
            if request.token == nil { break }
        }
        #expect(store.writeVersion > 1)
        #expect(delivered.withLock { $0 } == [1])
        #expect(others.withLock { $0 } == Int(store.writeVersion))
    }

    /// S23: a page reflects every write before it: an item inserted at the head of the
    /// partition is on the first page of a drain that starts after it.
    @Test func aPageReflectsEveryEarlierWrite() async throws {
        let store = try writesStore(partitions: 1, writes: WritesConfiguration(insertRate: 1, position: .head))
        let page = try await store.page(PageRequest(range: .partition(0), limit: 5))
        let inserted = try #require(store.item(partition: 0, sortKey: page.items[0].sortKey))
        #expect(page.items[0] == inserted)
        #expect(page.items[0].sortKey < SyntheticStore.keySpacingUnderWrites)  // before base item 0
    }

    // MARK: S24 under writes, S25

    /// S24, S25 against the independent model, for every write interleaving of a seeded
    /// set: at concurrency 1, every page of every drain is the model's, the store's skip
    /// count (from its versioned overlay) is the model's (from following each state), and
    /// keyset drains never return a key twice nor skip one.
    @Test(arguments: [ContinuationMode.keyset, .offset])
    func drainsUnderWritesMatchTheModel(continuation: ContinuationMode) async throws {
        var random = SplitMix64(seed: continuation == .keyset ? 0xD8A1 : 0x0FF5)
        var duplicates = 0
        var skips = 0
        for round in 0..<120 {
            // Fewer inserts per request than items per page, so that every drain ends.
            let writes = WritesConfiguration(
                insertRate: [0, 0.3, 1, 1.5].randomElement(using: &random)!,
                deleteRate: [0, 0.3, 1, 2].randomElement(using: &random)!,
                updateRate: [0, 0.3, 1].randomElement(using: &random)!,
                position: WritePosition.allCases.randomElement(using: &random)!
            )
            let filter: Filter? = [nil, .matching, .categoryNotEquals(0)].randomElement(using: &random)!
            let store = try writesStore(
                partitions: Int.random(in: 1...3, using: &random),
                items: Int.random(in: 0...30, using: &random),
                size: .uniform(min: 10, max: 200),
                budget: [300, 1000, 1_048_576].randomElement(using: &random)!,
                boundary: Bool.random(using: &random) ? .exclusive : .inclusive,
                exactEnd: Bool.random(using: &random) ? .continuation : .final,
                writes: writes,
                continuation: continuation,
                seed: random.next()
            )
            var replay = try WritesReplay(store: store, filter: filter)
            for _ in 0..<3 {
                let range: ScanRange =
                    Bool.random(using: &random)
                    ? .scan : .partition(Int.random(in: 0..<store.configuration.partitions, using: &random))
                let request = PageRequest(
                    range: range,
                    reverse: Bool.random(using: &random),
                    limit: [2, 3, 5].randomElement(using: &random)!,
                    filter: filter
                )
                let drain = try await replay.drain(request, maxPages: 2_000)
                #expect(drain.mismatch == nil, "round \(round) \(writes) \(request): \(drain.mismatch ?? "")")
                #expect(drain.storeSkipped == drain.modelSkipped, "round \(round) \(writes) \(request)")
                if continuation == .keyset {
                    #expect(drain.modelDuplicates == 0 && drain.modelSkipped == 0, "round \(round) \(request)")
                }
                duplicates += drain.modelDuplicates
                skips += drain.modelSkipped
            }
            replay.cancel()
        }
        if continuation == .offset {
            // The seeded set does make offset drains repeat and skip items.
            #expect(duplicates > 0 && skips > 0)
        }
    }

    /// S24 by construction: under offset continuation, inserts at the head of the partition
    /// (before the cursor) make the next page repeat items, deletes there skip items;
    /// keyset does neither.
    @Test func offsetRepeatsAfterAnInsertBeforeTheCursorAndSkipsAfterADelete() async throws {
        for (writes, expectDuplicates) in [
            (WritesConfiguration(insertRate: 1, position: .head), true),
            (WritesConfiguration(deleteRate: 1, position: .head), false),
        ] {
            for continuation in ContinuationMode.allCases {
                let store = try writesStore(partitions: 1, items: 40, writes: writes, continuation: continuation)
                var replay = try WritesReplay(store: store, filter: nil)
                let drain = try await replay.drain(PageRequest(range: .partition(0), limit: 5))
                #expect(drain.mismatch == nil)
                if continuation == .keyset {
                    #expect(drain.modelDuplicates == 0 && drain.modelSkipped == 0)
                } else if expectDuplicates {
                    #expect(drain.modelDuplicates > 0 && drain.modelSkipped == 0)
                } else {
                    #expect(drain.modelSkipped > 0 && drain.modelDuplicates == 0)
                    #expect(drain.storeSkipped == drain.modelSkipped)
                }
                replay.cancel()
            }
        }
    }

    // MARK: Tokens (S16–S19) under writes

    @Test func tokensUnderWritesStayMACdAndBound() async throws {
        for continuation in ContinuationMode.allCases {
            let store = try writesStore(
                writes: WritesConfiguration(insertRate: 1, deleteRate: 1),
                continuation: continuation
            )
            let request = PageRequest(range: .partition(0), limit: 4, filter: .matching)
            let page = try await store.page(request)
            let token = try #require(page.nextToken)
            // S17: every single-character change is rejected.
            var rejected = 0
            for index in token.indices {
                var characters = Array(token)
                let offset = token.distance(from: token.startIndex, to: index)
                characters[offset] = characters[offset] == "A" ? "B" : "A"
                if storeErrorCode({ _ = try store.evaluatePage(request.with(token: String(characters))) })
                    == .invalidToken
                {
                    rejected += 1
                }
            }
            #expect(rejected == token.count)
            // S18: another range, limit or filter is a mismatch naming it.
            var other = request.with(token: token)
            other.limit = 5
            #expect(storeError { _ = try store.evaluatePage(other) }?.message.contains("limit was 4, now 5") == true)
            other = request.with(token: token)
            other.range = .partition(1)
            #expect(storeErrorCode { _ = try store.evaluatePage(other) } == .tokenMismatch)
            // S19: a token of the other continuation mode (another configuration) is invalid here.
            let twin = try writesStore(
                writes: WritesConfiguration(insertRate: 1, deleteRate: 1),
                continuation: continuation == .keyset ? .offset : .keyset
            )
            #expect(storeErrorCode { _ = try twin.evaluatePage(request.with(token: token)) } == .invalidToken)
        }
    }

    /// DynamoDB's ExclusiveStartKey under keyset writes: resuming after any key, even a
    /// deleted one, continues strictly after it (S12); offset continuation refuses.
    @Test func resumingAfterAKeyUnderWrites() async throws {
        let store = try writesStore(partitions: 1, items: 10, writes: WritesConfiguration(insertRate: 2, deleteRate: 1))
        store.applyWrites(requests: 5)
        let all = Array(store.items(in: .partition(0), filter: nil, reverse: false))
        let request = PageRequest(range: .partition(0), limit: 3)
        let token = try store.token(for: request, resumingAfter: 0, sortKey: all[3].sortKey)
        #expect(try store.evaluatePage(request.with(token: token)).items == Array(all[4..<7]))
        let contents = try store.decodeToken(token)
        #expect(contents.lastEvaluatedPartition == 0 && contents.lastEvaluatedSortKey == all[3].sortKey)
        let offset = try writesStore(writes: WritesConfiguration(insertRate: 1), continuation: .offset)
        #expect(
            storeErrorCode { _ = try offset.token(for: request, resumingAfter: 0, sortKey: 1 << 24) } == .invalidToken
        )
    }

    // MARK: Scale

    /// 10^9 items under writes start at once and hold only what changed; a hot partition
    /// with thousands of changes keeps paging in order.
    @Test func aHugeStoreUnderWritesHoldsOnlyWhatChanged() throws {
        let store = try SyntheticStore(
            configuration: StoreConfiguration(
                partitions: 1000,
                itemsPerPartition: .uniform(1_000_000),
                writes: WritesConfiguration(insertRate: 3, deleteRate: 1, updateRate: 1, hotPartitions: [7])
            )
        )
        #expect(store.totalItems == 1_000_000_000)
        store.applyWrites(requests: 4000)
        #expect(store.writeVersion == 20_000)
        var request = PageRequest(range: .partition(7), limit: 1000)
        var previous: UInt64?
        for _ in 0..<50 {
            let page = try store.evaluatePage(request)
            for item in page.items {
                #expect(previous.map { item.sortKey > $0 } ?? true)
                previous = item.sortKey
            }
            request.token = page.nextToken
        }
    }
}
