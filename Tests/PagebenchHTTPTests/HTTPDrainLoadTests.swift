import PagebenchHTTP
import PagebenchStore
import Testing

/// The `http-bench` load loop: counts must be consistent with complete drains.
@Suite("HTTP drain load")
struct HTTPDrainLoadTests {
    @Test(
        "S10: each loop drains the range completely, again and again; retryable failures are repeated (S21)",
        arguments: [false, true])
    func countsAreConsistent(onEventLoops: Bool) async throws {
        var configuration = TestStores.configuration
        configuration.throttleRate = 0.2
        let store = try TestStores.store(configuration)
        let request = PageRequest(range: .scan, limit: 9)
        let itemsPerDrain = store.totalItems
        let pagesPerDrain = try await TestStores.pages(TestStores.store(), request).count  // same data, no throttling
        let load = HTTPDrainLoad(request: request, concurrency: 3, duration: .seconds(120), drainsPerTask: 2)
        let (result, counts) = try await withLiveServer(StoreServer(store: store)) { target in
            try await HTTPStoreSource.withSource(target: target, configuration: .init(connections: 3)) {
                source -> (HTTPDrainLoad.Result, HTTPStatusCounts) in
                var executor: (@Sendable (Int) -> (any TaskExecutor)?)?
                if onEventLoops { executor = { source.taskExecutor($0) } }
                let result = await load.run(executor: executor) { try await source.page($0) }
                return (result, source.statusCounts)
            }
        }
        #expect(result.failures == 0, "\(result.firstFailure ?? "")")
        #expect(result.requests == result.pages + result.retries)
        #expect(result.retries > 0)
        #expect(counts[429] == result.retries)
        #expect(counts[200] == result.pages)
        #expect(result.drains == 6)
        #expect(result.pages == 6 * pagesPerDrain)
        #expect(result.items == 6 * itemsPerDrain)
        #expect(result.requestsPerSecond > 0)
    }
}

/// Issue 12: errors are counted as errors, non-retryable ones stop, a dead server ends the run.
@Suite("HTTP drain load failures")
struct HTTPDrainLoadFailureTests {
    @Test("a non-retryable answer (404) ends the run at once instead of being repeated for the duration")
    func nonRetryableFailureEndsTheRun() async throws {
        let load = HTTPDrainLoad(request: PageRequest(range: .scan, limit: 9), concurrency: 3, duration: .seconds(600))
        let result = try await withLiveServer(StoreServer(store: try TestStores.store())) { target in
            try await HTTPStoreSource.withSource(target: target + "/no-such-prefix", configuration: .init(connections: 3)) { source in
                await load.run { try await source.page($0) }
            }
        }
        #expect(result.failures >= 1 && result.failures <= 3)
        #expect(result.requests == result.failures)
        #expect(result.pages == 0 && result.retries == 0)
        #expect(result.firstFailure?.contains("404") == true)
    }

    @Test("requests that get no answer are not counted as requests; a server that never answers ends the run")
    func unansweredRequestsAreNotRequests() async throws {
        let load = HTTPDrainLoad(request: PageRequest(range: .scan, limit: 9), concurrency: 2, duration: .seconds(600))
        // Port 9 (discard) on loopback: nothing listens, every connect is refused.
        let result = try await HTTPStoreSource.withSource(target: "http://127.0.0.1:9", configuration: .init(connections: 2)) { source in
            await load.run { try await source.page($0) }
        }
        #expect(result.requests == 0)
        #expect(result.requestsPerSecond == 0)
        #expect(result.unanswered >= HTTPDrainLoad.giveUpAfterUnanswered)
        #expect(result.serverStoppedAnswering)
        #expect(result.lastUnanswered != nil)
    }
}
