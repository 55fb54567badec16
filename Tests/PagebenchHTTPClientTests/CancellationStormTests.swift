import PagebenchHTTPClient
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Synchronization
import Testing

/// S20 over HTTP: clients that give up mid-request must neither wedge the server nor keep
/// it busy waiting out service times nobody will read.
@Suite("Cancellation storm")
struct CancellationStormTests {
    /// Partition 0 is "hot" with a 60 s service time, partition 1 answers in 1 ms: requests
    /// to partition 0 are certainly in flight when they are cancelled, and can only finish
    /// within the test's bounds if the server abandons them.
    static let slowConfiguration = StoreConfiguration(
        partitions: 2,
        itemsPerPartition: .uniform(30),
        itemSize: .fixed(100),
        scanBudgetBytes: 1000,
        seed: 11,
        serviceTime: ServiceTimeModel(
            base: .fixed(nanoseconds: 1_000_000),
            hotPartitions: [0],
            hotPartitionMultiplier: 60_000
        )
    )

    @Test("S20: 3 rounds of 40 requests cancelled mid-flight are abandoned at once; the server keeps serving")
    func s20StormKeepsServing() async throws {
        let store = try TestStores.store(Self.slowConfiguration)
        let fastRequest = PageRequest(range: .partition(1), limit: 4)
        let expected = try await TestStores.pages(store, fastRequest)
        let server = StoreServer(store: store)
        let stormSize = 40
        let (drained, abandonedPerRound, inFlightReached) = try await withLiveServer(server) { target in
            try await HTTPStoreSource.withSource(target: target, configuration: .init(connections: 64)) { source in
                var abandonedPerRound: [Int] = []
                var inFlightReached: [Bool] = []
                for _ in 0..<3 {
                    let before = server.statistics.requestsAbandoned
                    let reached = await withTaskGroup(of: Void.self) { group -> Bool in
                        for _ in 0..<stormSize {
                            group.addTask { _ = try? await source.page(PageRequest(range: .partition(0))) }
                        }
                        let reached =
                            (try? await eventually { server.statistics.requestsInFlight >= stormSize }) ?? false
                        group.cancelAll()
                        return reached
                    }
                    inFlightReached.append(reached)
                    _ = try await eventually { server.statistics.requestsAbandoned >= before + stormSize }
                    abandonedPerRound.append(server.statistics.requestsAbandoned - before)
                }
                // Still serving, correctly: a full drain of the fast partition.
                let pages = try await TestStores.drain(fastRequest, maxPages: 100) { try await source.page($0) }
                return (pages, abandonedPerRound, inFlightReached)
            }
        }
        #expect(inFlightReached == [true, true, true])
        #expect(abandonedPerRound == [stormSize, stormSize, stormSize])
        #expect(drained == expected)
        #expect(server.statistics.requestsInFlight == 0)
        #expect(server.statistics.requestsStarted == 3 * stormSize + expected.count)
    }

    @Test("S20: a storm of fast requests cancelled at arbitrary points leaves nothing in flight")
    func s20ArbitraryCancellation() async throws {
        var configuration = Self.slowConfiguration
        configuration.serviceTime.hotPartitions = []
        let store = try TestStores.store(configuration)
        let server = StoreServer(store: store)
        let request = PageRequest(range: .scan, limit: 3)
        let expected = try await TestStores.pages(store, request)
        let drained = try await withLiveServer(server) { target in
            try await HTTPStoreSource.withSource(target: target, configuration: .init(connections: 16)) { source in
                let completed = PageCount()
                // 16 drain loops, cancelled once 200 pages have arrived: many requests are
                // cut off between send and response.
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<16 {
                        group.addTask {
                            var current = request
                            while !Task.isCancelled {
                                guard let page = try? await source.page(current) else { continue }
                                completed.value.add(1, ordering: .relaxed)
                                current.token = page.nextToken
                            }
                        }
                    }
                    _ = try? await eventually { completed.value.load(ordering: .relaxed) >= 200 }
                    group.cancelAll()
                }
                _ = try await eventually { server.statistics.requestsInFlight == 0 }
                return try await TestStores.drain(request, maxPages: 1000) { try await source.page($0) }
            }
        }
        #expect(drained == expected)
        #expect(server.statistics.requestsInFlight == 0)
    }
}

/// Pages completed across the storm's tasks.
private final class PageCount: Sendable {
    let value = Atomic<Int>(0)
}
