import Foundation

/// How `verify` reads a GraphQL error answer (`errors`, usually with HTTP 200) by its
/// entries' `extensions.code`: a refusal of the request, as a 4xx is; a failure of the
/// server, as a 5xx is; or throttling, as a 429 is (V5, V6; docs/verify.md, "GraphQL error
/// answers"). Codes are compared without case or underscores (`BAD_USER_INPUT`,
/// `badUserInput`).
enum GraphQLErrorReading: Equatable {
    /// The request was refused: every code is a client error, unknown, or missing. `codes`:
    /// those given, once each; `unknown`: those of them verify does not know; `uncoded`: an
    /// entry had none.
    case refusal(codes: [String], unknown: [String], uncoded: Bool)
    /// A code says the server failed (`INTERNAL_SERVER_ERROR`).
    case serverError(code: String)
    /// A code says the request was throttled (`THROTTLED`): the answer tells nothing.
    case throttled(code: String)

    /// Codes of a request the API refused: Apollo Server's, GraphQL Yoga's, graphql-java's,
    /// Hot Chocolate's, common custom ones and `pagebench serve`'s own (docs/contract.md,
    /// "Where a broken rule shows up"); numeric codes 400–499 but 429 too.
    static let refusalCodes: Set<String> = normalized([
        "BAD_USER_INPUT", "BAD_REQUEST", "GRAPHQL_VALIDATION_FAILED", "GRAPHQL_PARSE_FAILED", "VALIDATION_ERROR",
        "VALIDATION_FAILED", "INVALID_ARGUMENT", "INVALID_INPUT", "INVALID_CURSOR", "INVALID_TOKEN", "UNAUTHENTICATED",
        "FORBIDDEN", "NOT_FOUND", "PERSISTED_QUERY_NOT_FOUND", "PERSISTED_QUERY_NOT_SUPPORTED",
        "OPERATION_RESOLUTION_FAILURE", "ARGUMENT_ERROR", "USER_ERROR", "invalidLimit", "invalidSegment",
        "unknownPartition", "invalidToken", "tokenMismatch", "BOUND_EXCEEDED",
    ])
    /// Codes of a server's own failure (and serve's `injectedFault`); numeric codes 500–599.
    static let serverCodes: Set<String> = normalized([
        "INTERNAL_SERVER_ERROR", "INTERNAL_ERROR", "INTERNAL", "SERVER_ERROR", "SERVICE_UNAVAILABLE", "UNAVAILABLE",
        "DOWNSTREAM_SERVICE_ERROR", "UNEXPECTED_ERROR", "UNKNOWN", "DATA_LOSS", "DEADLINE_EXCEEDED", "injectedFault",
    ])
    /// Codes of throttling (and serve's `throttled`); numeric code 429.
    static let throttlingCodes: Set<String> = normalized([
        "THROTTLED", "RATE_LIMITED", "TOO_MANY_REQUESTS", "RESOURCE_EXHAUSTED", "LIMIT_EXCEEDED",
    ])

    /// Reads an answer's codes (``TargetExchange/graphQLErrorCodes``): a server code anywhere
    /// makes it a server error, else a throttling code throttling; otherwise it is a refusal.
    init(codes: [String?]) {
        let given = codes.compactMap { $0 }
        if let server = given.first(where: { Self.class(of: $0) == .server }) {
            self = .serverError(code: server)
            return
        }
        if let throttling = given.first(where: { Self.class(of: $0) == .throttling }) {
            self = .throttled(code: throttling)
            return
        }
        let unique = given.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        self = .refusal(
            codes: unique,
            unknown: unique.filter { Self.class(of: $0) == nil },
            uncoded: given.count < codes.count || codes.isEmpty
        )
    }

    /// How a refusal shows in a rule's note: `BAD_USER_INPUT`, `without a code`.
    var label: String {
        guard case .refusal(let codes, _, let uncoded) = self else { return "" }
        if codes.isEmpty { return "without a code" }
        return codes.joined(separator: " and ") + (uncoded ? " and one without a code" : "")
    }

    enum Class { case refusal, server, throttling }

    /// What a code says, nil when verify does not know it.
    static func `class`(of code: String) -> Class? {
        if let number = Int(code) {
            switch number {
            case 429: return .throttling
            case 400...499: return .refusal
            case 500...599: return .server
            default: return nil
            }
        }
        let key = normalized([code]).first!
        if serverCodes.contains(key) { return .server }
        if throttlingCodes.contains(key) { return .throttling }
        if refusalCodes.contains(key) { return .refusal }
        return nil
    }

    /// Codes upper-cased without underscores, so that spellings compare equal.
    static func normalized(_ codes: [String]) -> Set<String> {
        Set(codes.map { $0.uppercased().replacingOccurrences(of: "_", with: "") })
    }
}
