extension Target {
    /// The placeholders the target's request templates use: what of a drain's request reaches
    /// the API (a workload's `filter` reaches it only through `${filter}`, its limit through
    /// `${limit}` or DynamoDB's `Limit`). Rows say only what was sent (issue 35).
    package var placeholders: Set<Placeholder> {
        switch request {
        case .http(let http): http.path.placeholders.union(http.body?.placeholders ?? [])
        case .graphql(let graphql): graphql.variables.placeholders
        case .dynamodb(let dynamo):
            // `Limit` and (for a Scan) `Segment`/`TotalSegments` are always sent when set.
            (dynamo.expressionAttributeValues?.placeholders ?? []).union([.limit, .segment, .totalSegments, .reverse])
        }
    }

    /// Whether a drain's `limit` reaches the API.
    package var sendsLimit: Bool { placeholders.contains(.limit) }

    /// The filter the API was asked to apply, as a row's `filter` column says it: the
    /// workload's (`workloadFilter`, `--filter`'s spelling, nil for none) where a template
    /// sends `${filter}`, a DynamoDB target's own `FilterExpression`, else empty: nothing was
    /// sent, whatever the workload says.
    package func sentFilter(workloadFilter: String?) -> String {
        if placeholders.contains(.filter) { return workloadFilter ?? "none" }
        if case .dynamodb(let dynamo) = request, let expression = dynamo.filterExpression { return expression }
        return ""
    }

    /// Whether the API reports the items it evaluated per page (`scannedCount`; DynamoDB's
    /// `ScannedCount` always): without it `scanned_items` counts the items returned.
    package var reportsScannedCount: Bool {
        switch request {
        case .http(let http): http.scannedCount != nil
        case .graphql(let graphql): graphql.scannedCount != nil
        case .dynamodb: true
        }
    }
}
