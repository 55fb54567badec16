/// A usage error of a pager: the call cannot be served in the pager's current state
/// (docs/contract.md P1, P2, P3, P5, P9).
///
/// Two values are equal when they are the same kind of error, whatever their message, so
/// `error == .loadInProgress` works for matching. Errors of the page source pass through
/// the pagers unchanged, and `CancellationError` is never wrapped (P12, P13).
public struct PaginationError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case missingInitialPage
        case pageHasNoMoreContent
        case loadInProgress
        case noQuery
        case repeatedToken
    }

    private let code: Code
    /// What was wrong and what to do about it.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `loadNext` / `loadPrevious` / `loadAll(fetchFromInitialPage: false)` before an
    /// initial page was fetched (P1). No request was made.
    public static let missingInitialPage = PaginationError(
        .missingInitialPage,
        "no initial page: call fetch() (or loadAll(fetchFromInitialPage: true)) before loading more pages"
    )

    /// The pager already holds the last page in the requested direction (P2). No request was made.
    public static let pageHasNoMoreContent = PaginationError(
        .pageHasNoMoreContent,
        "the last page in this direction is already loaded: check canLoadNext / canLoadPrevious first"
    )

    /// Another load of this pager is in flight (P5). Thrown at once, never queued: retry
    /// after the other load ends.
    public static let loadInProgress = PaginationError(
        .loadInProgress,
        "another load of this pager is in progress: wait for it to finish, then load again"
    )

    /// The page resolver returned no request for this direction (P3).
    public static let noQuery = PaginationError(
        .noQuery,
        "the page resolver returned no request for this direction: make it build one from the pagination info"
    )

    /// The source answered a request with the position the request came from, so following
    /// it would loop forever (P9).
    public static func repeatedToken(_ position: String, direction: PaginationDirection) -> PaginationError {
        PaginationError(
            .repeatedToken,
            "the source returned the same \(position) it was asked with (direction \(direction)): "
                + "following it would request the same page forever; the source's token handling is broken"
        )
    }

    /// Any `repeatedToken` error, for matching with `==`.
    public static let repeatedToken = repeatedToken("position", direction: .next)

    public var description: String { "PaginationError: \(message)" }

    public static func == (lhs: PaginationError, rhs: PaginationError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
