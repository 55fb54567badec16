import Foundation
import PagebenchBase
import PagebenchPage
import Testing

@testable import PagebenchStore

@Suite struct ConfigurationTests {
    /// Issue 25: a served store that is not the scenario's is refused naming the fields.
    @Test func differencesNameEveryFieldWithBothValues() {
        var served = StoreConfiguration(itemsPerPartition: .uniform(301))
        let scenario = StoreConfiguration(itemsPerPartition: .uniform(300))
        #expect(StoreConfiguration.differences(canonical: scenario.canonicalText, scenario.canonicalText).isEmpty)
        served.serviceTime.base = .fixed(nanoseconds: 2_000_000)
        served.writes = WritesConfiguration(insertRate: 1)
        let found = StoreConfiguration.differences(canonical: scenario.canonicalText, served.canonicalText)
        #expect(found.map(\.field) == ["itemsPerPartition", "serviceTime.base", "writes"])
        #expect(found[0].first == "uniform:300" && found[0].second == "uniform:301")
        #expect(found[2].first == "(not set)")
    }

    @Test func theDefaultFollowsTheContractDefaults() throws {
        let configuration = StoreConfiguration.default
        try configuration.validate()
        #expect(configuration.scanBudgetBytes == 1_048_576)
        #expect(configuration.defaultLimit == 10)
        #expect(configuration.budgetBoundary == .exclusive)
        #expect(configuration.exactEnd == .continuation)
        #expect(configuration.tokenPolicy == .strict)
    }

