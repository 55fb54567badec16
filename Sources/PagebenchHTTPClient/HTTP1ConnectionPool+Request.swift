import NIOCore
import PagebenchTLS
import PagebenchWire

extension HTTP1ConnectionPool {
    /// Why ``request(counting:_:)`` got no response.
    enum RequestFailure: Error {
        /// No connection could be leased or opened.
        case connect(any Error)
        /// The connection failed the request.
        case connection(HTTP1ConnectionError)
    }

    /// One request on a pooled connection: lease, `send` (given the request's deadline),
    /// give the connection back, count the status (or the transport failure) in `counter`.
    /// The request is repeated once on a new connection when the one it got was closed
    /// before the request was written (nothing was sent), or was a reused keep-alive
    /// connection the server closed before answering (the requests of a page source are
    /// reads). Cancelling the calling task closes the connection in use.
    ///
    /// The deadline is ``requestTimeout`` after the request has a connection or starts
    /// opening one (T5): connecting, sending, the whole response and a repeat all fit in it;
    /// bytes arriving do not extend it. Time spent waiting for a free connection of a full
    /// pool does not count: that is the client's own queue (`run` opens one connection per
    /// pager; a test pool of one connection serves concurrent requests one after another).
    ///
    /// - Throws: `CancellationError`, or ``RequestFailure``.
    nonisolated(nonsending) func request(
        counting counter: HTTPStatusCounter,
        _ send:
            nonisolated(nonsending) (HTTP1Connection, NIODeadline) async throws(HTTP1ConnectionError) -> HTTP1Response
    ) async throws -> HTTP1Response {
        // Taken when the request first has a connection; a repeat on a new connection keeps it.
        var deadline: NIODeadline?
        var repeated = false
        while true {
            let connection: HTTP1Connection
            let requestDeadline: NIODeadline
            do {
                (connection, requestDeadline) = try await lease(deadline: deadline)
                deadline = requestDeadline
            } catch {
                if error is CancellationError || Task.isCancelled { throw CancellationError() }
                counter.recordTransportFailure()
                throw RequestFailure.connect(error)
            }
            do throws(HTTP1ConnectionError) {
                let response = try await send(connection, requestDeadline)
                release(connection)
                counter.record(status: response.status)
                return response
            } catch {
                release(connection)
                if case .cancelled = error { throw CancellationError() }
                if Task.isCancelled { throw CancellationError() }
                if error.mayRepeatOnANewConnection, !repeated {
                    repeated = true
                    continue
                }
                counter.recordTransportFailure()
                throw RequestFailure.connection(error)
            }
        }
    }
}

extension HTTP1ConnectionPool.RequestFailure {
    /// The source error of `request` (`METHOD URL`), which got no answer (`transport`, with
    /// `noAnswerHint`) or one that is not HTTP/1.1 (`unexpectedResponse`, with `malformedHint`):
    /// the one wording of ``HTTPStoreSource`` and ``HTTPRequestClient``.
    func sourceError(_ request: String, noAnswerHint: String, malformedHint: String) -> HTTPSourceError {
        switch self {
        case .connect(let error): .transport(request, HTTPStoreSource.describe(error), hint: noAnswerHint)
        case .connection(.malformed(let reason)): .malformedHTTP(request, reason.description, hint: malformedHint)
        case .connection(let error): .transport(request, error, hint: noAnswerHint)
        }
    }
}

extension HTTP1ConnectionPool.RequestFailure {
    /// Whether the server's certificate was refused: the fix is trust, not reachability.
    var refusedCertificate: Bool {
        if case .connection(.tls(let error as TLSError)) = self { return error.isCertificateRefused }
        return false
    }
}

extension HTTP1ConnectionError {
    /// Whether the request may be repeated on a new connection: nothing was sent, or a
    /// reused keep-alive connection was closed by the server before it answered.
    var mayRepeatOnANewConnection: Bool {
        switch self {
        case .closedBeforeSending, .closedBeforeResponse(reused: true): true
        default: false
        }
    }
}
