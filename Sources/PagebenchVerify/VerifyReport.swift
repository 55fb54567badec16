import PagebenchBase
import PagebenchWire

/// What `pagebench verify` found: each rule's verdict, and the costs and times of the drains
/// by limit. Every figure was measured in this run.
package struct VerifyReport: Sendable {
    package var target: String
    package var kind: String
    package var endpoint: String
    package var partitions: [String]
    package var limits: [Int]
    package var results: [RuleResult]
    package var figures: [LimitFigures]
    /// Requests sent in all (throttled ones included).
    package var requests: Int
    package var seconds: Double
    package var options: VerifyOptions
    /// Whether items were compared by the target's `itemKey`.
    package var keyed: Bool
    /// The filter value every drain was sent with (the target's first `filters` value); nil: none.
    package var filter: String? = nil

    /// Whether a rule is broken (exit 1).
    package var broken: Bool { results.contains { $0.verdict == .broken } }
}

/// The cost of paging at one limit (not a rule: DynamoDB and AppSync behave so by design),
/// over the drains one at a time that ended.
package struct LimitFigures: Sendable, Hashable {
    package var limit: Int
    /// Drains that ended with a last page.
    package var drains: Int
    package var pages: Int
    package var items: Int
    /// Pages without items that still carried a continuation.
    package var emptyPagesWithToken: Int
    /// Requests after an exactly full last page that returned nothing (S6's `continuation`).
    package var extraLastRequests: Int
    /// The largest continuation in bytes.
    package var largestTokenBytes: Int
    /// Medians over the drains, in seconds: request times summed to the first item and to the
    /// last item (pagebench's rate waits left out).
    package var secondsToFirstItem: Double?
    package var secondsToLastItem: Double?

    /// Round trips that returned nothing, per drain.
    package var wastedPerDrain: Double {
        drains == 0 ? 0 : Double(emptyPagesWithToken + extraLastRequests) / Double(drains)
    }
}

extension Verifier {
    /// Costs and times by limit over the drains one at a time that ended.
    static func figures(_ drains: [DrainRecord], limits: [Int]) -> [LimitFigures] {
        limits.map { limit in
            let complete = drains.filter { $0.limit == limit && $0.isComplete }
            return LimitFigures(
                limit: limit,
                drains: complete.count,
                pages: complete.reduce(0) { $0 + $1.pages.count },
                items: complete.reduce(0) { $0 + $1.items },
                emptyPagesWithToken: complete.reduce(0) { $0 + $1.emptyPagesWithToken },
                extraLastRequests: complete.reduce(0) { $0 + $1.extraLastRequest },
                largestTokenBytes: drains.filter { $0.limit == limit }.map(\.largestTokenBytes).max() ?? 0,
                secondsToFirstItem: median(complete.compactMap(\.secondsToFirstItem)),
                secondsToLastItem: median(complete.compactMap(\.secondsToLastItem))
            )
        }
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// The output formats of `verify`.
package enum VerifyFormat: String, Sendable, CaseIterable {
    case text, markdown, json, junit
}

extension VerifyReport {
    /// The report in `format`, ending with a newline.
    package func rendered(_ format: VerifyFormat) -> String {
        switch format {
        case .text: text
        case .markdown: markdown
        case .json: json
        case .junit: junit
        }
    }

    static func milliseconds(_ seconds: Double?) -> String {
        seconds.map { NumberText.fixed($0 * 1000, 1) + " ms" } ?? "-"
    }

    var summary: String {
        let counts = Verdict.allCases.map { verdict in (verdict, results.filter { $0.verdict == verdict }.count) }
            .filter { $0.1 > 0 }.map { "\($0.1) \($0.0.rawValue)" }
        return "\(counts.joined(separator: ", ")); \(requests) requests in \(NumberText.fixed(seconds, 1)) s"
    }
}
