import Foundation
import PagebenchBase
import PagebenchPage
import PagebenchTargets

/// Everything a verification saw, for the rules to judge (``Verifier/judge(_:)``).
package struct Observations: Sendable {
    /// Whether items carry keys (the target's `itemKey`): V1 and V7 compare items, else counts.
    package var keyed: Bool
    /// The drains one at a time: each partition at each limit, in that order.
    package var drains: [DrainRecord] = []
    /// The drains at once (V7), of ``concurrencyPartition`` at ``concurrencyLimit``.
    package var concurrent: [DrainRecord] = []
    package var concurrencyLimit: Int
    package var concurrencyPartition: String
    /// V4's requests; nil when no drain had a second page (no token to send again).
    package var stability: Stability?
    /// V5's requests.
    package var tokenProbes: [Probe] = []
    /// Why a V5 request could not be made.
    package var tokenNotes: [String] = []
    /// V6's requests.
    package var errorProbes: [Probe] = []
    /// The page bound a drain was held to (`--max-pages`), for V3's note.
    package var maxPagesPerDrain: Int?

    package init(keyed: Bool, concurrencyLimit: Int, concurrencyPartition: String) {
        self.keyed = keyed
        self.concurrencyLimit = concurrencyLimit
        self.concurrencyPartition = concurrencyPartition
    }
}

/// A token sent again (V4): the page it first gave and the answers to it later.
package struct Stability: Sendable {
    package var token: String
    package var limit: Int
    /// The drain's exchange of the page the token gave first.
    package var expected: TargetExchange
    /// The same token again on the same connections, then on a new connection.
    package var again: [Probe] = []

    package init(token: String, limit: Int, expected: TargetExchange) {
        self.token = token
        self.limit = limit
        self.expected = expected
    }
}

/// One probing request: its answer, or why it was not sent (a bound).
package struct Probe: Sendable {
    package var name: String
    package var exchange: TargetExchange?
    package var notSent: String?

    package init(name: String, exchange: TargetExchange?, notSent: String?) {
        self.name = name
        self.exchange = exchange
        self.notSent = notSent
    }
}

extension Verifier {
    /// The verdict of every rule on what was observed.
    package static func judge(_ observations: Observations) -> [RuleResult] {
        [
            sameItems(observations), limitHonoured(observations), terminates(observations), stableTokens(observations),
            foreignTokens(observations), errorAnswers(observations), concurrency(observations),
        ]
    }

    // MARK: V1

    static func sameItems(_ observations: Observations) -> RuleResult {
        let keyed = observations.keyed
        var evidence: [String] = []
        var incomplete: [String] = []
        var compared = 0
        for partition in unique(observations.drains.map(\.partition)) {
            let drains = observations.drains.filter { $0.partition == partition }
            for drain in drains where keyed {
                if let duplicate = firstDuplicate(drain) {
                    evidence = duplicate
                    return RuleResult(
                        .v1,
                        .broken,
                        "partition \(partition) at limit \(drain.limit) returned an item twice",
                        evidence: evidence
                    )
                }
            }
            let complete = drains.filter(\.isComplete)
            incomplete += drains.filter { !$0.isComplete }.map { "\(partition) at limit \($0.limit)" }
            guard let reference = complete.max(by: { $0.limit < $1.limit }) else { continue }
            for drain in complete where drain.limit != reference.limit {
                compared += 1
                if let difference = difference(
                    drain,
                    reference,
                    keyed: keyed,
                    here: "at limit \(drain.limit)",
                    there: "at limit \(reference.limit)"
                ) {
                    return RuleResult(.v1, .broken, difference.note, evidence: difference.evidence)
                }
            }
        }
        if !incomplete.isEmpty {
            return RuleResult(.v1, .couldNotTell, "drains did not end (V3): " + incomplete.joined(separator: ", "))
        }
        let limits = Set(observations.drains.map(\.limit)).sorted().map(String.init)
        let partitions = unique(observations.drains.map(\.partition))
        guard compared > 0 || keyed else {
            return RuleResult(.v1, .notApplicable, "one limit and no itemKey: nothing to compare")
        }
        let what =
            keyed
            ? "the same items in the same order, none twice"
            : "the same number of items (give itemKey to compare the items)"
        return RuleResult(
            .v1,
            .holds,
            "\(partitions.count == 1 ? "1 partition" : "\(partitions.count) partitions") at limits \(limits.joined(separator: ", ")): \(what)"
        )
    }

