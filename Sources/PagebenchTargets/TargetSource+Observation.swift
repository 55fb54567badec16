import Foundation
import NIOCore
import PagebenchBase
import PagebenchHTTPClient
import PagebenchPage
import PagebenchWire

/// One request to a target and what came back, as `pagebench verify` judges it and
/// `pages --target-file` prints it: the request as sent (masked, T4), the status, the size of
/// the answer, how long it took and what it was: a page (its items, their keys at the
/// target's `itemKey`, its continuation) or why it was not one (T2).
package struct TargetExchange: Sendable {
    /// The drain's request this exchange answered.
    package var request: PageRequest
    /// `METHOD URL` of the request (never a header value, T4).
    package var sent: String
    /// The request body as sent, masked; nil when there was none.
    package var sentBody: String?
    /// The HTTP status; nil when no answer came (connection refused or broken, timeout: T5).
    package var status: Int?
    /// The answer's body in bytes (0 without one).
    package var bodyBytes: Int
    /// Request sent to answer read, in seconds.
    package var seconds: Double
    /// A throttling answer's `Retry-After`, in seconds.
    package var retryAfterSeconds: Int?
    /// The page the answer was, or why it was not one.
    package var outcome: Outcome
    /// A GraphQL answer's `errors`, each entry's `extensions.code` (`BAD_USER_INPUT`,
    /// `INTERNAL_SERVER_ERROR`), nil for an entry without one; empty when the answer carried no
    /// `errors` (or the target is not GraphQL).
    package var graphQLErrorCodes: [String?] = []

    package enum Outcome: Sendable {
        case page(ObservedPage)
        /// Not a page: the contract's kind (`throttled` for 429, 503 and DynamoDB throttling,
        /// T3) and the masked message naming the request and what was wrong.
        case failure(PageError.Kind, String)
    }

    package init(
        request: PageRequest,
        sent: String,
        sentBody: String? = nil,
        status: Int?,
        bodyBytes: Int = 0,
        seconds: Double = 0,
        retryAfterSeconds: Int? = nil,
        outcome: Outcome
    ) {
        self.request = request
        self.sent = sent
        self.sentBody = sentBody
        self.status = status
        self.bodyBytes = bodyBytes
        self.seconds = seconds
        self.retryAfterSeconds = retryAfterSeconds
        self.outcome = outcome
    }

    /// The page, when the answer was one.
    package var page: ObservedPage? {
        if case .page(let page) = outcome { page } else { nil }
    }
}

/// A page as an exchange saw it.
package struct ObservedPage: Sendable, Hashable {
    /// The items returned.
    package var count: Int
    /// Items evaluated: the API's own count when the target names one, else ``count``.
    package var scanned: Int
    /// Whether ``scanned`` is the API's own figure (DynamoDB's `ScannedCount`, a target's
    /// `scannedCount` pointer), not the returned count.
    package var reportsScanned: Bool
    /// Each item's value at the target's `itemKey` as compact JSON (`"a-17"`, `{"N":"5"}`),
    /// `nil` for an item without one; nil when the target has no `itemKey`.
    package var keys: [String?]?
    /// The continuation; nil on a last page.
    package var token: String?

    package init(count: Int, scanned: Int? = nil, reportsScanned: Bool = false, keys: [String?]? = nil, token: String?)
    {
        self.count = count
        self.scanned = scanned ?? count
        self.reportsScanned = reportsScanned
        self.keys = keys
        self.token = token
    }
}

