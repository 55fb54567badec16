extension HTTP1ConnectionPool {
    /// Why ``request(counting:_:)`` got no response.
    enum RequestFailure: Error {
        /// No connection could be leased or opened.
        case connect(any Error)
        /// The connection failed the request.
        case connection(HTTP1ConnectionError)
    }

    /// One request on a pooled connection: lease, `send`, give the connection back, count the
    /// status (or the transport failure) in `counter`. A reused keep-alive connection that
    /// the server closed before answering is replaced and the request repeated once (the
    /// requests of a page source are reads). Cancelling the calling task closes the
    /// connection in use.
    ///
    /// - Throws: `CancellationError`, or ``RequestFailure``.
    func request(
        counting counter: HTTPStatusCounter,
        _ send: (HTTP1Connection) async throws(HTTP1ConnectionError) -> HTTP1Response
    ) async throws -> HTTP1Response {
        var repeated = false
        while true {
            let connection: HTTP1Connection
            do {
                connection = try await lease()
            } catch {
                if error is CancellationError || Task.isCancelled { throw CancellationError() }
                counter.recordTransportFailure()
                throw RequestFailure.connect(error)
            }
            do throws(HTTP1ConnectionError) {
                let response = try await send(connection)
                release(connection)
                counter.record(status: response.status)
                return response
            } catch {
                release(connection)
                if case .cancelled = error { throw CancellationError() }
                if Task.isCancelled { throw CancellationError() }
                if case .closedBeforeResponse(reused: true) = error, !repeated {
                    repeated = true
                    continue
                }
                counter.recordTransportFailure()
                throw RequestFailure.connection(error)
            }
        }
    }
}
