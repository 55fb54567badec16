import PagebenchPage

/// What a verified token says: the request it is bound to and where it resumes (S16, S18).
public struct TokenContents: Sendable, Hashable {
    public let range: ScanRange
    public let reverse: Bool
    /// The limit the token was issued for (bound only under the strict policy).
    public let limit: Int
    /// The filter the token was issued for (bound only under the strict policy).
    public let filter: Filter?
    /// The partition of the last item evaluated before the token was issued (−1 for an
    /// offset token under writes, which names no key).
    public let lastEvaluatedPartition: Int
    /// The sort key of the last item evaluated before the token was issued (0 for an
    /// offset token under writes).
    public let lastEvaluatedSortKey: UInt64
    /// Under writes with `continuation: offset` (S24): the items of the range the listing
    /// has passed, where the next page starts; nil otherwise.
    public var offset: Int? = nil
}

extension SyntheticStore {
    /// Verifies and decodes a token issued by this store (for inspection and tooling).
    ///
    /// - Throws: ``StoreError`` `invalidToken` for anything this store did not issue (S17).
    public func decodeToken(_ token: String) throws -> TokenContents {
        let decoded = try PageToken.decode(token, key: tokenKey)
        if overlay != nil {
            if offsetContinuation {
                return TokenContents(
                    range: decoded.range,
                    reverse: decoded.reverse,
                    limit: Int(decoded.limit),
                    filter: decoded.filter,
                    lastEvaluatedPartition: -1,
                    lastEvaluatedSortKey: 0,
                    offset: Int(truncatingIfNeeded: decoded.lastPosition)
                )
            }
            guard decoded.lastPosition < layout.endKey else {
                throw StoreError.invalidToken("its position lies outside the store")
            }
            let partition = layout.partition(containingKey: decoded.lastPosition)
            return TokenContents(
                range: decoded.range,
                reverse: decoded.reverse,
                limit: Int(decoded.limit),
                filter: decoded.filter,
                lastEvaluatedPartition: partition,
                lastEvaluatedSortKey: decoded.lastPosition - layout.startKey(of: partition)
            )
        }
        let position = Int(truncatingIfNeeded: decoded.lastPosition)
        guard position >= 0, position < layout.total else {
            throw StoreError.invalidToken("its position lies outside the store")
        }
        let partition = layout.partition(containing: position)
        return TokenContents(
            range: decoded.range,
            reverse: decoded.reverse,
            limit: Int(decoded.limit),
            filter: decoded.filter,
            lastEvaluatedPartition: partition,
            lastEvaluatedSortKey: UInt64(position - layout.start(of: partition))
        )
    }

    /// A token that continues `request` after the item at (`partition`, `sortKey`), as if a
    /// page had ended there (DynamoDB's `ExclusiveStartKey`).
    ///
    /// - Throws: ``StoreError`` for an invalid request, or `invalidToken` when the item is not
    ///   in the request's range.
    public func token(for request: PageRequest, resumingAfter partition: Int, sortKey: UInt64) throws -> String {
        let limit = request.limit ?? defaultLimit
        guard limit >= 1, limit <= PageRequest.maximumLimit else { throw StoreError.invalidLimit(limit) }
        if overlay != nil {
            guard !offsetContinuation else {
                throw StoreError.invalidToken("an offset continuation (S24) resumes at a position, not after a key")
            }
            let (low, high) = try keyBounds(of: request)
            guard partition >= 0, partition < layout.partitions,
                sortKey < KeySpace.localEnd(count: layout.count(of: partition))
            else {
                throw StoreError.invalidToken("key (\(partition), \(sortKey)) lies outside the store")
            }
            let key = layout.startKey(of: partition) + sortKey
            guard key >= low, key < high else {
                throw StoreError.invalidToken("item (\(partition), \(sortKey)) is not in \(request.range)")
            }
            return PageToken(request: request, limit: limit, lastPosition: 0).with(lastPosition: key).encode(
                key: tokenKey
            )
        }
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
