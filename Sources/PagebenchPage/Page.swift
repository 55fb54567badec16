/// One page of results (S9).
public struct Page: Sendable, Hashable {
    /// The returned items, in scan order (only those passing the filter).
    public var items: [Item]
    /// Items evaluated on this page, before the filter (S2: `returned ≤ scanned ≤ limit`).
    public var scannedCount: Int
    /// Bytes of the evaluated items; what the budget was charged (S3, S4).
    public var scannedBytes: Int
    /// The token to continue with, `nil` when the range is exhausted (S5, S6).
    public var nextToken: String?

    /// Inlinable: the store's evaluation builds one per request.
    @inlinable
    public init(items: [Item], scannedCount: Int, scannedBytes: Int, nextToken: String?) {
        self.items = items
        self.scannedCount = scannedCount
        self.scannedBytes = scannedBytes
        self.nextToken = nextToken
    }

    /// Items returned: `items.count`.
    public var returnedCount: Int { items.count }

    /// Whether this page returned nothing but still has a token (an "empty page", S3, H1).
    public var isEmptyWithToken: Bool { items.isEmpty && nextToken != nil }
}
