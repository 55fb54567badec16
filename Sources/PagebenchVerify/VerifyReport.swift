import PagebenchBase
import PagebenchWire

/// What `pagebench verify` found: each rule's verdict, and the costs and times of the drains
/// by limit. Every figure was measured in this run.
public struct VerifyReport: Sendable {
    public var target: String
    public var kind: String
    public var endpoint: String
    public var partitions: [String]
    public var limits: [Int]
    public var results: [RuleResult]
    public var figures: [LimitFigures]
    /// Requests sent in all (throttled ones included).
    public var requests: Int
    public var seconds: Double
    public var options: VerifyOptions
    /// Whether items were compared by the target's `itemKey`.
    public var keyed: Bool

    /// Whether a rule is broken (exit 1).
    public var broken: Bool { results.contains { $0.verdict == .broken } }
}

/// The cost of paging at one limit (not a rule: DynamoDB and AppSync behave so by design),
/// over the drains one at a time that ended.
public struct LimitFigures: Sendable, Hashable {
    public var limit: Int
    /// Drains that ended with a last page.
    public var drains: Int
    public var pages: Int
    public var items: Int
    /// Pages without items that still carried a continuation.
    public var emptyPagesWithToken: Int
    /// Requests after an exactly full last page that returned nothing (S6's `continuation`).
    public var extraLastRequests: Int
    /// The largest continuation in bytes.
    public var largestTokenBytes: Int
    /// Medians over the drains, in seconds: request times summed to the first item and to the
    /// last item (pagebench's rate waits left out).
    public var secondsToFirstItem: Double?
    public var secondsToLastItem: Double?

    /// Round trips that returned nothing, per drain.
    public var wastedPerDrain: Double {
        drains == 0 ? 0 : Double(emptyPagesWithToken + extraLastRequests) / Double(drains)
    }
}

