public import PagebenchStore

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
public enum StoreHTTPErrorCode: Sendable, Hashable {
    /// The store rejected or failed the request exactly as it would in-process.
    case store(StoreError.Code)
    /// A query parameter or path segment is malformed, unknown or repeated.
    case invalidParameter
    /// No endpoint has this path (or method).
    case notFound
    /// The server failed in a way it did not expect.
    case internalError

    /// The text written into the body's `code` field.
    public var name: String {
        switch self {
        case .store(let code): code.rawValue
        case .invalidParameter: "invalidParameter"
        case .notFound: "notFound"
        case .internalError: "internalError"
        }
    }

    /// Parses a body's `code` field; `nil` for a name this version does not know.
    public init?(name: String) {
        switch name {
        case "invalidParameter": self = .invalidParameter
        case "notFound": self = .notFound
        case "internalError": self = .internalError
        default:
            guard let code = StoreError.Code(rawValue: name) else { return nil }
            self = .store(code)
        }
    }

    /// Whether repeating the same request may succeed: the injected failures of S21
    /// (429 and 503), as ``StoreError/isRetryable`` says in-process.
    public var isRetryable: Bool {
        switch self {
        case .store(let code): code == .throttled || code == .injectedFault
        case .invalidParameter, .notFound, .internalError: false
        }
    }
}
