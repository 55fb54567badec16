import PagebenchPage
import PagebenchTargets

/// One drain of one partition at one limit, as sent and answered: every page exchange in
/// order (throttled attempts left out), and how it ended.
package struct DrainRecord: Sendable {
    /// The partition's value as text (`0`, `user-7`), or `scan` for a target without
    /// partitions.
    package var partition: String
    package var limit: Int
    /// The page exchanges, first page first.
    package var exchanges: [TargetExchange]
    package var end: End
    /// Throttling answers met (and waited out) during the drain.
    package var throttles: Int

    package enum End: Sendable {
        /// A page without a continuation: the drain is complete.
        case last
        /// Page `again` (1-based) carried the continuation page `first` carried (0: the
        /// one the first request was sent with): following it loops (V3, P9).
        case repeated(token: String, first: Int, again: Int)
        /// The exchange that was not a page (no answer, an error status, not a page).
        case failed(TargetExchange)
        /// Stopped before its end: a bound, throttling that persisted.
        case cut(String)
    }

    /// Whether the drain reached its last page.
    package var isComplete: Bool {
        if case .last = end { true } else { false }
    }

    /// The pages received, in order.
    package var pages: [ObservedPage] { exchanges.compactMap(\.page) }

    /// Every item's key in order; nil when the target has no `itemKey`.
    package var keys: [String?]? {
        var all: [String?] = []
        for page in pages {
            guard let keys = page.keys else { return nil }
            all += keys
        }
        return all
    }

    /// Items returned in all.
    package var items: Int { pages.reduce(0) { $0 + $1.count } }

    /// Where item `position` (0-based) of the drain is: its page (0-based) and the index
    /// within that page; nil past the end.
    func location(ofItem position: Int) -> (page: Int, index: Int)? {
        var start = 0
        for (index, page) in pages.enumerated() {
            if position < start + page.count { return (index, position - start) }
            start += page.count
        }
        return nil
    }

    /// Pages with no items that still carried a continuation (the round trips they cost).
    package var emptyPagesWithToken: Int { pages.filter { $0.count == 0 && $0.token != nil }.count }

    /// 1 when the drain ended with an empty page after an exactly full page (DynamoDB's and
    /// AppSync's design, S6): the extra request that costs; else 0.
    package var extraLastRequest: Int {
        let pages = self.pages
        guard isComplete, pages.count >= 2, let last = pages.last, last.count == 0, last.token == nil,
            pages[pages.count - 2].count == limit
        else { return 0 }
        return 1
    }

    /// Request times summed up to and including the first page with an item; nil without one.
    /// pagebench's own waits (the rate) are left out: this is the API's time.
    package var secondsToFirstItem: Double? {
        var total = 0.0
        for exchange in exchanges {
            total += exchange.seconds
            if let page = exchange.page, page.count > 0 { return total }
        }
        return nil
    }

    /// Request times summed up to and including the last page with an item (complete
    /// drains only).
    package var secondsToLastItem: Double? {
        guard isComplete, let last = exchanges.lastIndex(where: { ($0.page?.count ?? 0) > 0 }) else { return nil }
        return exchanges[...last].reduce(0) { $0 + $1.seconds }
    }

    /// The largest continuation in UTF-8 bytes.
    package var largestTokenBytes: Int { pages.compactMap(\.token).map(\.utf8.count).max() ?? 0 }
}
