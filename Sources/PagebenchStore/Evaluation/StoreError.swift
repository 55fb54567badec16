import PagebenchPage

/// An error from the synthetic store: a distinct ``Code`` and a message a user can act on.
///
/// The store's own error, richer than the page contract's ``PageError`` (its code names the
/// exit code, the HTTP status and the wire code of every front end); as a ``PageFailure`` it
/// says which ``PageError/Kind`` it is, so the harness classifies it like any source's.
///
/// `CancellationError` is never wrapped: a cancelled ``SyntheticStore/page(_:)`` throws it
/// unchanged.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for programs; ``message`` says it for people.
    public enum Code: String, Sendable, Hashable, CaseIterable, Codable {
        /// `limit < 1` or too large (S1).
        case invalidLimit
        /// A malformed, truncated, forged or tampered token (S17).
        case invalidToken
        /// A valid token used with a request it was not issued for (S18, S19).
        case tokenMismatch
        /// A parallel-scan segment outside `0 ≤ index < total` (S15).
        case invalidSegment
        /// A query for a partition the store does not have (S14).
        case unknownPartition
        /// Injected throttling (S21); retry after a back-off.
        case throttled
        /// An injected transient fault (S21); retry.
        case injectedFault
        /// A configuration value is out of range or cannot be parsed.
        case invalidConfiguration
    }

    /// The kind of failure.
    public let code: Code
    /// What was wrong and how to fix it.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Whether repeating the same request may succeed (true for the injected failures of S21):
    /// its page-contract kind's ``PageError/Kind/isRetryable``.
    public var isRetryable: Bool { code.pageErrorKind.isRetryable }

    public var description: String { message }

    /// An error a remote store reported (PagebenchHTTPClient's `HTTPStoreSource` decodes the
    /// server's code and message), so a remote source fails exactly as the store would.
    public init(remote code: Code, message: String) {
        self.init(code, message)
    }

    static func invalidLimit(_ limit: Int) -> StoreError {
        StoreError(
            .invalidLimit,
            "invalid limit \(limit): limit must be between 1 and \(PageRequest.maximumLimit); omit it to use the default (S1)"
        )
    }

    static func invalidToken(_ reason: String) -> StoreError {
        StoreError(.invalidToken, "invalid token: \(reason); start again without a token (S17)")
    }

    static func tokenMismatch(_ changes: [String]) -> StoreError {
        StoreError(
            .tokenMismatch,
            "token mismatch: \(changes.joined(separator: "; ")); repeat the request exactly as it was when the token was issued, or start again without a token (S18)"
        )
    }

    static func invalidSegment(index: Int, total: Int) -> StoreError {
        StoreError(
            .invalidSegment,
            "invalid segment \(index) of \(total): the total must be at least 1 and the index between 0 and total − 1 (S15)"
        )
    }

    static func unknownPartition(_ partition: Int, partitions: Int) -> StoreError {
        StoreError(
            .unknownPartition,
            "unknown partition \(partition): this store has partitions 0 to \(partitions - 1) (S14)"
        )
    }

    static func throttled(ordinal: UInt64) -> StoreError {
        StoreError(.throttled, "request \(ordinal) throttled (injected, S21); retry after a back-off")
    }

    static func injectedFault(ordinal: UInt64) -> StoreError {
        StoreError(.injectedFault, "request \(ordinal) failed with an injected transient fault (S21); retry")
    }

    /// A configuration error naming the field, what was wrong and what is accepted.
    public static func invalidConfiguration(_ message: String) -> StoreError {
        StoreError(.invalidConfiguration, "invalid configuration: \(message)")
    }
}

extension StoreError: PageFailure {
    /// The page contract's kind of this error: how the harness retries it and which CSV
    /// error column counts it (docs/contract.md, "Where a broken rule shows up").
    public var pageErrorKind: PageError.Kind { code.pageErrorKind }
}

extension StoreError.Code {
    /// The page contract's kind of a store error: each store code is its own kind, except
    /// `injectedFault` (``PageError/Kind/transient``) and `invalidConfiguration`
    /// (``PageError/Kind/invalidRequest``).
    public var pageErrorKind: PageError.Kind {
        switch self {
        case .invalidLimit: .invalidLimit
        case .invalidToken: .invalidToken
        case .tokenMismatch: .tokenMismatch
        case .invalidSegment: .invalidSegment
        case .unknownPartition: .unknownPartition
        case .throttled: .throttled
        case .injectedFault: .transient
        case .invalidConfiguration: .invalidRequest
        }
    }
}
