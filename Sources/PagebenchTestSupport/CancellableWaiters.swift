/// Tasks waiting for an event a test drives (a gated fetch arriving, a sleeper going to
/// sleep), each resumed once: with a value when the event comes, or with `CancellationError`
/// when its task is cancelled first.
///
/// A test that exceeds its time limit is cancelled. A wait that ignored cancellation kept it,
/// and with it the whole `swift test` run, waiting forever for an event its cancelled code
/// would never bring. The owner keeps one of these inside its lock and waits with
/// ``wait(register:cancel:)``, which handles a cancellation that comes before the
/// continuation is kept.
package struct CancellableWaiters<Condition: Sendable, Value: Sendable>: Sendable {
    package typealias Continuation = CheckedContinuation<Value, any Error>

    private var waiting: [(id: UInt64, condition: Condition, continuation: Continuation)] = []
    private var cancelledEarly: Set<UInt64> = []
    private var lastID: UInt64 = 0

    package init() {}

    /// A new waiter's identity.
    package mutating func makeID() -> UInt64 {
        lastID &+= 1
        return lastID
    }

    /// Removes and returns the first waiter whose condition `ready` accepts, if any.
    package mutating func removeFirst(where ready: (Condition) -> Bool = { _ in true }) -> Continuation? {
        guard let index = waiting.firstIndex(where: { ready($0.condition) }) else { return nil }
        return waiting.remove(at: index).continuation
    }

    /// Keeps `continuation` under `id` until the owner resumes it, unless its task was
    /// cancelled before: then the continuation is handed back, for `CancellationError`.
    package mutating func keep(_ continuation: Continuation, id: UInt64, condition: Condition) -> Continuation? {
        if cancelledEarly.remove(id) != nil { return continuation }
        waiting.append((id, condition, continuation))
        return nil
    }

    /// The continuation kept under `id`, removed; nil (and `id` remembered as cancelled) if
    /// it is not kept yet, or was resumed already.
    package mutating func cancel(id: UInt64) -> Continuation? {
        if let index = waiting.firstIndex(where: { $0.id == id }) { return waiting.remove(at: index).continuation }
        cancelledEarly.insert(id)
        return nil
    }

    /// Waits for the owner's answer. `register` runs under the owner's lock: it resumes the
    /// continuation at once when the event has happened, else keeps it (``keep(_:id:condition:)``)
    /// and returns what that returns. `cancel` runs under the owner's lock when the task is
    /// cancelled and returns ``cancel(id:)``.
    package static func wait(
        register: (Continuation) -> Continuation?,
        cancel: @Sendable () -> Continuation?
    ) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                register(continuation)?.resume(throwing: CancellationError())
            }
        } onCancel: {
            cancel()?.resume(throwing: CancellationError())
        }
    }
}
