public import PagebenchWire
/// A real list API that `pagebench run --target-file FILE` load-tests (docs/contract.md T1–T4):
/// where it is, how a drain's page request becomes an HTTP request, and where the items and
/// the continuation are in the response. Loaded and validated from JSON by
/// ``Target/load(json:defaultName:baseDirectory:)``; every key is documented in
/// docs/file-formats.md, "Target files".
public struct Target: Sendable {
    /// The three kinds of API.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Every kind's name, as help texts list them: `dynamodb, http, graphql`.
        public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

        /// The DynamoDB JSON 1.0 API (Query or Scan), signed with SigV4.
        case dynamodb
        /// Any JSON list API over HTTP: request templates and JSON Pointers.
        case http
        /// A GraphQL list field: AppSync `nextToken` or a Relay connection.
        case graphql
    }

    /// Names rows: `SCENARIO@TARGET` (the built-in scenario's by the target's name), and leads their labels.
    public var name: String
    public var kind: Kind
    /// `http[s]://host[:port][/path]`: the base URL (http) or the endpoint POSTed to.
    public var endpoint: String
    /// The partition key values drains choose from (`read: partition:*`); nil when the
    /// target has no partitions (scans only).
    public var partitions: [JSONValue]?
    /// Extra request headers; values may hold `${VAR}` environment references (T4).
    public var headers: [(name: String, value: TextTemplate)]
    /// How long one request may take, connect to last byte (T5): a total deadline, not a
    /// gap between bytes.
    public var timeoutSeconds: Double
    /// The largest response body accepted.
    public var maximumResponseBytes: Int
    public var request: Request
    /// Where each item's identity is, inside the item (`"/id"`; for DynamoDB `"/sk/N"`): what
    /// `pagebench verify` compares across limits and drains (V1, V7) and `pages` prints. nil:
    /// items are only counted. Not part of ``targetHash``: it changes nothing that is sent.
    public var itemKey: JSONPointer?
    /// The values the API's filter takes (`"filters"`: `["open", "closed"]`), sent through
    /// `${filter}` by `pagebench verify` and `pages` (``filterValue``): verify drains with the
    /// first and, when ``tokensBind`` holds `filter`, sends its token with the second (V5). nil:
    /// none declared. Not part of ``targetHash``: `run` fills `${filter}` from its workload.
    public var filters: [JSONValue]?
    /// What the API binds a continuation to besides its partition (`"tokensBind"`), so that
    /// verify sends a token with another limit or filter and expects a refusal (V5).
    public var tokensBind: Set<TokenBinding> = []
    /// The value `${filter}` takes in place of the workload's filter: one of ``filters``,
    /// chosen by verify and `pages`; nil (as loaded): the workload's `--filter`, as `run` sends.
    public var filterValue: JSONValue?
    /// A SHA-256 prefix of the target's canonical JSON with header values left out, so that
    /// rows of different targets are never compared and no secret reaches a results file.
    public var targetHash: String

    /// What a continuation may be bound to besides its partition (`"tokensBind"`).
    public enum TokenBinding: String, Sendable, Hashable, CaseIterable, Comparable {
        /// A token sent with another limit than it was issued at is refused (serve's strict policy, S18).
        case limit
        /// A token sent with another of ``Target/filters`` than it was issued with is refused.
        case filter

        public static func < (lhs: TokenBinding, rhs: TokenBinding) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// How pages are requested and read, by kind.
    public enum Request: Sendable {
        case http(HTTPRequest)
        case graphql(GraphQLRequest)
        case dynamodb(DynamoDBRequest)
    }

    /// The `http` kind.
    public struct HTTPRequest: Sendable {
        public var method: String
        /// Path and query after the endpoint, with placeholders (values URL-encoded).
        public var path: TextTemplate
        /// The JSON body, with placeholders; nil for none.
        public var body: JSONTemplate?
        public var items: JSONPointer
        public var continuation: JSONPointer
        /// Where a continuation goes in the next request; nil when a template holds
        /// `${continuation}` itself.
        public var continuationIn: ContinuationPlacement?
        /// Items evaluated per page, when the API reports it.
        public var scannedCount: JSONPointer?
    }

    /// Where the http kind puts a continuation.
    public enum ContinuationPlacement: Sendable, Hashable {
        /// A query parameter of this name (left out on a drain's first page).
        case query(String)
        /// A body member at this pointer (left out on a drain's first page).
        case body(JSONPointer)
        /// A request header of this name (left out on a drain's first page).
        case header(String)
    }

    /// The `graphql` kind.
    public struct GraphQLRequest: Sendable {
        public enum Shape: String, Sendable, Hashable, CaseIterable {
            /// `items` + a `nextToken` string, null at the end.
            case appsync
            /// `edges` + `pageInfo {hasNextPage endCursor}` (or backwards
            /// `hasPreviousPage startCursor`).
            case relay
        }

        public var query: String
        public var operationName: String?
        public var variables: JSONTemplate
        public var shape: Shape
        /// The variable the continuation is passed in (`nextToken`, `after`, `before`).
        public var continuationVariable: String
        public var items: JSONPointer
        /// AppSync: where the `nextToken` is.
        public var continuation: JSONPointer?
        /// Relay: where `pageInfo` is.
        public var pageInfo: JSONPointer?
        /// Relay: forward (`hasNextPage`/`endCursor`) or backward (`hasPreviousPage`/`startCursor`).
        public var backward: Bool
        public var scannedCount: JSONPointer?
    }

    /// The `dynamodb` kind.
    public struct DynamoDBRequest: Sendable {
        public enum Operation: String, Sendable, Hashable, CaseIterable {
            case query = "Query"
            case scan = "Scan"
        }

        public var region: String
        public var table: String
        public var operation: Operation
        public var indexName: String?
        public var keyConditionExpression: String?
        public var filterExpression: String?
        public var projectionExpression: String?
        public var expressionAttributeNames: [String: String]?
        /// DynamoDB attribute values; `"${partition}"` in one of them receives the drain's
        /// partition key value (as the string DynamoDB's wire form wants, for `S` and `N`).
        public var expressionAttributeValues: JSONTemplate?
        /// nil: the workload's `reverse` decides.
        public var scanIndexForward: Bool?
        public var consistentRead: Bool?
        /// Ask for `ConsumedCapacity` (TOTAL) and record it (W4).
        public var returnConsumedCapacity: Bool
    }
}
