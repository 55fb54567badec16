import PagebenchBase

extension RetryPolicy {
    /// The retry loop of every pager and of the harness's bare loop, after `firstError`:
    /// while the policy allows (retries left, the error retryable, the task not cancelled),
    /// sleeps the jittered back-off, calls `willRetry` (a retry is counted when its request
    /// is sent) and runs `attempt` again. Throws the last error otherwise.
    /// The caller makes the first attempt itself (its hot path); this is the cold one.
    public func retry<Response>(
        after firstError: any Error,
        random: inout SplitMix64,
        willRetry: () -> Void,
        _ attempt: () async throws -> Response
    ) async throws -> Response {
        var error = firstError
        var retry = 0
        while true {
            guard retry < maxRetries, !(error is CancellationError), isRetryable(error), !Task.isCancelled
            else { throw error }
            retry += 1
            try await sleep(backoff(forRetry: retry, unit: random.nextUnit()))
            try Task.checkCancellation()
            willRetry()
            do {
                return try await attempt()
            } catch let next {
                error = next
            }
        }
    }
}

/// Fetches one page, retrying retryable errors as `policy` allows, counting every attempt.
/// The first attempt is the hot path; the retry loop lives in a separate cold function.
@inlinable
func fetchRetrying<Source: PageSource>(
    _ source: Source,
    _ request: Source.Request,
    policy: RetryPolicy,
    random: inout SplitMix64,
    counters: PagerCounters
) async throws -> Source.Response {
    counters.countRequest()
    do {
        // A source that answers at once spares the executor switch after an `await`.
        if let page = try source.fetchWithoutWaiting(request) { return page }
        return try await source.fetch(request)
    } catch {
        return try await retryAfterFailure(error, source, request, policy: policy, random: &random, counters: counters)
    }
}

@usableFromInline
func retryAfterFailure<Source: PageSource>(
    _ firstError: any Error,
    _ source: Source,
    _ request: Source.Request,
    policy: RetryPolicy,
    random: inout SplitMix64,
    counters: PagerCounters
) async throws -> Source.Response {
    try await policy.retry(after: firstError, random: &random) {
        counters.countRetry()
        counters.countRequest()
    } _: {
        try await source.fetch(request)
    }
}
