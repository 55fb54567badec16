/// The bounds every request to ``StoreServer`` is held to, whatever protocol it speaks
/// (W7): its body, its response and the CPU time it may use. A request over a bound gets
/// its protocol's own error naming the bound (and the `serve` flag that sets it); the
/// server keeps serving. The GraphQL front end adds bounds of its own (depth, tokens,
/// fields, cost: `GraphQLBounds`).
///
/// Measured with these defaults (`results/serve-bounds/`): no request of up to 1 MiB costs
/// `serve` more than 1 s of CPU or 256 MiB of memory.
package struct RequestBounds: Sendable, Hashable {
    /// Request bodies (`POST /`, `POST /graphql`) larger than this are refused unread
    /// (`serve --max-body-bytes`).
    package var maximumBodyBytes: Int
    /// A response body larger than this is not sent; the request gets an error naming the
    /// bound instead (`serve --max-response-bytes`). The default serves the largest item
    /// `serve --payload` allows (64 MiB, 86 MiB in base64) and far more than any page of
    /// the default store.
    package var maximumResponseBytes: Int
    /// The CPU time one request may spend in the phases that run on one thread (reading
    /// its body, parsing, validating and costing a GraphQL document, writing the response),
    /// checked cooperatively inside them; nil: unbounded (`serve --max-request-cpu`). Time
    /// spent waiting for the store is not CPU time and is not counted.
    package var maximumCPUTime: Duration?

    package static let defaultMaximumBodyBytes = 1 << 20
    package static let defaultMaximumResponseBytes = 128 << 20
    package static let defaultMaximumCPUTime = Duration.milliseconds(500)

    package init(
        maximumBodyBytes: Int = defaultMaximumBodyBytes,
        maximumResponseBytes: Int = defaultMaximumResponseBytes,
        maximumCPUTime: Duration? = defaultMaximumCPUTime
    ) {
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumResponseBytes = maximumResponseBytes
        self.maximumCPUTime = maximumCPUTime
    }
}
