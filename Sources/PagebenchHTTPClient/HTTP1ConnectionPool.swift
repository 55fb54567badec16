import NIOCore
import NIOPosix
import Synchronization

/// At most `capacity` ``HTTP1Connection``s to one server, lent to one request at a time.
///
/// A request leases an idle connection — preferring one on the event loop the calling task
/// runs on, so that a task pinned to an event loop (``EventLoopTaskExecutor``) keeps its
/// connection there — or opens a new one while fewer than `capacity` are open, or waits
/// (cancellably) for one to be returned. A connection that is closed, broken or was
/// cancelled mid-request is dropped on return, freeing its slot.
final class HTTP1ConnectionPool: Sendable {
    struct Endpoint: Sendable {
        var host: String
        var port: Int
        /// The `Host` header's value.
        var hostHeader: String
        /// TLS for `https://` targets; nil for plain HTTP.
        var tls: HTTP1TLS? = nil
        /// Whether every request is a plain `GET` whose only header is `Host` (the store
        /// source's). Then NIOHTTP1's outbound header check, which costs about 5 % of a
        /// request's client instructions (`results/http-client-cost.md`), can only pass and is
        /// left out — when the `Host` value has no control character; requests with other
        /// headers (target files) keep it.
        var onlyPlainGets = false

        /// Whether a connection's pipeline checks outbound headers (see ``onlyPlainGets``).
        var validatesOutboundHeaders: Bool {
            !(onlyPlainGets && hostHeader.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F })
        }
    }

    private struct State {
        var idle: [HTTP1Connection] = []
        var open = 0
        var nextWaiterID: UInt64 = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<HTTP1Connection?, any Error>)] = []
        var cancelledEarly: Set<UInt64> = []
        var isShutDown = false
    }

    let endpoint: Endpoint
    let capacity: Int
    private let group: MultiThreadedEventLoopGroup
    private let connectTimeout: TimeAmount
    /// How long a request may take from its start (connecting included) to its last byte.
    let requestTimeout: Duration
    private let requestTimeoutAmount: TimeAmount
    private let maximumBodyBytes: Int
    private let state = Mutex(State())

    init(
        endpoint: Endpoint,
        capacity: Int,
        group: MultiThreadedEventLoopGroup,
        connectTimeout: TimeAmount,
        requestTimeout: Duration,
        maximumBodyBytes: Int
    ) {
        self.endpoint = endpoint
        self.capacity = capacity
        self.group = group
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        requestTimeoutAmount = .nanoseconds(max(1, requestTimeout.clampedNanoseconds))
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Thrown by ``lease(deadline:)`` after ``shutdown()``.
    /// The request's deadline passed before its connection could be opened: the calling task
    /// was not run for that long (a starved machine), or a repeat came after a long first try.
    struct DeadlinePassed: Error, CustomStringConvertible {
        var requestTimeout: Duration
        var late: TimeAmount
        var description: String {
            "the request timeout (\(requestTimeout)) passed before connecting began, by \(Double(late.nanoseconds) / 1e9) s"
        }
    }

    struct ShutDown: Error, CustomStringConvertible {
        var description: String { "the HTTP source was shut down" }
    }

    /// The deadline of a request starting now (T5: connect to last byte).
    func deadline() -> NIODeadline { .now() + requestTimeoutAmount }

    /// A connection for one request, and the request's deadline; give the connection back
    /// with ``release(_:)``. The deadline is `given` (a repeated request keeps its first
    /// one), or else the request timeout from the moment the request has a connection or
    /// starts opening one (T5: connect to last byte): a wait for a free slot of a full pool is
    /// the client's own queue, not the target's time. A connection opened for the request
    /// gives up connecting at the deadline (or the connect timeout, if sooner).
    nonisolated(nonsending) func lease(deadline given: NIODeadline?) async throws -> (HTTP1Connection, NIODeadline) {
        let current = MultiThreadedEventLoopGroup.currentEventLoop
        enum Next {
            case use(HTTP1Connection)
            case connect
            case wait(UInt64)
        }
        let next = try state.withLock { state throws -> Next in
            guard !state.isShutDown else { throw ShutDown() }
            if let connection = Self.takeIdle(&state, preferring: current) { return .use(connection) }
            if state.open < capacity {
                state.open += 1
                return .connect
            }
            state.nextWaiterID += 1
            return .wait(state.nextWaiterID)
        }
        switch next {
        case .use(let connection):
            return (connection, given ?? deadline())
        case .connect:
            let deadline = given ?? deadline()
            return (try await connect(on: current, deadline: deadline), deadline)
        case .wait(let id):
            let handedOver = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let cancelled = state.withLock { state -> Bool in
                        if state.cancelledEarly.remove(id) != nil { return true }
                        state.waiters.append((id, continuation))
                        return false
                    }
                    if cancelled { continuation.resume(throwing: CancellationError()) }
                }
            } onCancel: {
                let continuation = state.withLock { state -> CheckedContinuation<HTTP1Connection?, any Error>? in
                    if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                        return state.waiters.remove(at: index).continuation
                    }
                    state.cancelledEarly.insert(id)
                    return nil
                }
                continuation?.resume(throwing: CancellationError())
            }
            // nil: a slot was freed and handed to this waiter to open a connection in.
            let deadline = given ?? deadline()
            if let handedOver { return (handedOver, deadline) }
            return (try await connect(on: current, deadline: deadline), deadline)
        }
    }

    /// Returns a connection after a request. A connection that cannot take another request
    /// is closed and its slot freed.
    func release(_ connection: HTTP1Connection) {
        let (waiter, handOver, close) = state.withLock {
            state -> (CheckedContinuation<HTTP1Connection?, any Error>?, HTTP1Connection?, Bool) in
            let reusable = connection.isReusable && !state.isShutDown
            if !reusable { state.open -= 1 }
            if !state.waiters.isEmpty {
                // Reusable: the waiter takes this connection; otherwise its freed slot.
                if reusable { return (state.waiters.removeFirst().continuation, connection, false) }
                state.open += 1
                return (state.waiters.removeFirst().continuation, nil, true)
            }
            if reusable { state.idle.append(connection) }
            return (nil, nil, !reusable)
        }
        if close { connection.close() }
        waiter?.resume(returning: handOver)
    }

    /// Closes idle connections and fails waiters; connections in use are closed when
    /// returned. The connections are closed all at once and their closes awaited together,
    /// not one after another (`http-bench` may hold tens of thousands).
    func shutdown() async {
        let (idle, waiters) = state.withLock { state in
            state.isShutDown = true
            defer {
                state.open -= state.idle.count
                state.idle.removeAll()
                state.waiters.removeAll()
            }
            return (state.idle, state.waiters.map(\.continuation))
        }
        for waiter in waiters { waiter.resume(throwing: ShutDown()) }
        guard !idle.isEmpty else { return }
        for connection in idle { connection.close() }
        try? await EventLoopFuture.andAllComplete(idle.map(\.channel.closeFuture), on: group.next()).get()
    }

    private func connect(on current: (any EventLoop)?, deadline: NIODeadline) async throws -> HTTP1Connection {
        do {
            let left = deadline - .now()
            guard left > .zero else { throw DeadlinePassed(requestTimeout: requestTimeout, late: .zero - left) }
            return try await HTTP1Connection.connect(
                host: endpoint.host,
                port: endpoint.port,
                hostHeader: endpoint.hostHeader,
                on: current ?? group.next(),
                connectTimeout: max(.nanoseconds(1), min(connectTimeout, left)),
                requestTimeout: requestTimeout,
                maximumBodyBytes: maximumBodyBytes,
                tls: endpoint.tls,
                validatesOutboundHeaders: endpoint.validatesOutboundHeaders
            )
        } catch {
            // Give the slot back (or to a waiter, which then tries to connect itself).
            let waiter = state.withLock { state -> CheckedContinuation<HTTP1Connection?, any Error>? in
                if !state.waiters.isEmpty { return state.waiters.removeFirst().continuation }
                state.open -= 1
                return nil
            }
            waiter?.resume(returning: nil)
            throw error
        }
    }

    /// An idle connection that is still open, on `loop` when there is one; closed idle
    /// connections met on the way are dropped (the server closed them).
    private static func takeIdle(_ state: inout State, preferring loop: (any EventLoop)?) -> HTTP1Connection? {
        if let loop, let index = state.idle.lastIndex(where: { $0.eventLoop === loop && $0.isReusable }) {
            return state.idle.remove(at: index)
        }
        while let connection = state.idle.popLast() {
            if connection.isReusable { return connection }
            state.open -= 1
            connection.close()
        }
        return nil
    }
}
