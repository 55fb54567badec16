import Foundation
import NIOCore
import PagebenchBase
import PagebenchHTTPClient
import PagebenchPage
import PagebenchWire
import Synchronization

/// A real list API as the harness's page source (T1): each ``PageRequest`` of a drain
/// becomes one HTTP request of the target's kind, and each response one ``Page`` whose
/// items are the elements of the configured items array and whose `nextToken` is the API's
/// continuation (a token, a cursor, or a DynamoDB `LastEvaluatedKey` as JSON text).
///
/// The exchange is the one every HTTP page source shares
/// (``PagebenchHTTPClient/HTTPPageExchange``); the kind's requests and answers are
/// ``TargetPageCodec``'s (items are counted, not decoded: see there). What is this source's
/// own: the secrets (T4) and the counts by kind.
///
/// Errors (T2, T3) are the page contract's ``PageError``: HTTP 429 and 503 and DynamoDB
/// throttling are thrown as retryable ``PageError/Kind/throttled`` after waiting out
/// `Retry-After` (at most ``maximumRetryAfterSeconds``), so the workload's retry policy
/// retries them and counts them; everything else that is not a page is counted here by its
/// ``TargetError/Kind`` (the `target_errors_*` columns) and thrown as the contract's kind
/// for it (``TargetError/Kind/pageErrorKind``: transport, refused or malformed answer).
/// Nothing passes through the synthetic store's `StoreError`.
package final class TargetSource: Sendable {
    /// The longest `Retry-After` honoured; a longer one is waited this long.
    package static let maximumRetryAfterSeconds = HTTPThrottling.maximumRetryAfterSeconds

    /// The largest DynamoDB `ConsumedCapacity.CapacityUnits` one response is taken to report;
    /// a larger (or negative) figure is not summed (a 1 MB page costs at most 256 units).
    package static let maximumCapacityUnitsPerResponse = 1_000_000.0

    package let target: Target
    let client: HTTPRequestClient
    /// The kind's requests and answers, and the shared steps around them.
    let exchange: HTTPPageExchange<TargetPageCodec>
    /// Written only on the (rare) failure path.
    private let errorCounts = Mutex<[TargetError.Kind: Int]>([:])
    private let lastErrorMessage = Mutex<String?>(nil)

    /// Hides the secrets the headers and the AWS credentials hold (T4): every message that
    /// leaves ``page(_:)`` passes through it.
    var mask: SecretMask { exchange.codec.mask }

    /// Connects lazily to `target`.
    ///
    /// - Parameters:
    ///   - environment: where `${VAR}` in headers and the AWS credentials come from (T4).
    ///   - sleep: waits out a `Retry-After` (T3); tests inject one that records the waits.
    /// - Throws: ``TargetFileError`` for a header naming an unset variable, missing AWS
    ///   credentials, or an endpoint the client cannot use.
    package init(
        target: Target,
        connections: Int,
        caFile: String? = nil,
        insecure: Bool = false,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) throws(TargetFileError) {
        self.target = target
        let client: HTTPRequestClient
        do {
            client = try HTTPRequestClient(
                baseURL: target.endpoint,
                configuration: .init(
                    connections: max(1, connections),
                    requestTimeout: .milliseconds(Int64(target.timeoutSeconds * 1000)),
                    maximumResponseBytes: target.maximumResponseBytes,
                    caFile: caFile,
                    insecure: insecure
                )
            )
        } catch {
            throw TargetFileError("endpoint: \(error.message)")
        }
        self.client = client
        var headers: [(name: String, value: String)] = []
        for (name, template) in target.headers {
            for variable in template.environmentNames where environment[variable] == nil {
                throw TargetFileError("headers.\(name): the environment variable \(variable) is not set")
            }
            let value = template.render(TemplateBindings(), environment: environment)
            // A line break would end the header (and could start another): refused as input
            // (65), naming the variable but not its value.
            if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                let variables = template.environmentNames.filter {
                    environment[$0]?.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) == true
                }
                throw TargetFileError(
                    "headers.\(name): the environment variable \(variables.joined(separator: ", ")) holds a control character "
                        + "(a line break?); a header value is one line of text"
                )
            }
            headers.append((name, value))
        }
        var credentials: AWSCredentials?
        var signer: SigV4Signer?
        if case .dynamodb(let request) = target.request {
            let found = try AWSCredentials.fromEnvironment(environment)
            credentials = found
            signer = SigV4Signer(credentials: found, region: request.region, service: "dynamodb")
        }
        let codec = TargetPageCodec(
            target: target,
            headers: headers,
            signer: signer,
            mask: SecretMask(target: target, rendered: headers, environment: environment, credentials: credentials),
            authority: client.authority,
            pathPrefix: client.pathPrefix,
            baseURL: client.baseURL
        )
        exchange = HTTPPageExchange(codec: codec, sleep: sleep)
    }

    /// Closes the connections.
    package func shutdown() async {
        await client.shutdown()
    }

    /// Responses by HTTP status, and requests that got none.
    package var statusCounts: HTTPStatusCounts { client.statusCounts }

    /// Non-page responses so far, by kind (kinds with none left out).
    package var errorCountsByKind: [TargetError.Kind: Int] { errorCounts.withLock { $0 } }

    /// The message of the last non-page response, if any.
    package var lastError: String? { lastErrorMessage.withLock { $0 } }

    /// Throttling answers received (429, 503, DynamoDB throttling), retried or not.
    package var throttles: Int { exchange.throttles }

    /// DynamoDB `ConsumedCapacity.CapacityUnits` summed over the responses that carried it
    /// (W4), and how many did; nil when none did.
    package var consumedCapacityUnits: Double? { exchange.codec.capacity.units }

    /// An executor on one of the client's event loops.
    package func taskExecutor(_ index: Int) -> EventLoopTaskExecutor { client.taskExecutor(index) }

    /// Fetches one page of the drain `request` describes.
    ///
    /// The one way out of the source: every error's message is passed through ``mask`` here
    /// (T4), whatever the server sent back and wherever it was quoted.
    ///
    /// - Throws: `CancellationError`; ``PageError``: ``PageError/Kind/throttled`` (retryable)
    ///   for throttling answers, the kind of its ``TargetError/Kind`` for everything that is
    ///   not a page (T2).
    package func page(_ request: PageRequest) async throws -> Page {
        do {
            return try await exchange.page(request) { outgoing in
                do {
                    return try await client.send(outgoing)
                } catch let error as HTTPSourceError {
                    throw TargetError(.transport, error.message)
                }
            }
        } catch let error as TargetError {
            let message = mask(error.message)
            errorCounts.withLock { $0[error.kind, default: 0] += 1 }
            lastErrorMessage.withLock { $0 = message }
            throw PageError(error.kind.pageErrorKind, message, status: error.status)
        } catch let error as PageError {
            throw PageError(error.kind, mask(error.message), status: error.status)
        }
    }

    /// The page a 200 response's body stands for, or the ``TargetError`` it is (T1, T2).
    func readPage(_ body: ByteBuffer, request: PageRequest, described: String) throws(TargetError) -> Page {
        try exchange.codec.readPage(body, request: request, described: described)
    }
}
