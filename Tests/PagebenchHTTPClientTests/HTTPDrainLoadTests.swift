import Dispatch
import PagebenchHTTPClient
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The `http-bench` load loop: counts must be consistent with complete drains.
@Suite("HTTP drain load")
struct HTTPDrainLoadTests {
    @Test(
        "S10: each loop drains the range completely, again and again; retryable failures are repeated (S21)",
        arguments: [false, true]
    )
    func s10CountsAreConsistent(onEventLoops: Bool) async throws {
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
            try await HTTPStoreSource.withSource(
                target: target + "/no-such-prefix",
                configuration: .init(connections: 3)
            ) { source in
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
        let result = try await HTTPStoreSource.withSource(
            target: "http://127.0.0.1:9",
            configuration: .init(connections: 2)
        ) { source in
            await load.run { try await source.page($0) }
        }
        #expect(result.requests == 0)
        #expect(result.requestsPerSecond == 0)
        #expect(result.unanswered >= HTTPDrainLoad.giveUpAfterUnanswered)
        #expect(result.serverStoppedAnswering)
        #expect(result.lastUnanswered != nil)
    }
}

/// Issue 12: `http-bench --duration` holds whatever the connections do, and the figures cover
/// the duration only. No wall-clock time is asserted: the answers here arrive late by
/// construction, and a connect that would wait an hour is what must not be waited for.
@Suite("HTTP drain load duration")
struct HTTPDrainLoadDurationTests {
    @Test("an answer that arrives after the duration is not counted; the window is the duration")
    func answersAfterTheDurationAreNotCounted() async {
        let duration = Duration.milliseconds(100)
        let load = HTTPDrainLoad(request: PageRequest(range: .scan, limit: 9), concurrency: 2, duration: duration)
        let result = await load.run { _ in
            // An answer already on its way arrives whatever the task's cancellation says.
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300)) { continuation.resume() }
            }
            return Page(items: [], scannedCount: 0, scannedBytes: 0, nextToken: "t")
        }
        #expect(result.requests == 0 && result.pages == 0, "\(result)")
        #expect(result.failures == 0 && result.unanswered == 0)
        #expect(result.elapsed <= duration)
    }

    @Test(
        "connects that wait for a server that never accepts are abandoned when the duration ends",
        .timeLimit(.minutes(1))
    )
    func connectsAreAbandonedAtTheEnd() async throws {
        // A listener with a backlog of 0 that never accepts: the kernel completes one
        // handshake and drops the other SYNs, so those connects wait for retransmissions.
        let listener = try NeverAcceptingListener()
        defer { listener.close() }
        let load = HTTPDrainLoad(
            request: PageRequest(range: .scan, limit: 9),
            concurrency: 16,
            duration: .milliseconds(200)
        )
        let configuration = HTTPStoreSource.Configuration(connections: 16, connectTimeout: .seconds(3600))
        let result = try await HTTPStoreSource.withSource(target: listener.target, configuration: configuration) {
            source in
            await load.run { try await source.page($0) }
        }
        // Nothing answered, and a connect cut short by the end is not a request that got no answer.
        #expect(result.requests == 0 && result.unanswered == 0, "\(result)")
        #expect(!result.serverStoppedAnswering)
    }
}

/// A TCP socket listening on a loopback ephemeral port with a backlog of 0 that never accepts.
private struct NeverAcceptingListener {
    let descriptor: Int32
    let target: String

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 0) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(descriptor)
            throw TestFailure("cannot listen on 127.0.0.1: errno \(errno)")
        }
        self.descriptor = descriptor
        target = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
    }

    func close() { Glibc.close(descriptor) }
}
