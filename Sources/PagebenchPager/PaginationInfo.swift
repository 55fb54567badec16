/// What a pager knows about where it is: whether more pages exist in each direction, and
/// the cursor or offset that reaches them (docs/contract.md P4, P14).
///
/// A page's info is extracted from the page itself by the caller's `extractPageInfo`
/// closure; the pager hands it back to the caller's page resolver to build the next
/// request. Conforming types are small `Sendable` values.
public protocol PaginationInfo: Sendable {
    /// Whether a page after this one exists (a non-nil "next" token or cursor).
    var canLoadNext: Bool { get }
    /// Whether a page before this one exists.
    var canLoadPrevious: Bool { get }

    /// Whether this info, extracted from the page that `previous` led to, points at the
    /// same position as `previous` in `direction`: following it would repeat the request
    /// that produced it, forever. The pagers stop with `PaginationError.repeatedToken`
    /// instead (docs/contract.md P9). The default says "never repeats".
    func repeatsPosition(of previous: Self, direction: PaginationDirection) -> Bool

    /// The position (cursor or offset) in `direction`, for error messages.
    func positionDescription(direction: PaginationDirection) -> String
}

extension PaginationInfo {
    public func repeatsPosition(of previous: Self, direction: PaginationDirection) -> Bool { false }
    public func positionDescription(direction: PaginationDirection) -> String { "\(self)" }
}
