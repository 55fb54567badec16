import PagebenchWire

/// A real list API that `pagebench run --target-file FILE` load-tests (docs/contract.md T1–T4):
/// where it is, how a drain's page request becomes an HTTP request, and where the items and
/// the continuation are in the response. Loaded and validated from JSON by
/// ``Target/load(json:defaultName:baseDirectory:)``; every key is documented in
/// docs/file-formats.md, "Target files".
package struct Target: Sendable {
    /// The three kinds of API.
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Every kind's name, as help texts list them: `dynamodb, http, graphql`.
        package static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

        /// The DynamoDB JSON 1.0 API (Query or Scan), signed with SigV4.
        case dynamodb
        /// Any JSON list API over HTTP: request templates and JSON Pointers.
        case http
        /// A GraphQL list field: AppSync `nextToken` or a Relay connection.
        case graphql
    }

    /// Names rows: `SCENARIO@TARGET` (the built-in scenario's by the target's name), and leads their labels.
    package var name: String
    package var kind: Kind
    /// `http[s]://host[:port][/path]`: the base URL (http) or the endpoint POSTed to.
    package var endpoint: String
    /// The partition key values drains choose from (`read: partition:*`); nil when the
    /// target has no partitions (scans only).
    package var partitions: [JSONValue]?
    /// Extra request headers; values may hold `${VAR}` environment references (T4).
    package var headers: [(name: String, value: TextTemplate)]
    /// How long one request may take, connect to last byte (T5): a total deadline, not a
    /// gap between bytes.
    package var timeoutSeconds: Double
    /// The largest response body accepted.
    package var maximumResponseBytes: Int
    package var request: Request
    /// Where each item's identity is, inside the item (`"/id"`; for DynamoDB `"/sk/N"`): what
    /// `pagebench verify` compares across limits and drains (V1, V7) and `pages` prints. nil:
    /// items are only counted. Not part of ``targetHash``: it changes nothing that is sent.
    package var itemKey: JSONPointer?
    /// The values the API's filter takes (`"filters"`: `["open", "closed"]`), sent through
    /// `${filter}` by `pagebench verify` and `pages` (``filterValue``): verify drains with the
    /// first and, when ``tokensBind`` holds `filter`, sends its token with the second (V5). nil:
    /// none declared. Not part of ``targetHash``: `run` fills `${filter}` from its workload.
    package var filters: [JSONValue]?
    /// What the API binds a continuation to besides its partition (`"tokensBind"`), so that
    /// verify sends a token with another limit or filter and expects a refusal (V5).
    package var tokensBind: Set<TokenBinding> = []
    /// The value `${filter}` takes in place of the workload's filter: one of ``filters``,
    /// chosen by verify and `pages`; nil (as loaded): the workload's `--filter`, as `run` sends.
    package var filterValue: JSONValue?
    /// A SHA-256 prefix of the target's canonical JSON with header values left out, so that
    /// rows of different targets are never compared and no secret reaches a results file.
    package var targetHash: String

    /// What a continuation may be bound to besides its partition (`"tokensBind"`).
    package enum TokenBinding: String, Sendable, Hashable, CaseIterable, Comparable {
        /// A token sent with another limit than it was issued at is refused (serve's strict policy, S18).
        case limit
        /// A token sent with another of ``Target/filters`` than it was issued with is refused.
        case filter

        package static func < (lhs: TokenBinding, rhs: TokenBinding) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// How pages are requested and read, by kind.
    package enum Request: Sendable {
        case http(HTTPRequest)
        case graphql(GraphQLRequest)
        case dynamodb(DynamoDBRequest)
    }

    /// The `http` kind.
    package struct HTTPRequest: Sendable {
        package var method: String
        /// Path and query after the endpoint, with placeholders (values URL-encoded).
        package var path: TextTemplate
        /// The JSON body, with placeholders; nil for none.
        package var body: JSONTemplate?
        package var items: JSONPointer
        package var continuation: JSONPointer
        /// Where a continuation goes in the next request; nil when a template holds
        /// `${continuation}` itself.
        package var continuationIn: ContinuationPlacement?
        /// Items evaluated per page, when the API reports it.
        package var scannedCount: JSONPointer?
    }

    /// Where the http kind puts a continuation.
    package enum ContinuationPlacement: Sendable, Hashable {
        /// A query parameter of this name (left out on a drain's first page).
        case query(String)
        /// A body member at this pointer (left out on a drain's first page).
        case body(JSONPointer)
        /// A request header of this name (left out on a drain's first page).
        case header(String)
    }

    /// The `graphql` kind.
    package struct GraphQLRequest: Sendable {
        package enum Shape: String, Sendable, Hashable, CaseIterable {
            /// `items` + a `nextToken` string, null at the end.
            case appsync
            /// `edges` + `pageInfo {hasNextPage endCursor}` (or backwards
            /// `hasPreviousPage startCursor`).
            case relay
        }

        package var query: String
        package var operationName: String?
        package var variables: JSONTemplate
        package var shape: Shape
        /// The variable the continuation is passed in (`nextToken`, `after`, `before`).
        package var continuationVariable: String
        package var items: JSONPointer
        /// AppSync: where the `nextToken` is.
        package var continuation: JSONPointer?
        /// Relay: where `pageInfo` is.
        package var pageInfo: JSONPointer?
        /// Relay: forward (`hasNextPage`/`endCursor`) or backward (`hasPreviousPage`/`startCursor`).
        package var backward: Bool
        package var scannedCount: JSONPointer?
    }

    /// The `dynamodb` kind.
    package struct DynamoDBRequest: Sendable {
        package enum Operation: String, Sendable, Hashable, CaseIterable {
            case query = "Query"
            case scan = "Scan"
        }

        package var region: String
        package var table: String
        package var operation: Operation
        package var indexName: String?
        package var keyConditionExpression: String?
        package var filterExpression: String?
        package var projectionExpression: String?
        package var expressionAttributeNames: [String: String]?
        /// DynamoDB attribute values; `"${partition}"` in one of them receives the drain's
        /// partition key value (as the string DynamoDB's wire form wants, for `S` and `N`).
        package var expressionAttributeValues: JSONTemplate?
        /// nil: the workload's `reverse` decides.
        package var scanIndexForward: Bool?
        package var consistentRead: Bool?
        /// Ask for `ConsumedCapacity` (TOTAL) and record it (W4).
        package var returnConsumedCapacity: Bool
    }
}
