import PagebenchPage
import PagebenchStore

/// The `code` of an HTTP error body: every ``StoreError/Code`` under its own name, plus the
/// few failures only HTTP has. Clients switch on it; people read the body's `message`.
///
/// The statuses below are the server's (`StoreHTTPErrorCode+Status.swift` in PagebenchServer):
///
/// | code | status |
/// | --- | --- |
/// | `invalidLimit`, `invalidToken`, `invalidSegment`, `invalidConfiguration`, `invalidParameter` | 400 |
/// | `unknownPartition`, `notFound` | 404 |
/// | `tokenMismatch` | 409 |
/// | `throttled` | 429 (with `Retry-After`) |
/// | `internalError` | 500 |
/// | `injectedFault` | 503 |
package enum StoreHTTPErrorCode: Sendable, Hashable {
    /// The store rejected or failed the request exactly as it would in-process.
    case store(StoreError.Code)
    /// A query parameter or path segment is malformed, unknown or repeated.
    case invalidParameter
    /// No endpoint has this path (or method).
    case notFound
    /// The server failed in a way it did not expect.
    case internalError

    /// The text written into the body's `code` field.
    package var name: String {
        switch self {
        case .store(let code): code.rawValue
        case .invalidParameter: "invalidParameter"
        case .notFound: "notFound"
        case .internalError: "internalError"
        }
    }

    /// Parses a body's `code` field; `nil` for a name this version does not know.
    package init?(name: String) {
        switch name {
        case "invalidParameter": self = .invalidParameter
        case "notFound": self = .notFound
        case "internalError": self = .internalError
        default:
            guard let code = StoreError.Code(rawValue: name) else { return nil }
            self = .store(code)
        }
    }

    /// The page contract's kind of this code, the one classification (``PagebenchPage/PageError/Kind``):
    /// a store code is its own ``StoreError/Code/pageErrorKind``; the HTTP-only codes are
    /// ``PagebenchPage/PageError/Kind/refused``, as a client reading the body classifies them
    /// (`HTTPSourceError.rejected`). Whether a code is retryable (the body's `retryable`) is
    /// this kind's ``PagebenchPage/PageError/Kind/isRetryable``, never a list of its own.
    package var pageErrorKind: PageError.Kind {
        switch self {
        case .store(let code): code.pageErrorKind
        case .invalidParameter, .notFound, .internalError: .refused
        }
    }
}
