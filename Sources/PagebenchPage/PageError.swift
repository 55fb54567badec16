/// Why a page source did not return a page: a ``Kind`` for programs (the harness's retry
/// policy and its CSV error columns read only the kind) and a message a user can act on.
///
/// Every page source speaks it: the synthetic store (through ``PageFailure``: its
/// `StoreError` says which kind it is), the served store's client, and every kind of real
/// target. `CancellationError` is never wrapped: a cancelled source throws it unchanged.
public struct PageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, grouped by what a caller does about it.
    ///
    /// The harness counts a failed drain in one CSV column per kind (``Kind/isRetryable``
    /// kinds only once the retry policy gave up): `errors_validation` for the four invalid
    /// request kinds, `errors_invalid_token`, `errors_token_mismatch`, `errors_throttled`,
    /// `errors_fault` for ``transient``, and `errors_other` for ``transport``, ``refused``
    /// and ``malformedAnswer`` (a real target also counts those by cause, T2).
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// `limit < 1` or too large (S1).
        case invalidLimit
        /// A parallel-scan segment outside `0 ≤ index < total` (S15).
        case invalidSegment
        /// A query for a partition the source does not have (S14).
        case unknownPartition
        /// Any other request the source refuses as written: a filter that does not parse, a
        /// configuration value out of range, a target URL that is not one.
        case invalidRequest
        /// A malformed, truncated, forged or tampered token (S17).
        case invalidToken
        /// A valid token used with a request it was not issued for (S18, S19).
        case tokenMismatch
        /// The source asks to slow down (S21's injected throttling; HTTP 429, 503 or a
        /// DynamoDB throttling error from a real target, T3); retry after a back-off.
        case throttled
        /// A transient failure (S21's injected fault, a served store's 503); retry.
        case transient
        /// No answer: the connection failed or broke, or no complete response arrived in
        /// time (T2, T5). Not retried: it ends the drain.
        case transport
        /// The source answered with an error of its own that is none of the above: HTTP 401
        /// or 403, another status, a DynamoDB `__type` or GraphQL `errors` (T2), a served
        /// store's HTTP-only code.
        case refused
        /// The answer is not a page: not JSON, no items array, a continuation of the wrong
        /// type, the continuation that was sent (P9), or a body a store server never sends (T2).
        case malformedAnswer

        /// Whether repeating the same request may succeed (``throttled`` and ``transient``).
        @inlinable
        public var isRetryable: Bool { self == .throttled || self == .transient }

        /// The kind of any error a page source throws, or nil for an error that is not a page
        /// failure (`CancellationError`, a caller's own error): the one classification every
        /// retry policy and error column uses.
        @inlinable
        public init?(classifying error: any Error) {
            guard let failure = error as? any PageFailure else { return nil }
            self = failure.pageErrorKind
        }
    }

    /// The kind of failure.
    public let kind: Kind
    /// What was wrong and what to do.
    public let message: String
    /// The HTTP status, when an answer arrived over HTTP.
    public let status: Int?

    public init(_ kind: Kind, _ message: String, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
    }

    /// Whether repeating the same request may succeed.
    public var isRetryable: Bool { kind.isRetryable }

    public var description: String { message }

    /// Whether `error` is a page failure that repeating the request may cure: what the
    /// harness's retry policies ask (S21, T3).
    @inlinable
    public static func isRetryable(_ error: any Error) -> Bool {
        Kind(classifying: error)?.isRetryable == true
    }
}

/// An error that is a page failure of a known ``PageError/Kind``: ``PageError`` itself, and
/// a source's own richer error (the synthetic store's `StoreError`, which also carries its
/// exit code and wire code) that says which kind it is, so that one classification
/// (``PageError/Kind/init(classifying:)``) serves every source.
public protocol PageFailure: Error {
    /// The contract's kind of this failure.
    var pageErrorKind: PageError.Kind { get }
    /// What was wrong and what to do.
    var message: String { get }
}

extension PageError: PageFailure {
    public var pageErrorKind: Kind { kind }
}

extension PageError {
    /// A real target's finer cause of a failed page (T2): each cause is a case of one
    /// ``Kind`` (its ``kind``), so it refines the one classification and never competes with
    /// it. Counted per run in the `target_errors_*` columns, the breakdown of `errors_other`.
    public enum Cause: String, Sendable, Hashable, CaseIterable, Codable {
        /// No response: connection refused or broken, no complete response within
        /// `timeoutSeconds` (T5), TLS failure.
        case transport
        /// HTTP 401 or 403: the credentials or headers are wrong.
        case unauthorized
        /// Another non-retryable HTTP status (retryable ones past the retry policy do not
        /// land here: they stay throttling).
        case httpStatus
        /// The body is not JSON.
        case notJSON
        /// The items pointer names nothing, or not an array.
        case missingItems
        /// The continuation is of the wrong type (a number for a token, a string for a key).
        case badContinuation
        /// A GraphQL `errors` entry (even with HTTP 200).
        case graphQLError
        /// The API answered with its own error (a DynamoDB `__type`).
        case apiError
        /// The continuation equals the one sent (P9): the server would loop forever.
        case repeatedContinuation

        /// The page contract's kind of this cause: no answer is ``Kind/transport``; an
        /// answer that is an error (401, 403, another status, a DynamoDB `__type`, GraphQL
        /// `errors`) is ``Kind/refused``; an answer that cannot be read as a page (not JSON, no
        /// items array, a continuation of the wrong type or the one that was sent, P9) is
        /// ``Kind/malformedAnswer``. None is retryable.
        public var pageErrorKind: Kind {
            switch self {
            case .transport: .transport
            case .unauthorized, .httpStatus, .graphQLError, .apiError: .refused
            case .notJSON, .missingItems, .badContinuation, .repeatedContinuation: .malformedAnswer
            }
        }
    }
}
