extension Workload {
    /// A canonical text of every field that changes what a row measures (concurrency and
    /// repetitions are columns of their own and are left out). It is half of a scenario's
    /// `configuration_hash` (``Scenario/configurationHash``): a new workload field that changes
    /// what is measured gets a line here, and every existing hash stays as it was only if the
    /// new line is left out at the field's default (as `watchSeconds` and `stages` are).
    public var canonicalText: String {
        ([
            "pagebench-workload-v1",
            "pager=\(pager)",
            "read=\(read)",
            "limit=\(limit.map(String.init) ?? "default")",
            "filter=\(filter.map(\.description) ?? "none")",
            "reverse=\(reverse)",
            "drain=\(drain)",
            "load=\(load)",
            "bound=\(bound)",
            "warmupSeconds=\(warmupSeconds)",
            "cancelFraction=\(cancelFraction)",
            "cancelAtEnd=\(cancelAtEnd)",
            "retry=\(retry.maxRetries),\(retry.initialBackoffNanoseconds),\(retry.maxBackoffNanoseconds),\(retry.multiplier),\(retry.jitter)",
            "seed=\(seed.map(String.init) ?? "store")",
            "pageTiming=\(pageTiming)",
            "yieldEveryPages=\(yieldEveryPages)",
        ] + (pager == .apolloWatch ? ["watchSeconds=\(watchSeconds)"] : [])).joined(separator: ";")
            // Only staged workloads name their plan: the hashes of the others stay as they were.
            + (stages.map { ";stages=\($0);rampDown=\(rampDown.rawValue)" } ?? "")
    }
}
