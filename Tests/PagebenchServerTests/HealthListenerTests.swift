import Foundation
import HTTPTypes
import HummingbirdCore
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import PagebenchHTTPTestSupport
import PagebenchServer
import PagebenchWire
import Testing

/// `serve --health-port` and the store listener's accepting, with every thread that answers
/// the store's requests held busy (W8, issue 38).
@Suite("Health listener")
struct HealthListenerTests {
    @Test("W8: the health port answers GET and HEAD /health with the store port's body, and nothing else")
    func w8HealthPortAnswersHealthOnly() async throws {
        let server = StoreServer(store: try TestStores.store(), configuration: .init(healthPort: 0))
        try await withLiveServerAndHealthPort(server) { target, health in
            let expected = try await TestHTTPClient(target).execute(uri: "/health")
            let client = try TestHTTPClient(health)
            let answer = try await client.execute(uri: "/health")
            #expect(answer.status == .ok)
            #expect(answer.body == expected.body)
            #expect(answer.headers[.contentType] == "application/json")
            #expect(answer.headers[.server] == expected.headers[.server])
            #expect(
                try JSONDecoder().decode(StoreHealth.self, from: Data(answer.body.readableBytesView)).status == "ok"
            )
            let head = try await client.execute(uri: "/health", method: .HEAD)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.contentLength] == String(expected.body.readableBytes))
            let elsewhere = try await client.execute(uri: "/partitions/0/items")
            #expect(elsewhere.status == .notFound)
            #expect(try elsewhere.errorBody().code == "notFound")
            let post = try await client.execute(uri: "/health", method: .POST, body: "{}")
            #expect(post.status == .methodNotAllowed)
            #expect(post.headers[.allow] == "GET, HEAD")
        }
    }

    @Test("W8: a server without a health port binds none")
    func w8NoHealthPortUnlessAsked() async throws {
        let server = StoreServer(store: try TestStores.store())
        #expect(try await server.bindHealthListener() == nil)
    }

    /// Occupies every thread of the cooperative pool with a request to `/block` (a route
    /// that waits for the gate), then — from an event loop of the test's own, which needs
    /// no pool thread — opens connections to the store's port, asks `/health` of the store's
    /// port (answered by a task on the pool: it cannot answer yet, which shows every thread
    /// held) and of the health port, and opens the gate once the health port has answered.
    ///
    /// Before: the store's listener (HummingbirdCore's `Server`) took accepted connections
    /// from a task on the pool and stopped accepting once 10 waited for it, so the connections
    /// stayed in the kernel's accept queue; and there was no health port.
    @Test("W8: with every request thread busy, the store's port still accepts and the health port answers")
    func w8AcceptsAndAnswersHealthWithEveryRequestThreadBusy() async throws {
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let gate = Gate()
        let server = StoreServer(
            store: try TestStores.store(),
            configuration: .init(healthPort: 0),
            extraRoutes: [BlockingRoutes(gate: gate)]
        )
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = loops.next()
        let outcome: Result<(Seen, TestHTTPResponse), any Error>
        do {
            outcome = .success(
                try await withLiveServerAndHealthPort(server) { target, health in
                    defer { gate.open() }
                    let store = try TestHTTPClient(target)
                    let blocked = (0..<threads).map { _ in store.send(uri: "/block", on: loop) }
                    let (seen, storeHealth) = try await Self.whileBlocked(
                        gate: gate,
                        threads: threads,
                        connections: 64,
                        store: store,
                        health: try TestHTTPClient(health),
                        on: loop
                    )
                    .get()
                    for request in blocked { #expect(try await request.get().status == .ok) }
                    return (seen, try await storeHealth.get())
                }
            )
        } catch {
            outcome = .failure(error)
        }
        try await loops.shutdownGracefully()
        let (seen, storeHealth) = try outcome.get()
        #expect(seen.acceptQueueEmptied, "connections left waiting in the store port's accept queue")
        #expect(!seen.storeHealthAnswered, "the store's port answered /health: not every request thread was held")
        #expect(seen.health?.status == .ok)
        #expect(storeHealth.status == .ok)
        #expect(seen.health?.body == storeHealth.body)
    }

    /// What the event loop saw while the gate was closed.
    struct Seen: Sendable {
        var acceptQueueEmptied = false
        var storeHealthAnswered = false
        var health: TestHTTPResponse?
    }

    /// Runs on `loop`: waits (at most 60 s) for `threads` requests inside `/block`, opens
    /// `connections` connections to the store's port, sends `/health` to it, waits (at most
    /// 10 s: the pool is held meanwhile, and every other test waits) for its accept queue to
    /// empty, asks the health port, notes whether the store's `/health` has answered, then
    /// opens the gate; fulfils the future with what it saw and the store's `/health`.
    static func whileBlocked(
        gate: Gate,
        threads: Int,
        connections: Int,
        store: TestHTTPClient,
        health: TestHTTPClient,
        on loop: any EventLoop
    ) -> EventLoopFuture<(Seen, EventLoopFuture<TestHTTPResponse>)> {
        @Sendable func poll(
            every: TimeAmount,
            times: Int,
            until condition: @escaping @Sendable () -> Bool
        )
            -> EventLoopFuture<Bool>
        {
            if condition() { return loop.makeSucceededFuture(true) }
            guard times > 0 else { return loop.makeSucceededFuture(false) }
            return loop.scheduleTask(in: every) {}.futureResult.flatMap {
                poll(every: every, times: times - 1, until: condition)
            }
        }
        let seen = NIOLockedValueBox(Seen())
        return poll(every: .milliseconds(1), times: 60_000) { gate.waiting >= threads }
            .flatMapThrowing { entered -> [EventLoopFuture<any Channel>] in
                guard entered else { throw TestFailure("only \(gate.waiting) of \(threads) requests reached /block") }
                return (0..<connections).map { _ in
                    ClientBootstrap(group: loop).connect(host: store.host, port: store.port)
                }
            }
            .flatMap { opened in EventLoopFuture.whenAllSucceed(opened, on: loop) }
            .flatMap { opened -> EventLoopFuture<(Seen, EventLoopFuture<TestHTTPResponse>)> in
                let storeHealth = store.send(uri: "/health", on: loop)
                storeHealth.whenSuccess { _ in seen.withLockedValue { $0.storeHealthAnswered = true } }
                return poll(every: .milliseconds(5), times: 2_000) {
                    (try? acceptQueueLength(port: store.port)) == 0
                }
                .flatMap { emptied in
                    seen.withLockedValue { $0.acceptQueueEmptied = emptied }
                    return health.send(uri: "/health", on: loop)
                }
                .map { answer in
                    seen.withLockedValue { $0.health = answer }
                    return (seen.withLockedValue { $0 }, storeHealth)
                }
                .always { _ in
                    gate.open()
                    for channel in opened { channel.close(promise: nil) }
                }
            }
            .always { _ in gate.open() }
    }

    /// The listening socket's accept queue on `port` (connections the kernel completed that
    /// the server has not accepted): the `rx_queue` of its line in /proc/net/tcp.
    static func acceptQueueLength(port: Int) throws -> Int {
        let table = try procFile("/proc/net/tcp")
        let local = String(format: ":%04X", port)
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 4, fields[1].hasSuffix(local), fields[3] == "0A" else { continue }
            let queues = fields[4].split(separator: ":")
            guard queues.count == 2, let received = Int(queues[1], radix: 16) else { break }
            return received
        }
        throw TestFailure("no listening socket on port \(port) in /proc/net/tcp")
    }

    /// The whole of a /proc file, read until its end (Foundation's `String(contentsOfFile:)`
    /// reads one page of a file whose size says 0: 27 lines of /proc/net/tcp, not the listener's
    /// line once other tests hold thousands of sockets).
    static func procFile(_ path: String) throws -> String {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw TestFailure("cannot open \(path)") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count < 1 << 26 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count >= 0 else { throw TestFailure("cannot read \(path)") }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A gate requests wait at, blocking their thread (at most 60 s each), until it opens.
final class Gate: Sendable {
    private let state = ConditionLock(value: false)
    private let inside = NIOLockedValueBox(0)

    /// Requests waiting at the gate now.
    var waiting: Int { inside.withLockedValue { $0 } }

    func wait() {
        inside.withLockedValue { $0 += 1 }
        if state.lock(whenValue: true, timeoutSeconds: 60) { state.unlock() }
        inside.withLockedValue { $0 -= 1 }
    }

    func open() {
        state.lock()
        state.unlock(withValue: true)
    }
}

/// `GET /block`: waits at the gate, then answers 200.
struct BlockingRoutes: StoreRouteRegistration {
    let gate: Gate

    func register(on router: inout StoreRouter, server: StoreServer) {
        router.get("/block") { [gate] _, _ in
            gate.wait()
            return Response(status: .ok)
        }
    }
}
