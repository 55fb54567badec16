/// A source error that may succeed when the same request is sent again (the store's
/// "throttled", docs/contract.md S21). Only errors that conform and say `isRetryable == true`
/// are retried; every other error ends the load at once.
public protocol RetryableError: Error {
    /// Whether sending the same request again may succeed.
    var isRetryable: Bool { get }
}
