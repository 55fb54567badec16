/// The rules `pagebench verify` judges a real list API by (docs/contract.md, "Verify: a real
/// API's pagination", V1–V7). Each has a stable ID; the table, the JSON, the JUnit test
/// cases and the docs list them from this one declaration.
package enum VerifyRule: String, Sendable, Hashable, CaseIterable, Comparable {
    case v1 = "V1"
    case v2 = "V2"
    case v3 = "V3"
    case v4 = "V4"
    case v5 = "V5"
    case v6 = "V6"
    case v7 = "V7"

    /// The rule's ID, `V1`.
    package var id: String { rawValue }

    /// The rule in a few words, for the table.
    package var title: String {
        switch self {
        case .v1: "same items at every limit"
        case .v2: "limit honoured"
        case .v3: "drains terminate"
        case .v4: "tokens are stable"
        case .v5: "a token the API never issued is refused"
        case .v6: "errors are answers"
        case .v7: "same items under concurrency"
        }
    }

    package static func < (lhs: VerifyRule, rhs: VerifyRule) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A rule's verdict.
package enum Verdict: String, Sendable, Hashable, CaseIterable {
    /// Every check of the rule passed.
    case holds
    /// At least one check failed; the evidence says which request shows it.
    case broken
    /// The rule does not apply to this target or this run (one limit, one partition).
    case notApplicable = "not applicable"
    /// What the rule needs could not be observed (a bound was reached, throttling persisted,
    /// a drain failed for another rule's reason).
    case couldNotTell = "could not tell"
}

/// One rule's verdict, why, and (broken) the smallest evidence to file a bug with.
package struct RuleResult: Sendable, Hashable {
    package var rule: VerifyRule
    package var verdict: Verdict
    /// What was checked, or why the rule could not be judged: one line.
    package var note: String
    /// Broken: the requests, pages, tokens and items that show it, one fact a line.
    package var evidence: [String]

    package init(_ rule: VerifyRule, _ verdict: Verdict, _ note: String, evidence: [String] = []) {
        self.rule = rule
        self.verdict = verdict
        self.note = note
        self.evidence = evidence
    }
}
