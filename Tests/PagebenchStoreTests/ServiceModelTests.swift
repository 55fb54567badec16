import PagebenchPage
import Synchronization
import Testing

@testable import PagebenchStore

/// S20 (service time) and S21 (throttling and faults) of `SyntheticStore.page(_:)`.
@Suite struct ServiceModelTests {
    func store(
        _ change: (inout StoreConfiguration) -> Void,
        sleep: (@Sendable (Duration) async throws -> Void)? = nil
    )
        throws -> SyntheticStore
    {
        var configuration = StoreConfiguration(partitions: 4, itemsPerPartition: .uniform(100), itemSize: .fixed(1000))
        change(&configuration)
        if let sleep { return try SyntheticStore(configuration: configuration, sleep: sleep) }
        return try SyntheticStore(configuration: configuration)
    }

    /// Issue 12: settings whose longest service time overflows are refused at validation,
    /// naming what to lower, instead of trapping when a request draws it.
    @Test(arguments: [
        "--service-time fixed:9000s --hot-partitions 0 --hot-multiplier 1000000",
        "--service-ns-per-byte 1000000 --item-size fixed:1099511627776",
    ])
    func s20ServiceTimesThatOverflowAreRefused(flags: String) throws {
        var configuration = StoreConfiguration()
        if flags.contains("hot") {
            configuration.serviceTime.base = .fixed(nanoseconds: 9_000_000_000_000)
            configuration.serviceTime.hotPartitions = [0]
            configuration.serviceTime.hotPartitionMultiplier = 1_000_000
        } else {
            configuration.serviceTime.nanosecondsPerScannedByte = 1_000_000
            configuration.itemSize = .fixed(1 << 40)
        }
        #expect { try configuration.validate() } throws: { error in
            "\(error)".contains("the longest service time these settings allow")
        }
    }

    @Test func s20ServiceTimeIsBasePlusPerByteCostTimesTheHotMultiplier() throws {
        let store = try store {
            $0.serviceTime = ServiceTimeModel(
                base: .fixed(nanoseconds: 2_000_000),
                nanosecondsPerScannedByte: 0.5,
                hotPartitions: [2],
                hotPartitionMultiplier: 4
            )
        }
        let cold = PageRequest(range: .partition(1), limit: 10)
        #expect(store.serviceTime(for: cold, scannedBytes: 10_000) == .nanoseconds(2_000_000 + 5_000))
        #expect(store.serviceTime(for: PageRequest(range: .partition(2)), scannedBytes: 0) == .milliseconds(8))
        // A scan page is hot when it starts in a hot partition (items 200 ..< 300).
        let scan = PageRequest(range: .scan, limit: 100)
        let pages = try drain(store, scan)
        #expect(store.serviceTime(for: scan.with(token: pages[1].nextToken), scannedBytes: 0) == .milliseconds(8))
        #expect(store.serviceTime(for: scan.with(token: pages[2].nextToken), scannedBytes: 0) == .milliseconds(2))
    }

    @Test func s20RandomLatenciesAreDeterministicAndWithinTheirBounds() throws {
        let uniform = try store { $0.serviceTime.base = .uniform(minNanoseconds: 1_000, maxNanoseconds: 5_000) }
        let same = try store { $0.serviceTime.base = .uniform(minNanoseconds: 1_000, maxNanoseconds: 5_000) }
        var seen: Set<Duration> = []
        for limit in 1...200 {
            let request = PageRequest(range: .scan, limit: limit)
            let delay = uniform.serviceTime(for: request, scannedBytes: 0)
            #expect(delay >= .nanoseconds(1_000) && delay <= .nanoseconds(5_000))
            #expect(delay == same.serviceTime(for: request, scannedBytes: 0))
            seen.insert(delay)
        }
        #expect(seen.count > 50)
        let lognormal = try store {
            $0.serviceTime.base = .lognormal(medianNanoseconds: 1_000_000, sigma: 1, maxNanoseconds: 3_000_000)
        }
        let delays = (1...500).map { lognormal.serviceTime(for: PageRequest(limit: $0), scannedBytes: 0) }
        #expect(delays.allSatisfy { $0 > .zero && $0 <= .milliseconds(3) })
        #expect(delays.contains(.milliseconds(3)))  // the cap is reached
    }

    @Test func s20PageWaitsOutTheServiceTimeThroughTheInjectedSleep() async throws {
        let requested = Mutex<[Duration]>([])
        let store = try store({
            $0.serviceTime = ServiceTimeModel(base: .fixed(nanoseconds: 3_000), nanosecondsPerScannedByte: 1)
        }) {
            duration in requested.withLock { $0.append(duration) }
        }
        let page = try await store.page(PageRequest(range: .scan, limit: 4))
        #expect(page == (try store.evaluatePage(PageRequest(range: .scan, limit: 4))))
        #expect(requested.withLock { $0 } == [.nanoseconds(3_000 + 4_000)])
        // Pure evaluation never sleeps.
        _ = try store.evaluatePage(PageRequest(range: .scan))
        #expect(requested.withLock { $0.count } == 1)
    }

    @Test func s20ACancelledCallerDoesNotWaitOutTheDelay() async throws {
        let store = try store { $0.serviceTime.base = .fixed(nanoseconds: 3_600_000_000_000) }  // one hour
        let task = Task { try await store.page(PageRequest(range: .scan)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test func s20CancellationDuringTheSleepPassesThroughUnwrapped() async throws {
        // The sleep reports when it has started, so the test cancels a call that is really waiting.
        let (started, continuation) = AsyncStream.makeStream(of: Void.self)
        let store = try store({ $0.serviceTime.base = .fixed(nanoseconds: 3_600_000_000_000) }) { duration in
            continuation.yield()
            try await Task.sleep(for: duration)
        }
        let task = Task { try await store.page(PageRequest(range: .scan)) }
        for await _ in started { break }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test func s21ThrottlingAndFaultsAreDistinctRetryableErrors() async throws {
        let throttled = try store { $0.throttleRate = 1 }
        do {
            _ = try await throttled.page(PageRequest(range: .scan))
            Issue.record("expected throttling")
        } catch let error as StoreError {
            #expect(error.code == .throttled && error.isRetryable)
        }
        let faulty = try store { $0.faultRate = 1 }
        do {
            _ = try await faulty.page(PageRequest(range: .scan))
            Issue.record("expected a fault")
        } catch let error as StoreError {
            #expect(error.code == .injectedFault && error.isRetryable)
        }
        // Request errors are not retryable; evaluatePage never injects.
        #expect(
            storeError { _ = try throttled.evaluatePage(PageRequest(range: .scan, limit: 0)) }?.isRetryable == false
        )
        #expect(try throttled.evaluatePage(PageRequest(range: .scan)).scannedCount == 10)
    }

    @Test func s21InjectionIsDeterministicAtTheConfiguredRateAndRetriesSucceed() async throws {
        func outcomes(_ store: SyntheticStore) async -> [StoreError.Code?] {
            var result: [StoreError.Code?] = []
            for _ in 0..<1000 {
                do {
                    _ = try await store.page(PageRequest(range: .scan))
                    result.append(nil)
                } catch let error as StoreError {
                    result.append(error.code)
                } catch {
                    result.append(.invalidConfiguration)
                }
            }
            return result
        }
        let a = await outcomes(
            try store {
                $0.throttleRate = 0.2
                $0.faultRate = 0.1
            }
        )
        let b = await outcomes(
            try store {
                $0.throttleRate = 0.2
                $0.faultRate = 0.1
            }
        )
        #expect(a == b)
        let throttles = a.filter { $0 == .throttled }.count
        let faults = a.filter { $0 == .injectedFault }.count
        #expect((150...250).contains(throttles) && (60...140).contains(faults), "\(throttles) \(faults)")

        // Following tokens with retries drains the range exactly as without failures.
        let store = try store { $0.throttleRate = 0.5 }
        var request = PageRequest(range: .scan, limit: 7)
        var items: [Item] = []
        var attempts = 0
        while attempts < 10_000 {
            attempts += 1
            do {
                let page = try await store.page(request)
                items += page.items
                guard let token = page.nextToken else { break }
                request.token = token
            } catch let error as StoreError where error.isRetryable {
                continue
            }
        }
        #expect(items == Array(store.items(in: .scan, filter: nil, reverse: false)))
        #expect(store.injectionOrdinal == UInt64(attempts))
    }

    @Test("a store with service time or injected failures is not served directly (S20, S21)")
    func directPathOnlyWithoutServiceModel() throws {
        let slow = StoreConfiguration(partitions: 2, serviceTime: ServiceTimeModel(base: .fixed(nanoseconds: 1000)))
        let perByte = StoreConfiguration(partitions: 2, serviceTime: ServiceTimeModel(nanosecondsPerScannedByte: 0.5))
        let throttled = StoreConfiguration(partitions: 2, throttleRate: 0.1)
        let faulty = StoreConfiguration(partitions: 2, faultRate: 0.1)
        for configuration in [slow, perByte, throttled, faulty] {
            #expect(try !SyntheticStore(configuration: configuration).servesWithoutWaiting)
        }
    }
}
