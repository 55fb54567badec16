/// Cursor-based pagination info (a `nextToken`, GraphQL connection cursors), forward,
/// reverse or bidirectional (docs/contract.md P14).
public enum CursorBasedPagination {
    /// Forward-only cursor pagination: the page after this one starts at `endCursor`.
    public struct Forward: PaginationInfo, Hashable {
        /// Whether a next page exists; for a `nextToken` API: the token is non-nil.
        public var hasNext: Bool
        /// The cursor (token) that requests the next page; nil when there is none.
        public var endCursor: String?

        public var canLoadNext: Bool { hasNext }
        public var canLoadPrevious: Bool { false }

        public init(hasNext: Bool, endCursor: String?) {
            self.hasNext = hasNext
            self.endCursor = endCursor
        }

        /// A `nextToken` page: there is a next page exactly when the token is non-nil.
        public init(nextToken: String?) {
            self.init(hasNext: nextToken != nil, endCursor: nextToken)
        }

        @inlinable @inline(__always)
        public func repeatsPosition(of previous: Self, direction: PaginationDirection) -> Bool {
            guard direction == .next, hasNext, let endCursor, let previousCursor = previous.endCursor else {
                return false
            }
            return cursorsEqual(endCursor, previousCursor)
        }

        public func positionDescription(direction: PaginationDirection) -> String {
            endCursor.map { "cursor \"\($0)\"" } ?? "no cursor"
        }
    }

    /// Reverse-only cursor pagination: the page before this one ends at `startCursor`.
    public struct Reverse: PaginationInfo, Hashable {
        /// Whether a previous page exists.
        public var hasPrevious: Bool
        /// The cursor (token) that requests the previous page; nil when there is none.
        public var startCursor: String?

        public var canLoadNext: Bool { false }
        public var canLoadPrevious: Bool { hasPrevious }

        public init(hasPrevious: Bool, startCursor: String?) {
            self.hasPrevious = hasPrevious
            self.startCursor = startCursor
        }

        @inlinable @inline(__always)
        public func repeatsPosition(of previous: Self, direction: PaginationDirection) -> Bool {
            guard direction == .previous, hasPrevious, let startCursor, let previousCursor = previous.startCursor
            else { return false }
            return cursorsEqual(startCursor, previousCursor)
        }

        public func positionDescription(direction: PaginationDirection) -> String {
            startCursor.map { "cursor \"\($0)\"" } ?? "no cursor"
        }
    }

    /// Cursor pagination in both directions from an initial page in the middle.
    public struct Bidirectional: PaginationInfo, Hashable {
        public var hasNext: Bool
        public var endCursor: String?
        public var hasPrevious: Bool
        public var startCursor: String?

        public var canLoadNext: Bool { hasNext }
        public var canLoadPrevious: Bool { hasPrevious }

        public init(hasNext: Bool, endCursor: String?, hasPrevious: Bool, startCursor: String?) {
            self.hasNext = hasNext
            self.endCursor = endCursor
            self.hasPrevious = hasPrevious
            self.startCursor = startCursor
        }

        @inlinable @inline(__always)
        public func repeatsPosition(of previous: Self, direction: PaginationDirection) -> Bool {
            switch direction {
            case .next:
                guard hasNext, let endCursor, let previousCursor = previous.endCursor else { return false }
                return cursorsEqual(endCursor, previousCursor)
            case .previous:
                guard hasPrevious, let startCursor, let previousCursor = previous.startCursor else { return false }
                return cursorsEqual(startCursor, previousCursor)
            }
        }

        public func positionDescription(direction: PaginationDirection) -> String {
            let cursor = direction == .next ? endCursor : startCursor
            return cursor.map { "cursor \"\($0)\"" } ?? "no cursor"
        }
    }
}
