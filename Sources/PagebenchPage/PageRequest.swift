/// One call to the store: a range, a direction, an optional limit, filter and token.
public struct PageRequest: Sendable, Hashable {
    /// The largest accepted limit (tokens carry it as a 31-bit value).
    public static let maximumLimit = Int(Int32.max)

    /// Which items to walk (S14, S15).
    public var range: ScanRange
    /// Walk in descending key order (S13).
    public var reverse: Bool
    /// The most items to evaluate (not return, S2); `nil` means the store's default (S1).
    public var limit: Int?
    /// Only items passing the filter are returned; all evaluated items are charged (S3).
    public var filter: Filter?
    /// The `nextToken` of the previous page, or `nil` for the first call (S16–S19).
    public var token: String?
    /// Only with a partition range: the sort keys the query walks (DynamoDB's key
    /// condition on the sort key, W2); `nil` for the whole partition. Keys past the
    /// partition's end are simply absent; an empty range gives one empty page without a
    /// token. Not part of a token's binding: a token continues only if its position lies
    /// inside the window (S19).
    public var sortKeys: Range<UInt64>?

    @inlinable
    public init(
        range: ScanRange = .scan,
        reverse: Bool = false,
        limit: Int? = nil,
        filter: Filter? = nil,
        token: String? = nil,
        sortKeys: Range<UInt64>? = nil
    ) {
        self.range = range
        self.reverse = reverse
        self.limit = limit
        self.filter = filter
        self.token = token
        self.sortKeys = sortKeys
    }

    /// The same request continued with another token (or restarted with `nil`).
    /// A pager's page resolver calls it once per page: inlinable, and built field by field
    /// (with the inlinable initialiser) rather than as a copy of `self` whose token is then
    /// replaced, which went through the request's value witness and released the old token
    /// (results/apollo-loadall-fair.md).
    @inlinable
    public func with(token: String?) -> PageRequest {
        PageRequest(range: range, reverse: reverse, limit: limit, filter: filter, token: token, sortKeys: sortKeys)
    }
}
