import NIOCore
import PagebenchPage
import Synchronization

/// What one API's page requests look like on HTTP: how a ``PagebenchPage/PageRequest`` is put
/// on the wire and how the answers are read. The steps every API shares (send, throttling,
/// `Retry-After`, non-page answers, P9) are ``HTTPPageExchange``'s; a codec holds only what
/// differs: the served store's REST form (``HTTPStoreSource``), a target file's kind
/// (`http`, `graphql`, `dynamodb`: PagebenchTargets' `TargetSource`).
package protocol HTTPPageCodec: Sendable {
    /// One page's request as this API sends it.
    associatedtype Outgoing: Sendable

    /// The request for `request`'s page.
    func outgoing(for request: PageRequest) -> Outgoing

    /// `METHOD URL` of `outgoing`, for messages: never a header value (T4).
    func describe(_ outgoing: Outgoing) -> String

    /// The page a 200 answer's `body` stands for (T1).
    ///
    /// - Throws: this API's error when the body is not a page (T2).
    func page(from body: ByteBuffer, for request: PageRequest, sent outgoing: Outgoing) throws -> Page

    /// The error an answer other than 200 stands for, in this API's words: what its error
    /// body says (the served store's code, a DynamoDB `__type`), else what its status says. A
    /// retryable one (``PagebenchPage/PageError/Kind/isRetryable``) is a throttling answer
    /// (T3): DynamoDB's throttling types, the served store's `throttled` and `injectedFault`.
    func failure(status: Int, body: ByteBuffer, sent outgoing: Outgoing) -> any Error

    /// The error of a page whose continuation is the one `outgoing` sent (P9).
    func repeatedContinuation(sent outgoing: Outgoing) -> any Error

    /// Whether a throttling answer's `Retry-After` is waited out before it is thrown: yes for
    /// a real API (T3, the default); no for the served store, whose throttling the workload's
    /// retry policy alone paces, exactly as in-process (S21), so that `run --target` rows
    /// stay the in-process rows.
    var honoursRetryAfter: Bool { get }
}

extension HTTPPageCodec {
    package var honoursRetryAfter: Bool { true }
}

/// The `Retry-After` rule of every HTTP page source (T3).
package enum HTTPThrottling {
    /// The longest `Retry-After` honoured, in seconds; a longer one is waited this long.
    package static let maximumRetryAfterSeconds = 30
}

/// One page request on HTTP, whatever the API (T1–T3, P9): the codec builds the request, the
/// caller's `send` puts it on a pooled connection (status counts are the pool's), and the
/// answer is read here in one order for every API:
///
/// 1. 200: the codec reads the page; a page whose continuation is the one that was sent is
///    refused (P9: following it would request the same page forever).
/// 2. A throttling answer (T3): the codec's own retryable reading of the answer (DynamoDB's
///    throttling types, the served store's `throttled`), else any 429 or 503 as a retryable
///    ``PagebenchPage/PageError/Kind/throttled``. It is counted in ``throttles``, and, when
///    the codec honours it (``HTTPPageCodec/honoursRetryAfter``), `Retry-After` is waited out
///    (at most ``HTTPThrottling/maximumRetryAfterSeconds``) before it is thrown, so that the
///    caller's retry policy repeats the request no earlier than the server asked.
/// 3. Any other answer: the codec's error for it, thrown at once.
///
/// `CancellationError` passes through untouched, also during a `Retry-After` wait.
package final class HTTPPageExchange<Codec: HTTPPageCodec>: Sendable {
    /// How this API's requests and answers look.
    package let codec: Codec
    /// Waits out a `Retry-After`; must throw on cancellation (`Task.sleep` does). Injected so
    /// that tests see the waits without taking them.
    private let sleep: @Sendable (Duration) async throws -> Void
    private let throttleAnswers = Atomic<Int>(0)

    package init(
        codec: Codec,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.codec = codec
        self.sleep = sleep
    }

    /// Throttling answers received so far (retried or not).
    package var throttles: Int { throttleAnswers.load(ordering: .relaxed) }

    /// Fetches `request`'s page: the codec's request, sent by `send`, its answer read as the
    /// type's documentation says.
    ///
    /// - Parameter send: puts the codec's request on the wire and returns the whole answer,
    ///   any status; throws the source's error when no answer came (transport, T2) or
    ///   `CancellationError`.
    /// - Throws: what `send` throws; the codec's errors; a retryable throttling error (T3); the
    ///   codec's ``HTTPPageCodec/repeatedContinuation(sent:)`` (P9).
    // Inlined into the source's `page`: one async frame less per request, which kept the
    // served store's request as cheap as before the exchange (results/page-loop.md).
    @inline(__always)
    package nonisolated(nonsending) func page(
        _ request: PageRequest,
        send: nonisolated(nonsending) (Codec.Outgoing) async throws -> HTTPPageAnswer
    ) async throws -> Page {
        let outgoing = codec.outgoing(for: request)
        let answer = try await send(outgoing)
        guard answer.status == 200 else { throw try await failure(answer, sent: outgoing) }
        let page = try codec.page(from: answer.body, for: request, sent: outgoing)
        if let sent = request.token, page.nextToken == sent { throw codec.repeatedContinuation(sent: outgoing) }
        return page
    }

    /// The error a non-200 answer stands for; for a throttling answer, after its `Retry-After`.
    private nonisolated(nonsending) func failure(
        _ answer: HTTPPageAnswer,
        sent outgoing: Codec.Outgoing
    ) async throws -> any Error {
        var error = codec.failure(status: answer.status, body: answer.body, sent: outgoing)
        if !PageError.isRetryable(error) {
            switch answer.status {
            case 429: error = PageError(.throttled, "\(codec.describe(outgoing)) throttled (HTTP 429)", status: 429)
            case 503: error = PageError(.throttled, "\(codec.describe(outgoing)) unavailable (HTTP 503)", status: 503)
            default: return error
            }
        }
        throttleAnswers.add(1, ordering: .relaxed)
        if codec.honoursRetryAfter, let seconds = answer.retryAfterSeconds, seconds > 0 {
            try await sleep(.seconds(min(seconds, HTTPThrottling.maximumRetryAfterSeconds)))
        }
        return error
    }
}

/// A whole HTTP answer: status, body, and the `Retry-After` header in seconds when sent.
package struct HTTPPageAnswer: Sendable {
    package var status: Int
    package var body: ByteBuffer
    /// The `Retry-After` header in seconds, when sent.
    package var retryAfterSeconds: Int?

    package init(status: Int, body: ByteBuffer, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.body = body
        self.retryAfterSeconds = retryAfterSeconds
    }
}
