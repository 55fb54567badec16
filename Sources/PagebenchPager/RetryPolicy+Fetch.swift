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
    let immediate: Source.Response?
    do {
        // A source that answers at once spares the executor switch after an `await`.
        immediate = try source.fetchWithoutWaiting(request)
    } catch {
        return try await retryAfterFailure(error, source, request, policy: policy, random: &random, counters: counters)
    }
    if let immediate { return immediate }
    return try await finishAttempt(source, request, failure: nil, policy: policy, random: &random, counters: counters)
}

/// The rest of a first attempt that was made (and counted) with `fetchWithoutWaiting` and
/// did not return a page: awaits `fetch` if it answered nil (`failure` nil), retries as
/// `policy` allows after the error it threw otherwise (or after `fetch`'s).
@inlinable
func finishAttempt<Source: PageSource>(
    _ source: Source,
    _ request: Source.Request,
    failure: (any Error)?,
    policy: RetryPolicy,
    random: inout SplitMix64,
    counters: PagerCounters
) async throws -> Source.Response {
    do {
        if let failure { throw failure }
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
