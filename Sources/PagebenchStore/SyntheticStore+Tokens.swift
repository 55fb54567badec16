/// What a verified token says: the request it is bound to and where it resumes (S16, S18).
public struct TokenContents: Sendable, Hashable {
    public let range: ScanRange
    public let reverse: Bool
    /// The limit the token was issued for (bound only under the strict policy).
    public let limit: Int
    /// The filter the token was issued for (bound only under the strict policy).
    public let filter: Filter?
    /// The partition of the last item evaluated before the token was issued.
    public let lastEvaluatedPartition: Int
    /// The sort key of the last item evaluated before the token was issued.
    public let lastEvaluatedSortKey: UInt64
}

extension SyntheticStore {
    /// Verifies and decodes a token issued by this store (for inspection and tooling).
    ///
    /// - Throws: ``StoreError`` `invalidToken` for anything this store did not issue (S17).
    public func decodeToken(_ token: String) throws -> TokenContents {
        let decoded = try PageToken.decode(token, key: tokenKey)
        let position = Int(truncatingIfNeeded: decoded.lastPosition)
        guard position >= 0, position < layout.total else {
            throw StoreError.invalidToken("its position lies outside the store")
        }
        let partition = layout.partition(containing: position)
        return TokenContents(
            range: decoded.range, reverse: decoded.reverse, limit: Int(decoded.limit), filter: decoded.filter,
            lastEvaluatedPartition: partition,
            lastEvaluatedSortKey: UInt64(position - layout.start(of: partition)))
    }

    /// A token that continues `request` after the item at (`partition`, `sortKey`), as if a
    /// page had ended there (DynamoDB's `ExclusiveStartKey`).
    ///
    /// - Throws: ``StoreError`` for an invalid request, or `invalidToken` when the item is not
    ///   in the request's range.
    public func token(for request: PageRequest, resumingAfter partition: Int, sortKey: UInt64) throws -> String {
        let limit = request.limit ?? defaultLimit
        guard limit >= 1, limit <= PageRequest.maximumLimit else { throw StoreError.invalidLimit(limit) }
        let (lo, hi) = try bounds(of: request)
        guard partition >= 0, partition < layout.partitions, sortKey < UInt64(layout.count(of: partition)) else {
            throw StoreError.invalidToken("item (\(partition), \(sortKey)) does not exist")
        }
        let position = layout.start(of: partition) + Int(sortKey)
        guard position >= lo, position < hi else {
            throw StoreError.invalidToken("item (\(partition), \(sortKey)) is not in \(request.range)")
        }
        return PageToken(request: request, limit: limit, lastPosition: position).encode(key: tokenKey)
    }
}
