import PagebenchPage
import PagebenchPager
import PagebenchStore

/// The synthetic store's change feed (S26) as a pager ``PagebenchPager/ChangeFeed`` (P16),
/// with the predicate that locates a write among a pager's held pages: the adapter that
/// lets the pager, which knows nothing of the store, watch it.
public struct StoreChangeFeed: ChangeFeed {
    public let store: SyntheticStore

    public init(store: SyntheticStore) {
        self.store = store
    }

    public func subscribe(_ receive: @escaping @Sendable (StoreChange) -> Void) -> ChangeFeedSubscription {
        guard let subscription = store.subscribeToChanges(receive) else { return ChangeFeedSubscription {} }
        return ChangeFeedSubscription { subscription.cancel() }
    }

    /// Whether `change` lands in the page that `request` returned: in the request's range,
    /// after the key the request resumed after (its token's last evaluated key; the range's
    /// start without a token) and up to the page's last evaluated key (its next token's; the
    /// range's end without one), in scan order. Under `offset` continuation tokens name no
    /// key, so a change anywhere in the range touches every page.
    @Sendable public func touches(_ change: StoreChange, _ request: PageRequest, _ page: Page) -> Bool {
        switch request.range {
        case .partition(let partition):
            guard change.partition == partition, request.sortKeys?.contains(change.sortKey) ?? true else {
                return false
            }
        case .scan, .segment:
            break
        }
        guard store.configuration.continuation == .keyset else { return true }
        func key(_ token: String?) -> (Int, UInt64)? {
            guard let token, let contents = try? store.decodeToken(token) else { return nil }
            return (contents.lastEvaluatedPartition, contents.lastEvaluatedSortKey)
        }
        let changed = (change.partition, change.sortKey)
        let after = key(request.token)
        let through = key(page.nextToken)
        if request.reverse {
            return (after.map { changed < $0 } ?? true) && (through.map { changed >= $0 } ?? true)
        }
        return (after.map { changed > $0 } ?? true) && (through.map { changed <= $0 } ?? true)
    }
}
