/// Which way a load moves from the pages already held.
public enum PaginationDirection: Hashable, Sendable {
    /// Towards the end: the page after the last next page (or after the initial page).
    case next
    /// Towards the start: the page before the earliest previous page (or the initial page).
    case previous
}
