/// A source error that may succeed when the same request is sent again (the store's
/// "throttled", SEMANTICS S21). Only errors that conform and say `isRetryable == true`
/// are retried; every other error ends the load at once.
public protocol RetryableError: Error {
    /// Whether sending the same request again may succeed.
    var isRetryable: Bool { get }
}

/// How a pager retries retryable source errors: exponential backoff with seeded jitter.
/// Off by default (`RetryPolicy.none`).
///
/// Retry `n` (1-based) waits `min(initialBackoff × multiplier^(n−1), maxBackoff)`, scaled
/// by a factor drawn uniformly from `[1 − jitterFraction, 1]` with a SplitMix64 generator
/// seeded from `seed`, so the same seed gives the same waits on every machine. Waiting is
/// done by `sleep`, which must throw on task cancellation (the default, `Task.sleep`,
/// does), so a cancelled or reset pager never waits out a backoff.
public struct RetryPolicy: Sendable {
    /// Retries per request after the first attempt; 0 disables retrying. Unit: retries.
    public var maxRetries: Int
    /// Wait before the first retry.
    public var initialBackoff: Duration
    /// Growth factor of the wait per retry; ≥ 1.
    public var multiplier: Double
    /// Upper bound of a single wait, before jitter.
    public var maxBackoff: Duration
    /// Fraction of each wait that is random, in 0...1 (0: no jitter; 1: "full jitter").
    public var jitterFraction: Double
    /// Seed of the jitter generator.
    public var seed: UInt64
    /// Waits for the given duration; injected so tests control time. Must honour cancellation.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// Which source errors are worth retrying. The default retries errors conforming to
    /// `RetryableError` that say so; pass a classifier for a source whose error type
    /// cannot conform (e.g. `{ ($0 as? StoreError)?.isRetryable == true }`).
    public var isRetryable: @Sendable (any Error) -> Bool

    /// No retries: every source error ends the load.
    public static let none = RetryPolicy(maxRetries: 0)

    public init(
        maxRetries: Int,
        initialBackoff: Duration = .milliseconds(10),
        multiplier: Double = 2,
        maxBackoff: Duration = .seconds(1),
        jitterFraction: Double = 0.5,
        seed: UInt64 = 0,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        isRetryable: @escaping @Sendable (any Error) -> Bool = { ($0 as? any RetryableError)?.isRetryable == true }
    ) {
        precondition(maxRetries >= 0, "RetryPolicy.maxRetries must be ≥ 0 (0 disables retries), got \(maxRetries)")
        precondition(initialBackoff >= .zero, "RetryPolicy.initialBackoff must not be negative, got \(initialBackoff)")
        precondition(multiplier >= 1, "RetryPolicy.multiplier must be ≥ 1, got \(multiplier)")
        precondition(maxBackoff >= initialBackoff, "RetryPolicy.maxBackoff must be ≥ initialBackoff, got \(maxBackoff)")
        precondition(
            (0...1).contains(jitterFraction), "RetryPolicy.jitterFraction must be in 0...1, got \(jitterFraction)"
        )
        self.maxRetries = maxRetries
        self.initialBackoff = initialBackoff
        self.multiplier = multiplier
        self.maxBackoff = maxBackoff
        self.jitterFraction = jitterFraction
        self.seed = seed
        self.sleep = sleep
        self.isRetryable = isRetryable
    }

    /// The wait before retry `retry` (1-based), given a uniform random `unit` in [0, 1).
    public func backoff(forRetry retry: Int, unit: Double) -> Duration {
        let initialNanoseconds = Self.nanoseconds(initialBackoff)
        let maxNanoseconds = Self.nanoseconds(maxBackoff)
        var base = initialNanoseconds
        var step = 1
        while step < retry && base < maxNanoseconds {
            base *= multiplier
            step += 1
        }
        base = min(base, maxNanoseconds)
        let scaled = base * (1 - jitterFraction * unit)
        return .nanoseconds(Int64(scaled.rounded()))
    }

    private static func nanoseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}

/// SplitMix64: a tiny seeded generator, identical on every machine (never `Hasher`).
@usableFromInline
struct SplitMix64: Sendable {
    @usableFromInline var state: UInt64

    @usableFromInline init(seed: UInt64) { state = seed }

    @usableFromInline mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    @usableFromInline mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
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
