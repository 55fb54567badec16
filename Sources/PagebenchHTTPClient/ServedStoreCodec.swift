import NIOCore
import PagebenchPage
import PagebenchStore
import PagebenchWire

/// The served store's REST form (`pagebench serve`, docs/serving.md): a page is
/// `GET {target}{path}?{query}` (``PageQuery``) and its answer the store's page body, or its
/// error body, whose store codes come back as the `StoreError`s the store throws in-process
/// (so `throttled` and `injectedFault` stay retryable, S21). The steps around it are
/// ``HTTPPageExchange``'s.
struct ServedStoreCodec: HTTPPageCodec {
    /// The base URL, for messages: `http://127.0.0.1:8080`.
    let target: String
    /// `payload=true` on every request, or nothing.
    let includePayload: Bool?

    func outgoing(for request: PageRequest) -> String {
        PageQuery(request: request, includePayload: includePayload).pathAndQuery
    }

    func describe(_ pathAndQuery: String) -> String { "GET " + target + pathAndQuery }

    /// No: the served store's throttling (S21) is paced by the workload's retry policy alone,
    /// as in-process, whatever `serve --retry-after` says to other clients (boto3, the AWS CLI).
    var honoursRetryAfter: Bool { false }

    func page(from body: ByteBuffer, for request: PageRequest, sent pathAndQuery: String) throws -> Page {
        try PageBody.decode(body)
    }

    func failure(status: Int, body: ByteBuffer, sent pathAndQuery: String) -> any Error {
        Self.failure(status: status, url: target + pathAndQuery, body: body)
    }

    func repeatedContinuation(sent pathAndQuery: String) -> any Error {
        PageError(
            .malformedAnswer,
            "GET \(target + pathAndQuery) answered a page whose nextToken is the token it was sent; following it would request the same page forever (P9)",
            status: 200
        )
    }

    /// The error a non-200 answer's body stands for: a store code is the store's
    /// `StoreError`, an HTTP-only code (`invalidParameter`, `notFound`, `internalError`) is
    /// `rejected`; a body that is not the store's (a proxy's page) is an unexpected status.
    static func failure(status: Int, url: String, body: ByteBuffer) -> any Error {
        if let errorBody = ErrorBody.decode(body), let code = StoreHTTPErrorCode(name: errorBody.code) {
            switch code {
            case .store(let storeCode):
                return StoreError(remote: storeCode, message: errorBody.message)
            case .invalidParameter, .notFound, .internalError:
                return HTTPSourceError.rejected(status: status, serverCode: errorBody.code, message: errorBody.message)
            }
        }
        return HTTPSourceError.unexpectedStatus(status, url: url, body: body)
    }
}