extension TargetSource {
    /// Sends `request`'s page request once and reports what came back, whatever it was: no
    /// retry, no `Retry-After` wait, no P9 refusal (a repeated continuation is returned as a
    /// page, for the caller to judge). Never throws but `CancellationError`.
    package func exchange(_ request: PageRequest) async throws -> TargetExchange {
        let codec = exchange.codec
        let outgoing = codec.makeRequest(request)
        let described = mask(codec.describe(outgoing))
        let body = outgoing.body.map { mask(String(buffer: $0)) }
        let start = ContinuousClock.now
        var result = TargetExchange(
            request: request,
            sent: described,
            sentBody: body,
            status: nil,
            outcome: .failure(.transport, "")
        )
        let answer: HTTPPageAnswer
        do {
            answer = try await client.send(outgoing)
        } catch let error as CancellationError {
            throw error
        } catch {
            result.seconds = (ContinuousClock.now - start).totalSeconds
            result.outcome = .failure(.transport, mask("\(error)"))
            return result
        }
        result.seconds = (ContinuousClock.now - start).totalSeconds
        result.status = answer.status
        result.bodyBytes = answer.body.readableBytes
        result.retryAfterSeconds = answer.retryAfterSeconds
        guard answer.status == 200 else {
            var error = codec.failure(status: answer.status, body: answer.body, sent: outgoing)
            if !PageError.isRetryable(error), answer.status == 429 || answer.status == 503 {
                error = PageError(.throttled, "\(described) answered HTTP \(answer.status)", status: answer.status)
            }
            result.outcome = .failure(Self.kind(of: error), mask("\(error)"))
            return result
        }
        do throws(TargetError) {
            let page = try codec.readPage(answer.body, request: request, described: described)
            let keys = target.itemKey.map { codec.itemKeys(in: answer.body, at: $0) }
            let scanned = page.scannedCount
            result.outcome = .page(
                ObservedPage(
                    count: page.items.count,
                    scanned: scanned,
                    reportsScanned: codec.reportsScanned,
                    keys: keys,
                    token: page.nextToken
                )
            )
        } catch {
            result.outcome = .failure(error.kind.pageErrorKind, mask(error.message))
            if error.kind == .graphQLError { result.graphQLErrorCodes = Self.graphQLErrorCodes(answer.body) }
        }
        return result
    }

    /// Each entry of a GraphQL answer's `errors` array: its `extensions.code` when that is a
    /// string, else nil; empty when the body has no such array (or it nests too deep to read).
    static func graphQLErrorCodes(_ body: ByteBuffer) -> [String?] {
        let document = body.withUnsafeReadableBytes { try? JSONValue.parse($0) }
        guard case .array(let errors)? = document?.objectValue?["errors"] else { return [] }
        return errors.map { $0.objectValue?["extensions"]?.objectValue?["code"]?.stringValue }
    }

    /// The request `request`'s page is fetched with, as an exchange shows it: `METHOD URL`
    /// and the body, masked (T4). Sends nothing.
    package func describe(_ request: PageRequest) -> (sent: String, body: String?) {
        let outgoing = exchange.codec.makeRequest(request)
        return (mask(exchange.codec.describe(outgoing)), outgoing.body.map { mask(String(buffer: $0)) })
    }

    /// The secret values of this target's headers and credentials, hidden (T4): for text
    /// that quotes what the target sent (a continuation) before it is printed.
    package var secretMask: SecretMask { mask }

    /// The contract's kind of an error a codec made.
    static func kind(of error: any Error) -> PageError.Kind {
        switch error {
        case let error as PageError: error.kind
        case let error as TargetError: error.kind.pageErrorKind
        default: .refused
        }
    }
}

extension TargetPageCodec {
    /// Whether the API reports the items a page evaluated (DynamoDB's `ScannedCount`, a
    /// `scannedCount` pointer).
    var reportsScanned: Bool {
        switch target.request {
        case .dynamodb: true
        case .http(let http): http.scannedCount != nil
        case .graphql(let graphql): graphql.scannedCount != nil
        }
    }

    /// The items pointer of the target's kind.
    var itemsPointer: JSONPointer {
        switch target.request {
        case .dynamodb: .dynamoItems
        case .http(let http): http.items
        case .graphql(let graphql): graphql.items
        }
    }

    /// Each item's value at `key` as compact JSON, nil where an item has none; the body is a
    /// page (``readPage(_:request:described:)`` read it), so its items are an array.
    func itemKeys(in body: ByteBuffer, at key: JSONPointer) -> [String?] {
        body.withUnsafeReadableBytes { bytes in
            guard let range = (try? itemsPointer.locate(in: bytes)) ?? nil else { return [] }
            var elements: [Range<Int>] = []
            var reader = JSONReader(UnsafeRawBufferPointer(rebasing: bytes[range]))
            try? reader.readArray { element throws(JSONReadError) in
                _ = element.peek()
                let start = element.offset
                try element.skipValue()
                elements.append((range.lowerBound + start)..<(range.lowerBound + element.offset))
            }
            return elements.map { element in
                let item = UnsafeRawBufferPointer(rebasing: bytes[element])
                guard let found = (try? key.locate(in: item)) ?? nil,
                    let value = try? JSONValue.parse(UnsafeRawBufferPointer(rebasing: item[found]))
                else { return nil }
                return mask(value.text)
            }
        }
    }
}