extension Verifier {
    /// Costs and times by limit over the drains one at a time that ended.
    static func figures(_ drains: [DrainRecord], limits: [Int]) -> [LimitFigures] {
        limits.map { limit in
            let complete = drains.filter { $0.limit == limit && $0.isComplete }
            return LimitFigures(
                limit: limit, drains: complete.count, pages: complete.reduce(0) { $0 + $1.pages.count },
                items: complete.reduce(0) { $0 + $1.items },
                emptyPagesWithToken: complete.reduce(0) { $0 + $1.emptyPagesWithToken },
                extraLastRequests: complete.reduce(0) { $0 + $1.extraLastRequest },
                largestTokenBytes: drains.filter { $0.limit == limit }.map(\.largestTokenBytes).max() ?? 0,
                secondsToFirstItem: median(complete.compactMap(\.secondsToFirstItem)),
                secondsToLastItem: median(complete.compactMap(\.secondsToLastItem)))
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
public enum VerifyFormat: String, Sendable, CaseIterable {
    case text, markdown, json, junit
}

extension VerifyReport {
    /// The report in `format`, ending with a newline.
    public func rendered(_ format: VerifyFormat) -> String {
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

    var text: String {
        var out = "verify \(target) (\(kind)) at \(endpoint): partitions \(partitions.joined(separator: ", ")), limits \(limits.map(String.init).joined(separator: ", "))\n\n"
        let verdictWidth = Verdict.allCases.map(\.rawValue.count).max()!
        let titleWidth = results.map(\.rule.title.count).max() ?? 0
        for result in results {
            out += result.rule.id + "  " + result.verdict.rawValue.padding(verdictWidth) + "  " + result.rule.title.padding(titleWidth)
                + "  " + result.note + "\n"
        }
        for result in results where result.verdict == .broken {
            out += "\n\(result.rule.id) broken: \(result.note)\n"
            for line in result.evidence { out += "  " + line + "\n" }
        }
        out += "\ncosts and times by limit (drains one at a time that ended; times are request times summed, rate waits left out):\n"
        out += "limit  drains  pages  items  empty pages with token  extra last requests  wasted per drain  largest token  first item  last item\n"
        for figure in figures {
            out +=
                String(figure.limit).padding(5) + "  " + String(figure.drains).padding(6) + "  " + String(figure.pages).padding(5) + "  "
                + String(figure.items).padding(5) + "  " + String(figure.emptyPagesWithToken).padding(22) + "  "
                + String(figure.extraLastRequests).padding(19) + "  " + NumberText.fixed(figure.wastedPerDrain, 2).padding(16) + "  "
                + "\(figure.largestTokenBytes) B".padding(13) + "  " + Self.milliseconds(figure.secondsToFirstItem).padding(10) + "  "
                + Self.milliseconds(figure.secondsToLastItem) + "\n"
        }
        out += "\n" + summary + (broken ? ": a rule is broken\n" : "\n")
        return out
    }

    var markdown: String {
        var out = "## verify `\(target)` (\(kind))\n\n| rule | verdict | what | note |\n| --- | --- | --- | --- |\n"
        for result in results {
            out += "| \(result.rule.id) | \(result.verdict.rawValue) | \(result.rule.title) | \(Self.cell(result.note)) |\n"
        }
        for result in results where result.verdict == .broken {
            out += "\n### \(result.rule.id) broken: \(Self.cell(result.note))\n\n```\n" + result.evidence.joined(separator: "\n") + "\n```\n"
        }
        out += "\n| limit | drains | pages | items | empty pages with token | extra last requests | wasted per drain | largest token | first item | last item |\n"
        out += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        for figure in figures {
            out +=
                "| \(figure.limit) | \(figure.drains) | \(figure.pages) | \(figure.items) | \(figure.emptyPagesWithToken) | \(figure.extraLastRequests) | \(NumberText.fixed(figure.wastedPerDrain, 2)) | \(figure.largestTokenBytes) B | \(Self.milliseconds(figure.secondsToFirstItem)) | \(Self.milliseconds(figure.secondsToLastItem)) |\n"
        }
        out += "\n" + summary + "\n"
        return out
    }

    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }

    var json: String {
        func number(_ value: Double?) -> JSONValue {
            value.map { .number(NumberText.fixed($0, 6)) } ?? .null
        }
        let rules: [JSONValue] = results.map { result in
            .object([
                "id": .string(result.rule.id), "title": .string(result.rule.title), "verdict": .string(result.verdict.rawValue),
                "note": .string(result.note), "evidence": .array(result.evidence.map { .string($0) }),
            ])
        }
        let costs: [JSONValue] = figures.map { figure in
            .object([
                "limit": .number(String(figure.limit)), "drains": .number(String(figure.drains)), "pages": .number(String(figure.pages)),
                "items": .number(String(figure.items)), "emptyPagesWithToken": .number(String(figure.emptyPagesWithToken)),
                "extraLastRequests": .number(String(figure.extraLastRequests)),
                "wastedRoundTripsPerDrain": number(figure.wastedPerDrain), "largestTokenBytes": .number(String(figure.largestTokenBytes)),
                "secondsToFirstItem": number(figure.secondsToFirstItem), "secondsToLastItem": number(figure.secondsToLastItem),
            ])
        }
        let document: JSONValue = .object([
            "target": .string(target), "kind": .string(kind), "endpoint": .string(endpoint),
            "partitions": .array(partitions.map { .string($0) }), "limits": .array(limits.map { .number(String($0)) }),
            "itemKey": .bool(keyed), "rules": .array(rules), "byLimit": .array(costs), "requests": .number(String(requests)),
            "seconds": number(seconds), "broken": .bool(broken),
        ])
        return document.text + "\n"
    }

    var junit: String {
        let cases = results.map { result in
            let outcome: JUnitXML.Outcome =
                switch result.verdict {
                case .holds: .passed
                case .broken: .failed(message: result.note, details: result.evidence.joined(separator: "\n"))
                case .notApplicable, .couldNotTell: .skipped(message: "\(result.verdict.rawValue): \(result.note)")
                }
            return JUnitXML.TestCase(
                name: "\(result.rule.id) \(result.rule.title)", className: "pagebench.verify.\(target)", outcome: outcome,
                output: result.verdict == .holds ? result.note : "")
        }
        return JUnitXML(suiteName: "pagebench verify \(target)", cases: cases, seconds: seconds).text
    }
}

extension String {
    /// Padded with spaces to `width` characters.
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
