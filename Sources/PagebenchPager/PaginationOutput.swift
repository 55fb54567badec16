/// Everything an Apollo-style pager holds, in page order (docs/contract.md P10): previous pages
/// (earliest first), the initial page, then next pages in load order.
public struct PaginationOutput<InitialPage: Sendable, Page: Sendable>: Sendable {
    /// Pages before the initial page, earliest (furthest back) first.
    public var previousPages: [Page]
    /// The page the initial request returned.
    public var initialPage: InitialPage
    /// Pages after the initial page, in load order.
    public var nextPages: [Page]

    public init(previousPages: [Page], initialPage: InitialPage, nextPages: [Page]) {
        self.previousPages = previousPages
        self.initialPage = initialPage
        self.nextPages = nextPages
    }

    /// Number of pages held, the initial page included.
    public var pageCount: Int { previousPages.count + 1 + nextPages.count }
}

extension PaginationOutput: Equatable where InitialPage: Equatable, Page: Equatable {}
extension PaginationOutput: Hashable where InitialPage: Hashable, Page: Hashable {}

extension PaginationOutput where InitialPage == Page {
    /// All pages in order, for the single-query case.
    public var allPages: [Page] { previousPages + [initialPage] + nextPages }
}