    @Test(arguments: [
        (StoreConfiguration(partitions: 0), "partitions"),
        (StoreConfiguration(itemsPerPartition: .uniform(-1)), "itemsPerPartition"),
        (StoreConfiguration(itemsPerPartition: .zipf(mean: 10, exponent: -1)), "zipf exponent"),
        (StoreConfiguration(partitions: 2_000_000, itemsPerPartition: .zipf(mean: 1, exponent: 1)), "zipf"),
        (
            StoreConfiguration(partitions: 1 << 30, itemsPerPartition: .uniform(1 << 30)),
            "partitions × itemsPerPartition"
        ),
        (StoreConfiguration(itemSize: .fixed(0)), "itemSize"),
        (StoreConfiguration(itemSize: .uniform(min: 10, max: 5)), "itemSize"),
        (StoreConfiguration(itemSize: .lognormal(median: 10, sigma: .nan, min: 1, max: 5)), "sigma"),
        (StoreConfiguration(selectivity: 1.5), "selectivity"),
        (StoreConfiguration(clustering: .runs(length: 0)), "run length"),
        (StoreConfiguration(scanBudgetBytes: 0), "scanBudgetBytes"),
        (StoreConfiguration(defaultLimit: 0), "defaultLimit"),
        (StoreConfiguration(serviceTime: ServiceTimeModel(nanosecondsPerScannedByte: -1)), "nanosecondsPerScannedByte"),
        (StoreConfiguration(serviceTime: ServiceTimeModel(hotPartitions: [64])), "hot partition 64"),
        (StoreConfiguration(serviceTime: ServiceTimeModel(hotPartitionMultiplier: 0.5)), "hotPartitionMultiplier"),
        (StoreConfiguration(throttleRate: -0.1), "throttleRate"),
        (StoreConfiguration(throttleRate: 0.6, faultRate: 0.6), "throttleRate + faultRate"),
    ])
    func invalidFieldsAreNamed(configuration: StoreConfiguration, field: String) {
        let error = storeError { try configuration.validate() }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains(field) == true, "\(error?.message ?? "no error")")
        #expect(storeErrorCode { _ = try SyntheticStore(configuration: configuration) } == .invalidConfiguration)
    }

    @Test func jsonWithMissingKeysTakesDefaultsAndRoundTrips() throws {
        let partial =
            #"{"partitions": 4, "itemSize": "uniform:100-2000", "clustering": "runs:50", "serviceTime": {"base": "fixed:2ms"}}"#
        let configuration = try StoreConfiguration.load(json: Data(partial.utf8))
        var expected = StoreConfiguration.default
        expected.partitions = 4
        expected.itemSize = .uniform(min: 100, max: 2000)
        expected.clustering = .runs(length: 50)
        expected.serviceTime.base = .fixed(nanoseconds: 2_000_000)
        #expect(configuration == expected)
        let text = try configuration.jsonText()
        #expect(try StoreConfiguration.load(json: Data(text.utf8)) == configuration)
        // Numbers are accepted where a count or fixed size is meant.
        let numeric = try StoreConfiguration.load(json: Data(#"{"itemsPerPartition": 5, "itemSize": 64}"#.utf8))
        #expect(numeric.itemsPerPartition == .uniform(5) && numeric.itemSize == .fixed(64))
    }

    @Test(arguments: [
        (#"{"partitons": 4}"#, "unknown key \"partitons\""),
        (#"{"partitions": "four"}"#, "partitions"),
        (#"{"itemSize": "gaussian:5"}"#, "itemSize"),
        (#"{"partitions": 0}"#, "partitions must be"),
        (#"[1, 2]"#, "top level"),
        (#"{"partitions": 4"#, "not valid JSON"),
        // Issue 12: a list names distinct things; a repeated element is refused naming the field
        // (hot partitions [0, 0] went into the configuration hash text as `hot=0+0`).
        (
            #"{"serviceTime": {"base": "fixed:1ms", "hotPartitions": [0, 0]}}"#,
            "serviceTime: hotPartitions lists partition 0 twice"
        ),
        (
            #"{"writes": {"insertRate": 1, "hotPartitions": [2, 1, 2]}}"#,
            "writes: hotPartitions lists partition 2 twice"
        ),
        (
            #"{"serviceTime": {"bse": "fixed:1ms"}}"#,
            "unknown key \"serviceTime.bse\"; known keys of serviceTime are base"
        ),
    ])
    func badJSONIsRejectedWithItsReason(json: String, fragment: String) {
        let error = storeError { _ = try StoreConfiguration.load(json: Data(json.utf8)) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "no error")")
    }

    /// Issue 24: a number that does not fit its field is named with its path and what goes
    /// there (JSONDecoder said "The given data was not valid JSON." for every one of them);
    /// text forms refuse a key given twice and empty elements.
    @Test(arguments: [
        (#"{"seed": -1}"#, "'seed' must be a whole number from 0 to 18446744073709551615, found -1"),
        (#"{"partitions": 2.5}"#, "'partitions' must be a whole number, found 2.5"),
        (#"{"scanBudgetBytes": 1e300}"#, "'scanBudgetBytes' must be a whole number, found 1e300"),
        (
            #"{"serviceTime": {"hotPartitions": [0, 1.5]}}"#,
            "'serviceTime.hotPartitions[1]' must be a whole number, found 1.5"
        ),
        (#"{"serviceTime": 5}"#, "'serviceTime' must be an object, found 5"),
        (
            #"{"itemSize": 2.5}"#,
            "'itemSize' must be a whole number of bytes or a text such as \"uniform:100-2000\", found 2.5"
        ),
        (
            #"{"itemsPerPartition": [1]}"#,
            "'itemsPerPartition' must be a whole number or a text such as \"zipf:1000:1.1\", found a list"
        ),
        (#"{"selectivity": 1e400}"#, "found 1e400 at 'selectivity'"),
        (#"{"itemSize": "lognormal:median=512,sigma=1,median=600"}"#, "itemSize: 'median' is given twice"),
        (
            #"{"serviceTime": {"base": "lognormal:median=2ms,sigma=0.5,sigma=1"}}"#,
            "serviceTime: 'sigma' is given twice"
        ),
        (#"{"itemSize": "lognormal:median=512,,sigma=1"}"#, "itemSize: element 2 of 'median=512,,sigma=1' is empty"),
        (#"{"itemsPerPartition": "zipf:1000::1.1"}"#, "itemsPerPartition: element 2 of '1000::1.1' is empty"),
    ])
    func numbersAndTextFormsThatDoNotFitAreNamed(json: String, fragment: String) {
        let error = storeError { _ = try StoreConfiguration.load(json: Data(json.utf8)) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "no error")")
        #expect(error?.message.contains("not valid JSON.") == false)
    }

    @Test func configurationHashIsStableAndSensitiveToEveryField() throws {
        let hash = StoreConfiguration.default.configurationHash
        #expect(hash.count == 16 && hash.allSatisfy(\.isHexDigit))
        #expect(hash == StoreConfiguration().configurationHash)
        // Pinned: FNV-1a-64 of the canonical text is the same on every machine.
        #expect(StableHash.fnv1a64("") == 0xCBF2_9CE4_8422_2325)
        #expect(StableHash.fnv1a64("a") == 0xAF63_DC4C_8601_EC8C)
        var hashes: Set<String> = [hash]
        var changed = StoreConfiguration.default
        changed.seed += 1
        hashes.insert(changed.configurationHash)
        changed.scanBudgetBytes += 1
        hashes.insert(changed.configurationHash)
        changed.tokenPolicy = .lenient
        hashes.insert(changed.configurationHash)
        changed.serviceTime.hotPartitions = [1]
        hashes.insert(changed.configurationHash)
        #expect(hashes.count == 5)
    }

    /// S8/H3 across machines: pinned outputs of the default store. If a change to the data
    /// model or token format is intended, update these values and say so in the commit.
    @Test func goldenValuesOfTheDefaultStoreArePinned() throws {
        #expect(StoreConfiguration.default.configurationHash == "4f06b1e400e0dba9")
        let store = try SyntheticStore(configuration: .default)
        let page = try store.evaluatePage(PageRequest(range: .scan, limit: 4))
        #expect(page.scannedBytes == 676)
        // Token format version 2 (SipHash-1-3 MAC); version 1 (SipHash-2-4) read "AQAB…OOp0QQg".
        #expect(page.nextToken == "AgABAAAAAAAAAAAABAAAAAAAAAAAAAAAAwAAAAAAAAAGoqgMyNw3jQ")
    }

    @Test func textFormsRoundTrip() throws {
        let sizes: [ItemSizeDistribution] = [
            .fixed(1024), .uniform(min: 100, max: 2000), .lognormal(median: 512, sigma: 1.5, min: 64, max: 409_600),
        ]
        for size in sizes { #expect(try ItemSizeDistribution(parsing: size.description) == size) }
        #expect(try ItemSizeDistribution(parsing: "1024") == .fixed(1024))
        #expect(
            try ItemSizeDistribution(parsing: "lognormal:median=300,sigma=0.5")
                == .lognormal(median: 300, sigma: 0.5, min: 1, max: 409_600)
        )
        for items in [ItemsPerPartition.uniform(1000), .zipf(mean: 1000, exponent: 1.1)] {
            #expect(try ItemsPerPartition(parsing: items.description) == items)
        }
        #expect(try ItemsPerPartition(parsing: "1_000_000") == .uniform(1_000_000))
        for latency in [
            LatencyDistribution.none, .fixed(nanoseconds: 2_000_000),
            .uniform(minNanoseconds: 1000, maxNanoseconds: 5_000_000),
            .lognormal(medianNanoseconds: 2_000_000, sigma: 0.5, maxNanoseconds: 200_000_000),
        ] {
            #expect(try LatencyDistribution(parsing: latency.description) == latency)
        }
        #expect(try LatencyDistribution(parsing: "fixed:1.5s") == .fixed(nanoseconds: 1_500_000_000))
        for clustering in [Clustering.even, .random, .runs(length: 64)] {
            #expect(try Clustering(parsing: clustering.description) == clustering)
        }
        #expect(storeError { _ = try LatencyDistribution(parsing: "fixed:5") }?.message.contains("unit") == true)
    }

    @Test func sizeAndSelectivityDistributionsHaveTheConfiguredShape() throws {
        for clustering in [Clustering.even, .random, .runs(length: 100)] {
            let store = try SyntheticStore(
                configuration: StoreConfiguration(
                    partitions: 4,
                    itemsPerPartition: .uniform(50_000),
                    itemSize: .uniform(min: 100, max: 200),
                    selectivity: 0.1,
                    clustering: clustering
                )
            )
            let items = Array(try store.listing(in: .scan, filter: .matching, reverse: false).lazy.map(\.item))
            let matching = items.filter { $0.storeAttributes.category == 0 }.count
            #expect(abs(Double(matching) / Double(items.count) - 0.1) < 0.02, "\(clustering)")
            #expect(
                items.allSatisfy {
                    (100...200).contains($0.sizeBytes) && (0..<16).contains($0.storeAttributes.category)
                }
            )
        }
        // Even clustering is exact: 10 % of every 10 consecutive items.
        let even = try smallStore(partitions: 1, items: 1000, selectivity: 0.1, clustering: .even)
        let flags = try even.listing(in: .scan, filter: .matching, reverse: false).map(\.matches)
        for start in stride(from: 0, to: 1000, by: 10) { #expect(flags[start..<start + 10].filter { $0 }.count == 1) }
        // Runs: long stretches without a match.
        let runs = try smallStore(partitions: 1, items: 5000, selectivity: 0.1, clustering: .runs(length: 200))
        let runFlags = try runs.listing(in: .scan, filter: .matching, reverse: false).map(\.matches)
        var longest = 0
        var current = 0
        for flag in runFlags {
            current = flag ? 0 : current + 1
            longest = max(longest, current)
        }
        #expect(longest >= 400)
        // Log-normal sizes stay within their caps and have about the configured median.
        let lognormal = try SyntheticStore(
            configuration: StoreConfiguration(
                partitions: 1,
                itemsPerPartition: .uniform(20_000),
                itemSize: .lognormal(median: 500, sigma: 1, min: 64, max: 10_000)
            )
        )
        let sizes = lognormal.items(in: .scan, filter: nil, reverse: false).map(\.sizeBytes).sorted()
        #expect(sizes.first! >= 64 && sizes.last! <= 10_000)
        #expect(abs(sizes[sizes.count / 2] - 500) < 40)
    }

    @Test func zipfCountsAreSkewedAndAddUp() throws {
        let store = try SyntheticStore(
            configuration: StoreConfiguration(partitions: 10, itemsPerPartition: .zipf(mean: 100, exponent: 1))
        )
        let counts = (0..<10).map { store.itemCount(inPartition: $0) }
        #expect(counts.reduce(0, +) == 1000)
        #expect(counts == counts.sorted(by: >))
        #expect(counts[0] > 3 * counts[9])
    }

    @Test func payloadsHaveExactlyTheItemSizeAndAreDeterministic() throws {
        let store = try smallStore(size: .uniform(min: 1, max: 100))
        for item in store.items(in: .scan, filter: nil, reverse: false) {
            let payload = try #require(item.payload)
            #expect(payload.count == item.sizeBytes)
            let bytes = payload.bytes
            #expect(bytes.count == item.sizeBytes)
            var sum: UInt64 = 0
            for word in stride(from: 0, to: bytes.count, by: 8) {
                var value: UInt64 = 0
                for (shift, byte) in bytes[word..<min(word + 8, bytes.count)].enumerated() {
                    value |= UInt64(byte) << (8 * UInt64(shift))
                }
                sum &+= value
            }
            #expect(payload.checksum() == sum)
        }
    }
}
