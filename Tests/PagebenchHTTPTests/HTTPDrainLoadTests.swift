import PagebenchHTTP
import PagebenchStore
import Testing

/// The `http-bench` load loop: counts must be consistent with complete drains.
@Suite("HTTP drain load")
struct HTTPDrainLoadTests {
    @Test("S10: each loop drains the range completely, again and again; retryable failures are repeated (S21)")
    func countsAreConsistent() async throws {
        var configuration = TestStores.configuration
        configuration.throttleRate = 0.2
        let store = try TestStores.store(configuration)
        let request = PageRequest(range: .scan, limit: 9)
        let itemsPerDrain = store.totalItems
        let (result, counts) = try await withLiveServer(StoreServer(store: store)) { target in
            try await HTTPStoreSource.withSource(target: target, configuration: .init(connections: 3)) { source in
                let load = HTTPDrainLoad(request: request, concurrency: 3, duration: .milliseconds(400))
                return (await load.run { try await source.page($0) }, source.statusCounts)
            }
        }
        #expect(result.failures == 0, "\(result.firstFailure ?? "")")
        #expect(result.requests == result.pages + result.retries)
        #expect(result.retries > 0)
        #expect(counts[429] == result.retries)
        #expect(counts[200] == result.pages)
        #expect(result.drains >= 1, "400 ms is enough for a 23-page drain on loopback")
        // Every loop has completed drains plus at most one partial drain.
        #expect(result.items >= result.drains * itemsPerDrain)
        #expect(result.items < (result.drains + 3) * itemsPerDrain)
        #expect(result.requestsPerSecond > 0)
    }
}
