import PagebenchBase
import PagebenchPage

extension SyntheticStore {
    /// Serves one page as a remote store would: the writes that arrive with the request
    /// (S22, under `writes`), then the evaluation (S1–S19, S23, S24), injected throttling or
    /// faults (S21) and the service time (S20); then the page or the injected error.
    ///
    /// The wait is cancellable: a cancelled caller gets `CancellationError` at once and
    /// nothing else. Latency draws are a pure function of (seed, request, token); which
    /// calls fail is a pure function of (seed, arrival ordinal), so a run makes the same
    /// number of failures for the same number of calls however its tasks interleave, and a
    /// retried call is a new draw.
    ///
    /// - Throws: `CancellationError`; ``StoreError`` (request errors, `throttled`, `injectedFault`).
    public func page(_ request: PageRequest) async throws -> Page {
        try await serve(request).page
    }

    /// ``page(_:)`` with the write versions that bracket what the page saw (S25): the
    /// harness's consistency accounting reads them.
    public func versionedPage(_ request: PageRequest) async throws -> VersionedPage {
        try await serve(request)
    }

    /// The body of ``page(_:)`` and ``versionedPage(_:)``, inlined into both.
    @inline(__always)
    private func serve(_ request: PageRequest) async throws -> VersionedPage {
        try Task.checkCancellation()
        var before: UInt64 = 0
        if let overlay {
            writesArrive(overlay)
            before = overlay.committedVersion
        }
        let page = try evaluate(request)
        let after = overlay?.startedVersion ?? 0
        var failure: StoreError?
        if service.injectsFailures {
            failure = service.failure(ordinal: counters.requests.wrappingAdd(1, ordering: .relaxed).oldValue)
        }
        if !service.isZero {
            let delay = serviceTime(for: request, scannedBytes: failure == nil ? page.scannedBytes : 0)
            if delay > .zero { try await sleep(delay) }
        }
        if let failure { throw failure }
        return VersionedPage(page: page, versionBefore: before, versionAfter: after)
    }

    /// Whether ``page(_:)`` is exactly a cancellation check plus ``evaluatePage(_:)``: no
    /// service time (S20) and no injected failures (S21) are configured, so a caller may call
    /// those two itself and skip the async call (the in-process harness does, per page).
    /// Never true under writes: writes arrive with each request in ``page(_:)``.
    public var servesWithoutWaiting: Bool { service.isZero && !service.injectsFailures && overlay == nil }

    /// The service time (S20) of a request that scanned `scannedBytes`:
    /// base × (hot ? multiplier : 1) + nanosecondsPerScannedByte × scannedBytes.
    /// Deterministic: the base draw is a hash of (seed, request, token).
    public func serviceTime(for request: PageRequest, scannedBytes: Int) -> Duration {
        var hash = StableHash.combine(service.latencySeed, UInt64(request.reverse ? 1 : 0))
        let (kind, a, b) = PageToken.rangeFields(request.range)
        hash = StableHash.combine(hash, UInt64(kind) << 48 ^ UInt64(a) << 16 ^ UInt64(b))
        hash = StableHash.combine(hash, UInt64(truncatingIfNeeded: request.limit ?? defaultLimit))
        hash = StableHash.combine(hash, StableHash.fnv1a64(request.token ?? ""))
        var nanoseconds = service.baseNanoseconds(hash)
        if !service.hotPartitions.isEmpty, let partition = startPartition(of: request),
            service.hotPartitions.contains(partition)
        {
            nanoseconds *= service.hotMultiplier
        }
        nanoseconds += service.nanosecondsPerScannedByte * Double(scannedBytes)
        // Validation bounds it (StoreConfiguration.maximumServiceNanoseconds); never trap here.
        return .nanoseconds(Int64(min(nanoseconds.rounded(), StoreConfiguration.maximumServiceNanoseconds)))
    }

    /// The partition of the first item a request evaluates (its partition for a query).
    func startPartition(of request: PageRequest) -> Int? {
        if case .partition(let partition) = request.range { return partition }
        guard let (lo, hi) = try? bounds(of: request) else { return nil }
        var position = request.reverse ? hi - 1 : lo
        if overlay != nil {
            // Under writes a token carries a key (keyset) or an offset, not a position.
            guard !offsetContinuation, let text = request.token, let token = try? PageToken.decode(text, key: tokenKey),
                token.lastPosition < layout.endKey
            else { return lo < hi ? layout.partition(containing: position) : nil }
            return layout.partition(containingKey: token.lastPosition)
        }
        if let text = request.token, let token = try? PageToken.decode(text, key: tokenKey) {
            position = Int(truncatingIfNeeded: token.lastPosition) + (request.reverse ? -1 : 1)
        }
        guard position >= lo, position < hi else { return nil }
        return layout.partition(containing: position)
    }
}