    /// The first item a drain returned twice, as evidence.
    static func firstDuplicate(_ drain: DrainRecord) -> [String]? {
        guard let keys = drain.keys else { return nil }
        var seen: [String: Int] = [:]
        for (position, key) in keys.enumerated() {
            guard let key else { continue }
            if let first = seen[key] {
                let a = drain.location(ofItem: first)!
                let b = drain.location(ofItem: position)!
                return [
                    "item \(key) was returned on page \(a.page + 1) and again on page \(b.page + 1) of partition \(drain.partition) at limit \(drain.limit)",
                    "page \(a.page + 1): " + describe(drain.exchanges[a.page]),
                    "page \(b.page + 1): " + describe(drain.exchanges[b.page]),
                ]
            }
            seen[key] = position
        }
        return nil
    }

    /// How `drain` differs from `reference`, as evidence; `here` and `there` name them
    /// ("at limit 1", "at limit 100"; "at once", "alone").
    static func difference(
        _ drain: DrainRecord,
        _ reference: DrainRecord,
        keyed: Bool,
        here: String,
        there: String
    ) -> (note: String, evidence: [String])? {
        let partition = drain.partition
        guard keyed, let keys = drain.keys, let expected = reference.keys else {
            guard drain.items != reference.items else { return nil }
            return (
                "partition \(partition): \(drain.items) items \(here), \(reference.items) \(there)",
                [
                    "\(here): \(drain.items) items in \(drain.pages.count) pages; \(there): \(reference.items) items in \(reference.pages.count) pages",
                    "first page \(here): " + describe(drain.exchanges[0]),
                ]
            )
        }
        guard keys != expected else { return nil }
        let counts = "\(keys.count) items \(here), \(expected.count) \(there)"
        let present = Set(keys.compactMap { $0 })
        if let missingAt = expected.firstIndex(where: { $0 != nil && !present.contains($0!) }) {
            let key = expected[missingAt]!
            // Where it should have come: after the reference's previous item.
            let previous = missingAt > 0 ? expected[missingAt - 1] : nil
            let after = previous.flatMap { previous in keys.firstIndex(of: previous) }
            var evidence = ["item \(key) (item \(missingAt + 1) \(there)) is missing \(here); \(counts)"]
            if let after, let location = drain.location(ofItem: after) {
                let last = location.index == drain.pages[location.page].count - 1
                evidence.append(
                    "it follows \(previous!), " + (last ? "the last item" : "item \(location.index + 1)")
                        + " of page \(location.page + 1): "
                        + describe(drain.exchanges[location.page])
                )
                if last, location.page + 1 < drain.exchanges.count {
                    evidence.append("the next page goes on without it: " + describe(drain.exchanges[location.page + 1]))
                }
            } else if let location = reference.location(ofItem: missingAt) {
                evidence.append(
                    "\(there) it is on page \(location.page + 1): " + describe(reference.exchanges[location.page])
                )
            }
            return ("partition \(partition) \(here) skipped an item", evidence)
        }
        let expectedSet = Set(expected.compactMap { $0 })
        if let extraAt = keys.firstIndex(where: { $0 != nil && !expectedSet.contains($0!) }),
            let location = drain.location(ofItem: extraAt)
        {
            return (
                "partition \(partition) \(here) returned an item not returned \(there)",
                [
                    "item \(keys[extraAt]!) appears \(here) only; \(counts)",
                    "page \(location.page + 1): " + describe(drain.exchanges[location.page]),
                ]
            )
        }
        let at =
            zip(keys, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(keys.count, expected.count)
        var evidence = [
            "item \(at + 1) is \(keys[safe: at].map(text) ?? "missing") \(here) but \(expected[safe: at].map(text) ?? "missing") \(there); \(counts)"
        ]
        if let location = drain.location(ofItem: at) {
            evidence.append("page \(location.page + 1): " + describe(drain.exchanges[location.page]))
        }
        return ("partition \(partition): the items \(here) differ from those \(there) (order or repeats)", evidence)
    }

    // MARK: V2

    static func limitHonoured(_ observations: Observations) -> RuleResult {
        var pages = 0
        for drain in observations.drains + observations.concurrent {
            for exchange in drain.exchanges {
                guard let page = exchange.page else { continue }
                pages += 1
                if page.count > drain.limit {
                    return RuleResult(
                        .v2,
                        .broken,
                        "a page at limit \(drain.limit) returned \(page.count) items",
                        evidence: ["partition \(drain.partition): " + describe(exchange)]
                    )
                }
                if page.reportsScanned, page.scanned > drain.limit {
                    return RuleResult(
                        .v2,
                        .broken,
                        "a page at limit \(drain.limit) evaluated \(page.scanned) items: the limit was applied after the filter",
                        evidence: [
                            "partition \(drain.partition): " + describe(exchange),
                            "the API reports \(page.scanned) items evaluated (scannedCount) for \(page.count) returned; the limit bounds what a page evaluates (S2, DynamoDB's Limit)",
                        ]
                    )
                }
            }
        }
        guard pages > 0 else { return RuleResult(.v2, .couldNotTell, "no page was answered") }
        let reportsScanned = observations.drains.contains { $0.pages.contains(where: \.reportsScanned) }
        return RuleResult(
            .v2,
            .holds,
            "\(pages) pages, none longer than its limit" + (reportsScanned ? ", none evaluated more" : "")
        )
    }

    // MARK: V3

    static func terminates(_ observations: Observations) -> RuleResult {
        var cut: [String] = []
        var longest = 0
        for drain in observations.drains {
            longest = max(longest, drain.pages.count)
            switch drain.end {
            case .last: continue
            case .repeated(let token, let first, let again):
                let earlier = first == 0 ? "the first request" : "page \(first)"
                var evidence = [
                    "partition \(drain.partition) at limit \(drain.limit): page \(again) carried the continuation \(shortToken(token)) that \(earlier) carried"
                ]
                if first > 0 { evidence.append("page \(first): " + describe(drain.exchanges[first - 1])) }
                evidence.append("page \(again): " + describe(drain.exchanges[again - 1]))
                return RuleResult(
                    .v3,
                    .broken,
                    "a continuation repeats: following it would never end (P9)",
                    evidence: evidence
                )
            case .failed(let exchange):
                if exchange.isThrottled {
                    cut.append("\(drain.partition) at limit \(drain.limit): throttled after \(drain.pages.count) pages")
                    continue
                }
                return RuleResult(
                    .v3,
                    .broken,
                    "a drain ended with an answer that is not a page, before its last page",
                    evidence: [
                        "partition \(drain.partition) at limit \(drain.limit), page \(drain.pages.count + 1): "
                            + describe(exchange)
                    ]
                        + (drain.exchanges.last.map {
                            ["the token it sent came from page \(drain.pages.count): " + describe($0)]
                        } ?? [])
                )
            case .cut(let reason):
                if observations.keyed, let duplicate = firstDuplicate(drain) {
                    return RuleResult(
                        .v3,
                        .broken,
                        "a drain cut at its bound was returning items it had returned already (a cycle)",
                        evidence: duplicate
                    )
                }
                cut.append("\(drain.partition) at limit \(drain.limit): \(reason) after \(drain.pages.count) pages")
            }
        }
        if !cut.isEmpty { return RuleResult(.v3, .couldNotTell, cut.joined(separator: "; ")) }
        let bound = observations.maxPagesPerDrain.map { " (bound \($0))" } ?? ""
        return RuleResult(
            .v3,
            .holds,
            "\(observations.drains.count) drains ended with a last page, the longest after \(longest) pages\(bound), no continuation repeated"
        )
    }

    // MARK: V4

    static func stableTokens(_ observations: Observations) -> RuleResult {
        guard let stability = observations.stability else {
            return RuleResult(.v4, .notApplicable, "no drain had a second page: no token to send again")
        }
        guard let expected = stability.expected.page else {
            return RuleResult(.v4, .couldNotTell, "no page to compare")
        }
        var notes: [String] = []
        for probe in stability.again {
            guard let exchange = probe.exchange else {
                return RuleResult(.v4, .couldNotTell, "\(probe.name): not sent, \(probe.notSent ?? "")")
            }
            if exchange.isThrottled { return RuleResult(.v4, .couldNotTell, "\(probe.name): throttled") }
            guard let page = exchange.page else {
                return RuleResult(
                    .v4,
                    .broken,
                    "\(probe.name) was not answered with a page",
                    evidence: ["first: " + describe(stability.expected), "\(probe.name): " + describe(exchange)]
                )
            }
            let same = observations.keyed ? page.keys == expected.keys : page.count == expected.count
            guard same else {
                return RuleResult(
                    .v4,
                    .broken,
                    "\(probe.name) gave another page",
                    evidence: ["first: " + describe(stability.expected), "\(probe.name): " + describe(exchange)]
                )
            }
            if page.token != expected.token {
                notes.append("\(probe.name) gave the same items with another continuation")
            }
        }
        let what = observations.keyed ? "the same items" : "the same number of items"
        return RuleResult(
            .v4,
            .holds,
            "a limit-\(stability.limit) token sent again \(stability.again.count) times (the last on a new connection): \(what)"
                + (notes.isEmpty ? "" : "; " + notes.joined(separator: "; "))
        )
    }

    // MARK: V5

    static func foreignTokens(_ observations: Observations) -> RuleResult {
        guard observations.stability != nil else {
            return RuleResult(.v5, .notApplicable, "no drain had a second page: no token to alter")
        }
        return refusals(.v5, observations.tokenProbes, acceptedPage: false, extra: observations.tokenNotes)
    }

    // MARK: V6

    static func errorAnswers(_ observations: Observations) -> RuleResult {
        refusals(.v6, observations.errorProbes, acceptedPage: true, extra: [])
    }

    /// Each probe's answer judged: a 4xx (or GraphQL's `errors` with 200 whose
    /// `extensions.code` is not a server's, ``GraphQLErrorReading``) holds; a 5xx (or a server's
    /// code) or no answer is broken; a page is broken unless `acceptedPage`; throttling cannot
    /// tell.
    static func refusals(_ rule: VerifyRule, _ probes: [Probe], acceptedPage: Bool, extra: [String]) -> RuleResult {
        guard !probes.isEmpty else { return RuleResult(rule, .notApplicable, extra.first ?? "nothing to send") }
        var held: [String] = []
        var unknown: [String] = []
        var broken: [(note: String, evidence: String)] = []
        var unknownGraphQLCodes: [String] = []
        var uncodedGraphQLErrors = false
        for probe in probes {
            guard let exchange = probe.exchange else {
                unknown.append("\(probe.name): not sent, \(probe.notSent ?? "")")
                continue
            }
            if exchange.isThrottled {
                unknown.append("\(probe.name): throttled")
                continue
            }
            let evidence = "\(probe.name): " + describe(exchange)
            guard let status = exchange.status else {
                broken.append(("\(probe.name) got no answer (a hang or a dropped connection)", evidence))
                continue
            }
            switch status {
            case 400...499:
                held.append("\(probe.name) \(status)")
            case 500...599:
                broken.append(("\(probe.name) got HTTP \(status), a server error", evidence))
            case 200:
                if case .failure(.refused, _) = exchange.outcome, !exchange.graphQLErrorCodes.isEmpty {
                    // GraphQL's error answer: read by its extensions.code.
                    let reading = GraphQLErrorReading(codes: exchange.graphQLErrorCodes)
                    switch reading {
                    case .refusal(_, let unknownCodes, let uncoded):
                        held.append("\(probe.name) 200 with errors \(reading.label)")
                        for code in unknownCodes where !unknownGraphQLCodes.contains(code) {
                            unknownGraphQLCodes.append(code)
                        }
                        uncodedGraphQLErrors = uncodedGraphQLErrors || uncoded
                    case .serverError(let code):
                        broken.append(
                            ("\(probe.name) got GraphQL errors with extensions.code \(code), a server error", evidence)
                        )
                    case .throttled: unknown.append("\(probe.name): throttled")  // isThrottled took it above
                    }
                } else if case .failure(.refused, _) = exchange.outcome {
                    held.append("\(probe.name) 200 refused")
                } else if let page = exchange.page {
                    if acceptedPage {
                        held.append("\(probe.name) accepted (a page of \(page.count))")
                    } else {
                        broken.append(
                            (
                                "\(probe.name) was answered with a page of \(page.count) items, not an error"
                                    + (page.count == 0 ? " (a silent end)" : ""), evidence
                            )
                        )
                    }
                } else {
                    broken.append(("\(probe.name) got HTTP 200 with neither a page nor an error", evidence))
                }
            default:
                broken.append(("\(probe.name) got HTTP \(status), not an error answer", evidence))
            }
        }
        if let first = broken.first {
            let more = broken.count > 1 ? " (and \(broken.count - 1) more)" : ""
            return RuleResult(rule, .broken, first.note + more, evidence: broken.map(\.evidence))
        }
        if !unknown.isEmpty { return RuleResult(rule, .couldNotTell, unknown.joined(separator: "; ")) }
        var readings: [String] = []
        if uncodedGraphQLErrors {
            readings.append(
                "GraphQL errors without extensions.code are read as refusals (a server fault cannot be told from them)"
            )
        }
        if !unknownGraphQLCodes.isEmpty {
            readings.append(
                "codes verify does not know are read as refusals: " + unknownGraphQLCodes.joined(separator: ", ")
            )
        }
        return RuleResult(rule, .holds, ([(held + extra).joined(separator: ", ")] + readings).joined(separator: "; "))
    }

    // MARK: V7

    static func concurrency(_ observations: Observations) -> RuleResult {
        let alone = observations.drains.first {
            $0.partition == observations.concurrencyPartition && $0.limit == observations.concurrencyLimit
        }
        guard let alone, alone.isComplete else {
            return RuleResult(.v7, .couldNotTell, "the drain alone did not end (V3)")
        }
        guard observations.concurrent.count > 1 else {
            return RuleResult(.v7, .notApplicable, "--concurrency 1: no drains at once")
        }
        for (index, drain) in observations.concurrent.enumerated() {
            switch drain.end {
            case .last: break
            case .failed(let exchange) where !exchange.isThrottled:
                return RuleResult(
                    .v7,
                    .broken,
                    "drain \(index + 1) of \(observations.concurrent.count) at once failed; alone it ended",
                    evidence: ["page \(drain.pages.count + 1): " + describe(exchange)]
                )
            case .repeated(let token, _, let again):
                return RuleResult(
                    .v7,
                    .broken,
                    "drain \(index + 1) of \(observations.concurrent.count) at once repeated a continuation; alone it ended",
                    evidence: [
                        "page \(again) carried \(shortToken(token)) again: " + describe(drain.exchanges[again - 1])
                    ]
                )
            default:
                return RuleResult(.v7, .couldNotTell, "drain \(index + 1) at once did not end (a bound or throttling)")
            }
            if let difference = difference(drain, alone, keyed: observations.keyed, here: "at once", there: "alone") {
                return RuleResult(
                    .v7,
                    .broken,
                    "drain \(index + 1) of \(observations.concurrent.count) at once: " + difference.note,
                    evidence: difference.evidence
                )
            }
        }
        let what = observations.keyed ? "the same items" : "the same number of items"
        return RuleResult(
            .v7,
            .holds,
            "\(observations.concurrent.count) drains at once of partition \(observations.concurrencyPartition) at limit \(observations.concurrencyLimit): \(what) as alone"
        )
    }

    // MARK: Evidence

    /// An exchange in one line: the request, then what came back.
    static func describe(_ exchange: TargetExchange) -> String {
        var line = exchange.sent
        if let body = exchange.sentBody { line += " body " + clip(body, 300) }
        line += " → "
        guard let status = exchange.status else {
            if case .failure(_, let message) = exchange.outcome {
                return line + "no answer after \(NumberText.fixed(exchange.seconds, 3)) s: \(clip(message, 300))"
            }
            return line + "no answer"
        }
        line += "HTTP \(status)"
        switch exchange.outcome {
        case .page(let page):
            line += ", \(page.count) items"
            if page.reportsScanned { line += " (\(page.scanned) evaluated)" }
            if let keys = page.keys {
                let shown = keys.prefix(12).map { $0 ?? "(no key)" }
                line +=
                    " [" + shown.joined(separator: ", ") + (keys.count > 12 ? ", … \(keys.count - 12) more" : "") + "]"
            }
            line += ", continuation " + (page.token.map(shortToken) ?? "none")
        case .failure(_, let message):
            line += ": " + clip(message, 300)
        }
        return line
    }

    static func shortToken(_ token: String) -> String {
        "'" + clip(token, 80) + "'"
    }

    /// `text` cut to `limit` characters, its control characters (a quoted body's newlines)
    /// escaped so that each fact stays on its line.
    static func clip(_ text: String, _ limit: Int) -> String {
        let text = ControlCharacters.escaped(text).replacingOccurrences(of: "\n", with: "\\n")
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    static func text(_ key: String?) -> String { key ?? "(no key)" }

    static func unique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
