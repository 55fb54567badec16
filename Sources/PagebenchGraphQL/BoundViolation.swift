import GraphQL
import PagebenchServer
import PagebenchWire

/// A GraphQL request over one of its bounds (W7): the GraphQL error the client gets, whose
/// message and `extensions` name the bound, its limit and the `serve` flag that sets it:
/// `{"message": "GraphQL bound exceeded (depth): …", "extensions": {"code": "BOUND_EXCEEDED",
/// "bound": "depth", "limit": 32}}`.
struct BoundViolation: Error, Equatable {
    /// The bound's name in `extensions.bound` (`depth`, `tokens`, `cost`, …).
    let bound: String
    /// The bound's value (`extensions.limit`), in the unit of its flag.
    let limit: Double
    let flag: String
    /// What the request came to, in words (`"the document nests 40 levels of brackets"`).
    let finding: String

    init(bound: String, limit: Int, flag: String, finding: String) {
        self.init(bound: bound, limit: Double(limit), flag: flag, finding: finding)
    }

    init(bound: String, limit: Double, flag: String, finding: String) {
        self.bound = bound
        self.limit = limit
        self.flag = flag
        self.finding = finding
    }

    var limitText: String {
        limit.rounded() == limit && abs(limit) < 1e15 ? String(Int(limit)) : String(limit)
    }

    var message: String {
        "GraphQL bound exceeded (\(bound)): \(finding); at most \(limitText) (serve \(flag))"
    }

    var graphQLError: GraphQLError {
        let limitValue: Map =
            limit.rounded() == limit && abs(limit) < 1e15 ? .number(Number(Int(limit))) : .number(Number(limit))
        return GraphQLError(
            message: message,
            extensions: ["code": "BOUND_EXCEEDED", "bound": .string(bound), "limit": limitValue]
        )
    }

    /// The request's CPU time ran out (``PagebenchServer/RequestCPUBudget``) in `phase`.
    static func cpu(_ budget: RequestCPUBudget, phase: String) -> BoundViolation {
        BoundViolation(
            bound: "cpu",
            limit: budget.limitSeconds,
            flag: "--max-request-cpu",
            finding: "the request used more than its CPU time, in seconds, in \(phase)"
        )
    }

    /// The response would be larger than the server sends.
    static func responseBytes(_ limit: Int, found: Int) -> BoundViolation {
        BoundViolation(
            bound: "responseBytes",
            limit: limit,
            flag: "--max-response-bytes",
            finding: "the response is \(found) bytes"
        )
    }

    /// A count that stopped past the limit reads "more than N".
    static func count(_ found: Int, _ limit: Int) -> String {
        found > limit ? "more than \(limit)" : "\(found)"
    }

    static func depth(_ bounds: GraphQLBounds, _ finding: String) -> BoundViolation {
        BoundViolation(bound: "depth", limit: bounds.maximumDepth, flag: "--graphql-max-depth", finding: finding)
    }

    static func tokens(_ bounds: GraphQLBounds, found: Int) -> BoundViolation {
        BoundViolation(
            bound: "tokens",
            limit: bounds.maximumTokens,
            flag: "--graphql-max-tokens",
            finding: "the document has \(count(found, bounds.maximumTokens)) tokens"
        )
    }

    static func definitions(_ bounds: GraphQLBounds, found: Int) -> BoundViolation {
        BoundViolation(
            bound: "definitions",
            limit: bounds.maximumDefinitions,
            flag: "--graphql-max-definitions",
            finding: "the document has \(found) operations and fragments"
        )
    }

    static func directives(_ bounds: GraphQLBounds, found: Int) -> BoundViolation {
        BoundViolation(
            bound: "directives",
            limit: bounds.maximumDirectives,
            flag: "--graphql-max-directives",
            finding: "the document has \(count(found, bounds.maximumDirectives)) directives"
        )
    }

    static func aliases(_ bounds: GraphQLBounds, found: Int) -> BoundViolation {
        BoundViolation(
            bound: "aliases",
            limit: bounds.maximumAliases,
            flag: "--graphql-max-aliases",
            finding: "the document has \(count(found, bounds.maximumAliases)) aliased fields"
        )
    }

    static func selections(_ bounds: GraphQLBounds, found: Int) -> BoundViolation {
        BoundViolation(
            bound: "fields",
            limit: bounds.maximumSelections,
            flag: "--graphql-max-fields",
            finding:
                "the document selects \(count(found, bounds.maximumSelections)) fields, spreads and inline fragments "
                + "(each fragment counted at every spread)"
        )
    }

    static func cost(_ bounds: GraphQLBounds, found: Int) -> BoundViolation {
        BoundViolation(
            bound: "cost",
            limit: bounds.maximumCost,
            flag: "--graphql-max-cost",
            finding: "the operation may resolve \(count(found, bounds.maximumCost)) values (each list counted at its "
                + "requested limit or largest possible length)"
        )
    }
}
