import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchStore
import Synchronization

/// The synthetic store as a pager `PageSource`: one `store.page(_:)` per request. The pager
/// library knows nothing of the store; the harness is where they meet.
///
/// A store with no service time and no injected failures is served by a plain call
/// (``SyntheticStore/servesWithoutWaiting``): the cancellation check and the evaluation
/// that `page(_:)` would make, without entering an async function per page (its frame on
/// the task allocator, an executor check and a copy of the store's references cost about
/// as much as the page itself at limit 10; results/harness-overhead.md).
///
/// For the harness's loop and streaming drains that plain call is the evaluation alone: those
/// drains check their task's cancellation before every request they make (``DrainRunner``),
/// so a second check right after theirs would only find what theirs found (H2: a cancelled
/// drain still requests no page). Every other caller, and every store with a service model
/// (whose delays stay cancellable, S20, P13), gets `page(_:)`'s check.
public struct StoreSource: PageSource {
    public let store: SyntheticStore
    @usableFromInline let servesWithoutWaiting: Bool
    /// Whether the direct path leaves the cancellation check to its caller.
    @usableFromInline let callerChecksCancellation: Bool

    /// - Parameters:
    ///   - store: the store to page.
    ///   - pager: the pager kind of the harness drains that will call this source, if any;
    ///     for `loop` and `streaming` the direct path skips its own cancellation check
    ///     (``PagerKind/checksCancellationBeforeEveryRequest``).
    public init(store: SyntheticStore, pager: PagerKind? = nil) {
        self.store = store
        self.servesWithoutWaiting = store.servesWithoutWaiting
        self.callerChecksCancellation = pager?.checksCancellationBeforeEveryRequest ?? false
    }

    @inlinable
    public func fetch(_ request: PageRequest) async throws -> Page {
        if let page = try fetchWithoutWaiting(request) { return page }
        return try await store.page(request)
    }

    @inlinable
    public func fetchWithoutWaiting(_ request: PageRequest) throws -> Page? {
        guard servesWithoutWaiting else { return nil }
        if !callerChecksCancellation { try Task.checkCancellation() }
        return try store.evaluatePage(request)
    }
}

/// Wraps a pager's page source to count the failures it returns (throttles include the
/// retried ones) and remember the last one, for pagers whose API does not rethrow it
/// (`QueryPager.fetch` publishes failures instead). The success path touches nothing shared.
///
/// In a phase with a store of its own (``PhaseRunner/Options/phaseStore``: writes, injected
/// failures), the pager's ``ConsistencyTracker`` serves the requests from it instead of
/// `base`, and under writes counts the drains' duplicates and skips (S25).
///
/// The base is held by value: the per-page path calls it at an address in its drain's frame.
/// Held in a shared object instead, each call copied it (547 bytes for the synthetic store)
/// out of that object first: 88 instructions a page (callgrind, issue 38).
struct ObservedSource<Base: PageSource>: PageSource where Base.Request == PageRequest, Base.Response == Page {
    let base: Base
    let failures: FailureLog
    var consistency: ConsistencyTracker? = nil

    init(base: Base, failures: FailureLog) {
        self.base = base
        self.failures = failures
    }

    /// The phase's store under writes, for the watching pager (`apollo-watch`, P16): the
    /// store the consistency tracker serves from, when it has writes.
    var writesStore: SyntheticStore? {
        guard let store = consistency?.store, store.hasWrites else { return nil }
        return store
    }

    @inlinable
    func fetch(_ request: PageRequest) async throws -> Page {
        do {
            if let consistency { return try await consistency.fetch(request) }
            return try await base.fetch(request)
        } catch {
            failures.record(error)
            throw error
        }
    }

    @inlinable
    func fetchWithoutWaiting(_ request: PageRequest) throws -> Page? {
        // With a phase store every request goes through the tracker.
        guard consistency == nil else { return nil }
        do {
            return try base.fetchWithoutWaiting(request)
        } catch {
            failures.record(error)
            throw error
        }
    }
}

/// One pager's failure counts: written only on the (rare) failure path.
final class FailureLog: Sendable {
    private let throttleCount = Atomic<Int>(0)
    /// The last failure: recorded (the outer optional) and its page-contract kind (nil: an
    /// error that is no page failure).
    private let last = Mutex<PageError.Kind??>(nil)

    /// Throttled responses received so far (each may have been retried).
    var throttles: Int { throttleCount.load(ordering: .relaxed) }

    func record(_ error: any Error) {
        guard !(error is CancellationError) else { return }
        let kind = PageError.Kind(classifying: error)
        if kind == .throttled { throttleCount.add(1, ordering: .relaxed) }
        last.withLock { $0 = .some(kind) }
    }

    /// The last failure's kind (nil inside: no page failure), cleared; nil if none since.
    func takeLast() -> PageError.Kind?? {
        last.withLock { value in
            defer { value = nil }
            return value
        }
    }
}
