import PagebenchPage

/// An item of an unpaginated listing with whether it passes the listing's filter.
public struct ListedItem: Sendable, Hashable {
    public let item: Item
    /// Whether ``item`` passes the filter (always true without one).
    public let matches: Bool
}
