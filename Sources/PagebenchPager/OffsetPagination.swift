/// Offset-based pagination info (`offset` = items before the page to request), forward,
/// reverse or bidirectional (docs/contract.md P14).
public enum OffsetPagination {
    /// Forward offset pagination: the next page starts at `offset`.
    public struct Forward: PaginationInfo, Hashable {
        /// Offset of the first item of the next page, in items from the start.
        public var offset: Int
        public var canLoadNext: Bool
        public var canLoadPrevious: Bool { false }

        public init(offset: Int, canLoadNext: Bool) {
            self.offset = offset
            self.canLoadNext = canLoadNext
        }

        public func repeatsPosition(of previous: Self, direction: PaginationDirection) -> Bool {
            direction == .next && canLoadNext && offset == previous.offset
        }

        public func positionDescription(direction: PaginationDirection) -> String { "offset \(offset)" }
    }

    /// Reverse offset pagination: the previous page ends just before `offset`.
    public struct Reverse: PaginationInfo, Hashable {
        /// Offset of the first item already held, in items from the start.
        public var offset: Int
        public var canLoadNext: Bool { false }
        public var canLoadPrevious: Bool

        public init(offset: Int, canLoadPrevious: Bool) {
            self.offset = offset
            self.canLoadPrevious = canLoadPrevious
        }

        public func repeatsPosition(of previous: Self, direction: PaginationDirection) -> Bool {
            direction == .previous && canLoadPrevious && offset == previous.offset
        }

        public func positionDescription(direction: PaginationDirection) -> String { "offset \(offset)" }
    }

    /// Offset pagination in both directions. `offset` is the page's own start offset; the
    /// resolver derives the next offset (offset + page size) or the previous one from it.
    public struct Bidirectional: PaginationInfo, Hashable {
        public var offset: Int
        public var canLoadNext: Bool
        public var canLoadPrevious: Bool

        public init(offset: Int, canLoadNext: Bool, canLoadPrevious: Bool) {
            self.offset = offset
            self.canLoadNext = canLoadNext
            self.canLoadPrevious = canLoadPrevious
        }

        public func repeatsPosition(of previous: Self, direction: PaginationDirection) -> Bool {
            switch direction {
            case .next: canLoadNext && offset == previous.offset
            case .previous: canLoadPrevious && offset == previous.offset
            }
        }

        public func positionDescription(direction: PaginationDirection) -> String { "offset \(offset)" }
    }
}
