/// A source of change notifications a pager can watch (docs/contract.md P16): a database's change
/// stream, a subscription, a store's write feed. The pager knows nothing of what a change
/// is: whoever wires a pager to a source supplies the feed and a predicate that tells
/// whether a change touches a loaded page (``QueryPager/watch(_:touches:)``).
public protocol ChangeFeed<Change>: Sendable {
    associatedtype Change: Sendable

    /// Calls `receive` with every change from now on, until the subscription is cancelled.
    /// `receive` may run on the writer's thread while it holds its locks: it must be quick
    /// and must not call back into the source.
    func subscribe(_ receive: @escaping @Sendable (Change) -> Void) -> ChangeFeedSubscription
}

/// A subscription to a ``ChangeFeed``; ``cancel()`` ends it.
public struct ChangeFeedSubscription: Sendable {
    let cancelBody: @Sendable () -> Void

    public init(cancel: @escaping @Sendable () -> Void) {
        cancelBody = cancel
    }

    /// Stops delivering changes. Must be idempotent.
    public func cancel() { cancelBody() }
}

/// A change feed made of a closure.
public struct ClosureChangeFeed<Change: Sendable>: ChangeFeed {
    let body: @Sendable (@escaping @Sendable (Change) -> Void) -> ChangeFeedSubscription

    public init(_ subscribe: @escaping @Sendable (@escaping @Sendable (Change) -> Void) -> ChangeFeedSubscription) {
        body = subscribe
    }

    public func subscribe(_ receive: @escaping @Sendable (Change) -> Void) -> ChangeFeedSubscription {
        body(receive)
    }
}

/// One new output a watching pager published (P16).
public struct WatchRefresh<Change: Sendable>: Sendable {
    /// The change that made the pager re-fetch; nil for a polling watch, which re-fetches
    /// on a timer and publishes when a page differs.
    public let trigger: Change?
    /// Pages re-fetched for this output (a page whose continuation moved makes the pages
    /// after it re-fetched too, so that the pages held stay contiguous).
    public let refetchedPages: Int
}
