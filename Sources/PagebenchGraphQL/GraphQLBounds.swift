/// The bounds a GraphQL request is held to before it is executed (W7), on top of the
/// server's own (``PagebenchServer/RequestBounds``: body, response, CPU time). Each is
/// checked before the work it protects: depth and tokens before the parser runs, the
/// document's shape before validation, the cost (which needs the variables) before
/// execution. A request over a bound gets a GraphQL error whose `extensions` name it:
/// `{"code": "BOUND_EXCEEDED", "bound": "depth", "limit": 32}`.
package struct GraphQLBounds: Sendable, Hashable {
    /// Nesting: of `{`, `[` and `(` among the document's tokens (as the parser reads them),
    /// of fields through fragments, and of lists and objects in variables
    /// (`serve --graphql-max-depth`).
    package var maximumDepth: Int
    /// Tokens of the document, comments not counted (`--graphql-max-tokens`).
    package var maximumTokens: Int
    /// Operations and fragments (`--graphql-max-definitions`).
    package var maximumDefinitions: Int
    /// Directives, anywhere in the document (`--graphql-max-directives`).
    package var maximumDirectives: Int
    /// Aliased fields (`--graphql-max-aliases`).
    package var maximumAliases: Int
    /// Selections — fields, fragment spreads, inline fragments — with every spread counting
    /// its fragment's selections again, as execution visits them (`--graphql-max-fields`).
    package var maximumSelections: Int
    /// Values the operation may resolve, computed from the requested limits before
    /// execution (``QueryCost``; `--graphql-max-cost`).
    package var maximumCost: Int

    package init(
        maximumDepth: Int = 32,
        maximumTokens: Int = 15_000,
        maximumDefinitions: Int = 100,
        maximumDirectives: Int = 100,
        maximumAliases: Int = 100,
        maximumSelections: Int = 2_000,
        maximumCost: Int = 10_000
    ) {
        self.maximumDepth = maximumDepth
        self.maximumTokens = maximumTokens
        self.maximumDefinitions = maximumDefinitions
        self.maximumDirectives = maximumDirectives
        self.maximumAliases = maximumAliases
        self.maximumSelections = maximumSelections
        self.maximumCost = maximumCost
    }
}
