/// The flattened item sequence of a `PageStream` (docs/contract.md P15): yields items one by one
/// and holds at most the rest of the current page.
public struct PageItemStream<Source: PageSource, Info: PaginationInfo, Item>: AsyncSequence, Sendable {
    public typealias Element = Item
    public typealias Failure = any Error

    @usableFromInline let pages: PageStream<Source, Info>
    @usableFromInline let extractItems: @Sendable (Source.Response) -> [Item]

    @inlinable
    init(pages: PageStream<Source, Info>, extractItems: @escaping @Sendable (Source.Response) -> [Item]) {
        self.pages = pages
        self.extractItems = extractItems
    }

    /// Requests, retries and pages of the underlying page stream.
    public var counters: PagerCounters { pages.counters }

    @inlinable
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pages: pages.makeAsyncIterator(), extractItems: extractItems)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline var pages: PageStream<Source, Info>.AsyncIterator
        @usableFromInline let extractItems: @Sendable (Source.Response) -> [Item]
        /// The current page's items not yet yielded, last item first, so that `popLast`
        /// releases each item as it is yielded.
        @usableFromInline var remainingReversed: [Item] = []

        @inlinable
        init(
            pages: PageStream<Source, Info>.AsyncIterator,
            extractItems: @escaping @Sendable (Source.Response) -> [Item]
        ) {
            self.pages = pages
            self.extractItems = extractItems
        }

        @inlinable
        public mutating func next() async throws -> Item? {
            try await next(isolation: nil)
        }

        /// Runs on the caller's isolation (no executor hop per item or page).
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> Item? {
            while remainingReversed.isEmpty {
                guard let page = try await pages.next(isolation: actor) else { return nil }
                remainingReversed = extractItems(consume page)
                remainingReversed.reverse()
            }
            return remainingReversed.popLast()
        }
    }
}
