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
    /// no pool thread — opens connections to the store's port and asks `/health` of the
    /// store's port and of the health port, and opens the gate once both have answered (or
    /// 10 s have passed: the pool is held meanwhile, and every other test waits).
    ///
    /// Before: the store's listener (HummingbirdCore's `Server`) took accepted connections
    /// from a task on the pool and stopped accepting once 10 waited for it, so the connections
    /// stayed in the kernel's accept queue; `/health` on the store's port was answered by a
    /// task on the pool, so not at all while it was busy; and there was no health port.
    @Test("W8: with every request thread busy, the store's port accepts and both ports answer /health")
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
        let outcome: Result<(Seen, ByteBuffer), any Error>
        do {
            outcome = .success(
                try await withLiveServerAndHealthPort(server) { target, health in
                    defer { gate.open() }
                    let store = try TestHTTPClient(target)
                    let blocked = (0..<threads).map { _ in store.send(uri: "/block", on: loop) }
                    let seen = try await Self.whileBlocked(
                        gate: gate,
                        threads: threads,
                        connections: 64,
                        store: store,
                        health: try TestHTTPClient(health),
                        on: loop
                    ).get()
                    for request in blocked { #expect(try await request.get().status == .ok) }
                    return (seen, try await store.execute(uri: "/health").body)
                }
            )
        } catch {
            outcome = .failure(error)
        }
        try await loops.shutdownGracefully()
        let (seen, expected) = try outcome.get()
        #expect(seen.acceptQueueEmptied, "connections left waiting in the store port's accept queue")
        #expect(
            seen.storeHealth?.status == .ok,
            "the store's port did not answer /health with every request thread busy"
        )
        #expect(seen.storeHealth?.body == expected)
        #expect(seen.health?.status == .ok)
        #expect(seen.health?.body == expected)
    }

    /// What the event loop saw while the gate was closed.
    struct Seen: Sendable {
        var acceptQueueEmptied = false
        var storeHealth: TestHTTPResponse?
        var health: TestHTTPResponse?
    }

    /// Runs on `loop`: waits (at most 60 s) for `threads` requests inside `/block`, opens
    /// `connections` connections to the store's port, sends `/health` to it, waits (at most
    /// 10 s) for its accept queue to empty and (at most 10 s) for its answer, asks the health
    /// port, then opens the gate and fulfils the future.
    static func whileBlocked(
        gate: Gate,
        threads: Int,
        connections: Int,
        store: TestHTTPClient,
        health: TestHTTPClient,
        on loop: any EventLoop
    ) -> EventLoopFuture<Seen> {
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
        /// `future`'s answer, or nil if it has none after `limit`.
        @Sendable func within(
            _ limit: TimeAmount,
            _ future: EventLoopFuture<TestHTTPResponse>
        )
            -> EventLoopFuture<TestHTTPResponse?>
        {
            let promise = loop.makePromise(of: TestHTTPResponse?.self)
            let done = NIOLockedValueBox(false)
            let finish: @Sendable (Result<TestHTTPResponse?, any Error>) -> Void = { result in
                guard
                    done.withLockedValue({ done in
                        defer { done = true }
                        return !done
                    })
                else { return }
                promise.completeWith(result)
            }
            let timer = loop.scheduleTask(in: limit) { finish(.success(nil)) }
            future.whenComplete { result in
                timer.cancel()
                finish(result.map { $0 })
            }
            return promise.futureResult
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
            .flatMap { opened -> EventLoopFuture<Void> in
                let storeHealth = store.send(uri: "/health", on: loop)
                return poll(every: .milliseconds(5), times: 2_000) {
                    (try? acceptQueueLength(port: store.port)) == 0
                }
                .flatMap { emptied in
                    seen.withLockedValue { $0.acceptQueueEmptied = emptied }
                    return within(.seconds(10), storeHealth)
                }
                .flatMap { answer in
                    seen.withLockedValue { $0.storeHealth = answer }
                    return health.send(uri: "/health", on: loop)
                }
                .map { answer in seen.withLockedValue { $0.health = answer } }
                .always { _ in
                    gate.open()
                    for channel in opened { channel.close(promise: nil) }
                }
            }
            .always { _ in gate.open() }
            .map { seen.withLockedValue { $0 } }
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
