import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import PagebenchTLS
import PagebenchWire

/// The lean HTTP/1.1 client (``HTTP1ConnectionPool``) for APIs pagebench did not write:
/// any method, headers and body, over `http://` or `https://` (PagebenchTLS), with the same
/// pool, event-loop placement and status counts as ``HTTPStoreSource``.
///
/// A keep-alive connection the server closed while idle is replaced and the request
/// repeated once (list requests are reads, so repeating one is safe). Cancelling the
/// calling task closes the connection in use and throws `CancellationError`.
package final class HTTPRequestClient: Sendable {
    /// How the client connects.
    package struct Configuration: Sendable, Hashable {
        /// The most connections at once; requests beyond it wait for a free one.
        package var connections: Int
        /// How long a request may take, from its start to the last byte of the response:
        /// connecting (at most 10 s of it), TLS, sending and the whole body (T5). A body
        /// that drips a byte at a time fails at this deadline, as a `transport` failure.
        package var requestTimeout: Duration
        /// The largest response body accepted, in bytes.
        package var maximumResponseBytes: Int
        /// HTTPS: a PEM file of trusted roots instead of the system trust store.
        package var caFile: String?
        /// HTTPS: accept any certificate and host name (self-signed test servers only).
        package var insecure: Bool

        package init(
            connections: Int = 8,
            requestTimeout: Duration = .seconds(30),
            maximumResponseBytes: Int = 64 << 20,
            caFile: String? = nil,
            insecure: Bool = false
        ) {
            self.connections = connections
            self.requestTimeout = requestTimeout
            self.maximumResponseBytes = maximumResponseBytes
            self.caFile = caFile
            self.insecure = insecure
        }
    }

    /// One request: method, path and query, extra headers, body.
    package struct Request: Sendable {
        package var method: String
        /// Path and query, percent-encoded: `/items?limit=10`.
        package var pathAndQuery: String
        /// Extra headers (`Host` and `Content-Length` are the client's).
        package var headers: [(name: String, value: String)]
        package var body: ByteBuffer?

        package init(
            method: String,
            pathAndQuery: String,
            headers: [(name: String, value: String)] = [],
            body: ByteBuffer? = nil
        ) {
            self.method = method
            self.pathAndQuery = pathAndQuery
            self.headers = headers
            self.body = body
        }
    }

    /// One response: status, body, `Retry-After`.
    package typealias Response = HTTPPageAnswer

    /// `http` or `https`.
    package let scheme: String
    /// `host:port` as given.
    package let authority: String
    /// The base URL's path (`""` or `/v1`), put before every request path.
    package let pathPrefix: String
    package let configuration: Configuration
    private let pool: HTTP1ConnectionPool
    private let executors: [EventLoopTaskExecutor]
    private let counter = HTTPStatusCounter()

    /// The base URL without a trailing slash, for messages.
    package var baseURL: String { scheme + "://" + authority + pathPrefix }

    /// Creates a client for the server at `baseURL` (`http[s]://host[:port][/prefix]`).
    /// Connects lazily.
    ///
    /// - Throws: ``HTTPSourceError`` (`invalidTarget`) for a URL that is not of that form, or
    ///   an unreadable `caFile`.
    package init(baseURL: String, configuration: Configuration = Configuration()) throws(HTTPSourceError) {
        let url = try HTTPBaseURL(
            baseURL,
            schemes: ["http", "https"],
            schemeHint: "the URL must start with http:// or https://"
        )
        guard configuration.connections >= 1 else {
            throw .invalidTarget(baseURL, "connections must be at least 1, got \(configuration.connections)")
        }
        let (scheme, hostName, port, authority) = (url.scheme, url.host, url.port, url.authority)
        self.scheme = scheme
        self.authority = authority
        self.configuration = configuration
        pathPrefix = url.pathPrefix
        let group = MultiThreadedEventLoopGroup.singleton
        var tls: HTTP1TLS?
        if scheme == "https" {
            tls = try Self.makeTLS(host: hostName, configuration: configuration, url: baseURL, group: group)
        } else if configuration.caFile != nil || configuration.insecure {
            throw .invalidTarget(baseURL, "--ca-file and --insecure apply to https:// targets only")
        }
        pool = HTTP1ConnectionPool(
            endpoint: .init(host: hostName, port: port, hostHeader: authority, tls: tls),
            capacity: configuration.connections,
            group: group,
            connectTimeout: .seconds(10),
            requestTimeout: configuration.requestTimeout,
            maximumBodyBytes: configuration.maximumResponseBytes
        )
        executors = group.makeIterator().map { EventLoopTaskExecutor(eventLoop: $0) }
    }

    private static func makeTLS(
        host: String,
        configuration: Configuration,
        url: String,
        group: any EventLoopGroup
    ) throws(HTTPSourceError) -> HTTP1TLS {
        var verification = TLSClientContext.Verification.systemTrustStore
        if let caFile = configuration.caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw .invalidTarget(url, "the CA file '\(caFile)' does not exist or cannot be read")
            }
            verification = .caFile(caFile)
        }
        if configuration.insecure { verification = .none }
        let context: TLSClientContext
        do {
            context = try TLSClientContext(verification: verification, group: group)
        } catch {
            throw .invalidTarget(url, "cannot set up TLS (\(error)); is the CA file a PEM certificate?")
        }
        return HTTP1TLS(context: context, serverHostname: host)
    }

    /// Closes the pool's connections; the client must not be used afterwards.
    package func shutdown() async {
        await pool.shutdown()
    }

    /// Responses received so far, by HTTP status, and requests that got none.
    package var statusCounts: HTTPStatusCounts { counter.snapshot }

    /// An executor on one of the client's event loops (`index` modulo their number).
    package func taskExecutor(_ index: Int) -> EventLoopTaskExecutor {
        executors[index % executors.count]
    }

    /// What to do about a server certificate that was refused.
    static let certificateHint =
        "the server's certificate is not trusted: give --ca-file with the CA that signed it (--insecure only for a test server)"

    /// Sends `request` on a pooled connection and returns the whole response, any status.
    ///
    /// - Throws: `CancellationError`; ``HTTPSourceError`` (`transport`, retryable) when no
    ///   response arrived, (`unexpectedResponse`) for a response that is not HTTP/1.1.
    package func send(_ request: Request) async throws -> Response {
        let path = pathPrefix + request.pathAndQuery
        let wire = HTTP1Request(
            method: HTTPMethod(rawValue: request.method),
            target: path.isEmpty ? "/" : path,
            headers: request.headers,
            body: request.body
        )
        let url = request.method + " " + baseURL + request.pathAndQuery
        do {
            let response = try await pool.request(counting: counter) {
                (connection, deadline) throws(HTTP1ConnectionError) in
                try await connection.send(wire, deadline: deadline)
            }
            return Response(status: response.status, body: response.body, retryAfterSeconds: response.retryAfterSeconds)
        } catch let failure as HTTP1ConnectionPool.RequestFailure {
            throw failure.sourceError(
                url,
                noAnswerHint: failure.refusedCertificate
                    ? Self.certificateHint : "is the target running and reachable?",
                malformedHint: "is the target an HTTP/1.1 server?"
            )
        }
    }
}
