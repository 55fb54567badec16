import PagebenchBase
public import PagebenchPage

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
    /// Which source errors are worth retrying. The default is the page contract's one rule,
    /// `PageError.isRetryable(_:)` (PagebenchPage): an error that is a
    /// `PageFailure` (`PageError`, the synthetic store's
    /// `StoreError`, a served store's or a real target's errors, or a source's own error that
    /// conforms) of a throttled or transient kind. Pass a classifier only for a source whose
    /// error type cannot conform.
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
        isRetryable: @escaping @Sendable (any Error) -> Bool = { PageError.isRetryable($0) }
    ) {
        precondition(maxRetries >= 0, "RetryPolicy.maxRetries must be ≥ 0 (0 disables retries), got \(maxRetries)")
        precondition(initialBackoff >= .zero, "RetryPolicy.initialBackoff must not be negative, got \(initialBackoff)")
        precondition(multiplier >= 1, "RetryPolicy.multiplier must be ≥ 1, got \(multiplier)")
        precondition(maxBackoff >= initialBackoff, "RetryPolicy.maxBackoff must be ≥ initialBackoff, got \(maxBackoff)")
        precondition(
            (0...1).contains(jitterFraction),
            "RetryPolicy.jitterFraction must be in 0...1, got \(jitterFraction)"
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
