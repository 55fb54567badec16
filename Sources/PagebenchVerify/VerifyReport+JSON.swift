import PagebenchBase
import PagebenchWire

extension VerifyReport {
    /// One JSON object: `rules` (`id`, `title`, `verdict`, `note`, `evidence`), `byLimit`, `filter`, `requests`, `seconds`, `broken`.
    var json: String {
        func number(_ value: Double?) -> JSONValue {
            value.map { .number(NumberText.fixed($0, 6)) } ?? .null
        }
        let rules: [JSONValue] = results.map { result in
            .object([
                "id": .string(result.rule.id), "title": .string(result.rule.title),
                "verdict": .string(result.verdict.rawValue),
                "note": .string(result.note), "evidence": .array(result.evidence.map { .string($0) }),
            ])
        }
        let costs: [JSONValue] = figures.map { figure in
            .object([
                "limit": .number(String(figure.limit)), "drains": .number(String(figure.drains)),
                "pages": .number(String(figure.pages)),
                "items": .number(String(figure.items)),
                "emptyPagesWithToken": .number(String(figure.emptyPagesWithToken)),
                "extraLastRequests": .number(String(figure.extraLastRequests)),
                "wastedRoundTripsPerDrain": number(figure.wastedPerDrain),
                "largestTokenBytes": .number(String(figure.largestTokenBytes)),
                "secondsToFirstItem": number(figure.secondsToFirstItem),
                "secondsToLastItem": number(figure.secondsToLastItem),
            ])
        }
        let document: JSONValue = .object([
            "target": .string(target), "kind": .string(kind), "endpoint": .string(endpoint),
            "partitions": .array(partitions.map { .string($0) }), "limits": .array(limits.map { .number(String($0)) }),
            "filter": filter.map { .string($0) } ?? .null, "itemsCompared": .bool(keyed), "rules": .array(rules),
            "byLimit": .array(costs), "requests": .number(String(requests)),
            "seconds": number(seconds), "broken": .bool(broken),
        ])
        return document.text + "\n"
    }
}
