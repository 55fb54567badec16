import PagebenchPage

/// What `pagebench verify` drains and how far it may go: the partitions and limits, and the
/// bounds that make it safe to point at a production API (docs/verify.md).
package struct VerifyOptions: Sendable, Hashable {
    /// One partition value to verify (`--partition`); nil: a sample of the target's.
    package var partition: String?
    /// How many of the target's partitions to sample (`--partitions`), spread over its list.
    package var partitionSample: Int
    /// The limits each partition is drained at (`--limits`), ascending, each at least 1.
    package var limits: [Int]
    /// Drains at once for V7 (`--concurrency`).
    package var concurrency: Int
    /// Requests per second at most, over every connection (`--rate`).
    package var rate: Double
    /// Requests in all at most (`--max-requests`).
    package var maxRequests: Int
    /// Pages one drain may take before it is cut (`--max-pages`).
    package var maxPagesPerDrain: Int
    /// Seconds the whole verification may take (`--max-seconds`); no request starts after.
    package var maxSeconds: Double
    /// The API binds a token to the limit it was issued at (`--token-binds-limit`): V5 sends
    /// one at another limit.
    package var tokenBindsLimit: Bool
    /// Throttling answers (429, 503, DynamoDB throttling) one request is retried after.
    package var throttleRetries: Int
    /// TLS: a CA file to trust, or no verification (as `run`).
    package var caFile: String?
    package var insecure: Bool

    package static let defaultLimits = [1, 10, 100]
    /// Bounds of the numeric options, stated in the help and checked by ``validate()``.
    package static let rateRange = 0.1...1000.0
    package static let maxRequestsRange = 10...1_000_000
    package static let maxPagesRange = 2...1_000_000
    package static let maxSecondsRange = 1.0...86_400.0
    package static let concurrencyRange = 1...64
    package static let partitionSampleRange = 1...1000
    package static let limitRange = 1...PageRequest.maximumLimit

    package init(
        partition: String? = nil,
        partitionSample: Int = 3,
        limits: [Int] = defaultLimits,
        concurrency: Int = 3,
        rate: Double = 5,
        maxRequests: Int = 2000,
        maxPagesPerDrain: Int = 1000,
        maxSeconds: Double = 600,
        tokenBindsLimit: Bool = false,
        throttleRetries: Int = 3,
        caFile: String? = nil,
        insecure: Bool = false
    ) {
        self.partition = partition
        self.partitionSample = partitionSample
        self.limits = limits
        self.concurrency = concurrency
        self.rate = rate
        self.maxRequests = maxRequests
        self.maxPagesPerDrain = maxPagesPerDrain
        self.maxSeconds = maxSeconds
        self.tokenBindsLimit = tokenBindsLimit
        self.throttleRetries = throttleRetries
        self.caFile = caFile
        self.insecure = insecure
    }

    /// Checks every bound; the message names the flag and what is accepted.
    package func validate() throws(VerifyError) {
        guard !limits.isEmpty else { throw .usage("--limits: give at least one limit, e.g. 1,10,100") }
        for limit in limits where !Self.limitRange.contains(limit) {
            throw .usage(
                "--limits: \(limit) is not a limit; give whole numbers from 1 to \(Self.limitRange.upperBound)"
            )
        }
        guard Set(limits).count == limits.count else { throw .usage("--limits: a limit is given twice") }
        guard Self.rateRange.contains(rate) else {
            throw .usage("--rate must be between 0.1 and 1000 requests per second, got \(rate)")
        }
        guard Self.maxRequestsRange.contains(maxRequests) else {
            throw .usage("--max-requests must be between 10 and 1000000, got \(maxRequests)")
        }
        guard Self.maxPagesRange.contains(maxPagesPerDrain) else {
            throw .usage("--max-pages must be between 2 and 1000000, got \(maxPagesPerDrain)")
        }
        guard Self.maxSecondsRange.contains(maxSeconds) else {
            throw .usage("--max-seconds must be between 1 and 86400, got \(maxSeconds)")
        }
        guard Self.concurrencyRange.contains(concurrency) else {
            throw .usage("--concurrency must be between 1 and 64, got \(concurrency)")
        }
        guard Self.partitionSampleRange.contains(partitionSample) else {
            throw .usage("--partitions must be between 1 and 1000, got \(partitionSample)")
        }
    }
}

/// Why `verify` (or `pages --target-file`) could not run or finish: a bad flag (64), a target
/// file that cannot be used (65, 66), a target that does not answer its first page (69).
package struct VerifyError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        case usage
        case invalidInput
        case missingInput
        case unreachable
    }

    package let kind: Kind
    package let message: String

    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { message }

    package static func usage(_ message: String) -> VerifyError { VerifyError(.usage, message) }
    package static func invalidInput(_ message: String) -> VerifyError { VerifyError(.invalidInput, message) }
    package static func unreachable(_ message: String) -> VerifyError { VerifyError(.unreachable, message) }
}
