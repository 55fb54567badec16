import NIOCore
import PagebenchPage

/// A failure of ``HTTPStoreSource`` that is not a store error: a bad target URL, a
/// connection that failed, a response that is not what a `pagebench serve` sends.
///
/// Store errors (invalid limit or token, token mismatch, throttled, injected fault…)
/// are thrown as `PagebenchStore.StoreError` with the server's code and message, exactly
/// as the in-process store throws them. `CancellationError` passes through untouched.
/// Both are ``PagebenchPage/PageFailure``s: the harness classifies them by their kind.
package struct HTTPSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for programs.
    package enum Code: String, Sendable, Hashable {
        /// The target is not an `http://host:port[/prefix]` URL.
        case invalidTarget
        /// The connection could not be made or broke, or the request timed out.
        case transport
        /// The server answered with a status and body a store server does not send.
        case unexpectedResponse
        /// The server rejected the request with an HTTP-only code (`invalidParameter`,
        /// `notFound`, `internalError`); ``serverCode`` names it.
        case rejected
    }

    package let code: Code
    /// What was wrong and what to do.
    package let message: String
    /// The HTTP status, when a response arrived.
    package let status: Int?
    /// The error body's `code`, when the server sent one.
    package let serverCode: String?

    private init(_ code: Code, _ message: String, status: Int? = nil, serverCode: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.serverCode = serverCode
    }

    package var description: String { message }

    package static func invalidTarget(_ target: String, _ reason: String) -> HTTPSourceError {
        HTTPSourceError(
            .invalidTarget,
            "invalid target '\(target)': \(reason); give the server's base URL, e.g. http://127.0.0.1:8080"
        )
    }

    package static func transport(_ url: String, _ error: any Error) -> HTTPSourceError {
        HTTPSourceError(
            .transport,
            "GET \(url) failed: \(error); is `pagebench serve` running there and reachable?"
        )
    }

    /// A request of ``HTTPRequestClient`` that got no response; `request` is `METHOD URL`.
    package static func transport(_ request: String, _ error: any Error, hint: String) -> HTTPSourceError {
        HTTPSourceError(.transport, "\(request) failed: \(error); \(hint)")
    }

    package static func malformedHTTP(_ request: String, _ reason: String, hint: String) -> HTTPSourceError {
        HTTPSourceError(.unexpectedResponse, "\(request) got a malformed HTTP response: \(reason); \(hint)")
    }

    package static func malformedResponse(_ reason: String, body: ByteBuffer) -> HTTPSourceError {
        HTTPSourceError(
            .unexpectedResponse,
            "unexpected response: \(reason); body starts: \(excerpt(body))",
            status: 200
        )
    }

    package static func malformedHTTP(_ url: String, _ reason: String) -> HTTPSourceError {
        HTTPSourceError(
            .unexpectedResponse,
            "GET \(url) got a malformed HTTP response: \(reason); is the target a `pagebench serve` (or a proxy in front of one)?"
        )
    }

    package static func unexpectedStatus(_ status: Int, url: String, body: ByteBuffer) -> HTTPSourceError {
        HTTPSourceError(
            .unexpectedResponse,
            "GET \(url) answered HTTP \(status) without a store error body; body starts: \(excerpt(body))",
            status: status
        )
    }

    package static func rejected(status: Int, serverCode: String, message: String) -> HTTPSourceError {
        HTTPSourceError(.rejected, "HTTP \(status) \(serverCode): \(message)", status: status, serverCode: serverCode)
    }

    private static func excerpt(_ body: ByteBuffer) -> String {
        let bytes = body.readableBytesView.prefix(200)
        return "'" + String(decoding: bytes, as: UTF8.self) + (body.readableBytes > 200 ? "…'" : "'")
    }
}

extension HTTPSourceError: PageFailure {
    /// The page contract's kind: a bad target URL is an invalid request, a failed or broken
    /// connection ``PageError/Kind/transport``, a response a store server never sends
    /// ``PageError/Kind/malformedAnswer``, an HTTP-only rejection ``PageError/Kind/refused``.
    /// None is retryable (``PagebenchPage/PageError/Kind/isRetryable``): a broken connection
    /// ends a drain (T2); `http-bench` re-sends an unanswered request as a load of its own
    /// (`HTTPDrainLoad`), not because it is retryable.
    package var pageErrorKind: PageError.Kind {
        switch code {
        case .invalidTarget: .invalidRequest
        case .transport: .transport
        case .unexpectedResponse: .malformedAnswer
        case .rejected: .refused
        }
    }
}
