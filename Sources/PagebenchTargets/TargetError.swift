import PagebenchPage

/// Why a target's response ended a drain (T2): never a page, never the end of a drain.
/// Messages name the request (method and URL, never a header value) and what was wrong.
///
/// The target's own, finer account of a failure: ``TargetSource`` counts it by ``Kind``
/// (the `target_errors_*` columns) and throws the page contract's ``PageError`` of
/// ``Kind/pageErrorKind`` (the harness's `errors_other`).
public struct TargetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind, counted per run (docs/cli.md, "Errors, retries and TLS").
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// No response: connection refused or broken, no complete response within
        /// `timeoutSeconds` (T5), TLS failure.
        case transport
        /// HTTP 401 or 403: the credentials or headers are wrong.
        case unauthorized
        /// Another non-retryable HTTP status (or retryable ones past the retry policy do not
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
    }

    public let kind: Kind
    public let message: String
    /// The HTTP status, when a response arrived.
    public let status: Int?

    public init(_ kind: Kind, _ message: String, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
    }

    public var description: String { message }
}

extension TargetError.Kind {
    /// The page contract's kind of this failure: no answer is ``PageError/Kind/transport``;
    /// an answer that is an error (401, 403, another status, a DynamoDB `__type`, GraphQL
    /// `errors`) is ``PageError/Kind/refused``; an answer that cannot be read as a page (not
    /// JSON, no items array, a continuation of the wrong type or the one that was sent, P9)
    /// is ``PageError/Kind/malformedAnswer``. None is retryable.
    public var pageErrorKind: PageError.Kind {
        switch self {
        case .transport: .transport
        case .unauthorized, .httpStatus, .graphQLError, .apiError: .refused
        case .notJSON, .missingItems, .badContinuation, .repeatedContinuation: .malformedAnswer
        }
    }
}

extension TargetError: PageFailure {
    public var pageErrorKind: PageError.Kind { kind.pageErrorKind }
}
