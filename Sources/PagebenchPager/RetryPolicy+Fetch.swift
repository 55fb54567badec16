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
    var error = firstError
    var retry = 0
    while true {
        guard retry < policy.maxRetries, !(error is CancellationError), policy.isRetryable(error),
            !Task.isCancelled
        else { throw error }
        retry += 1
        try await policy.sleep(policy.backoff(forRetry: retry, unit: random.nextUnit()))
        try Task.checkCancellation()
        counters.countRetry()
        counters.countRequest()
        do {
            return try await source.fetch(request)
        } catch let next {
            error = next
        }
    }
}
