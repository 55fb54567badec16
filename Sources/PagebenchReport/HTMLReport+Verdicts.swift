import PagebenchBase
import PagebenchMetrics

/// The report's sentences of verdict: the knee, stages against their plan and SLOs, and
/// what each configuration costs per drain.
extension HTMLReport {
    /// One sentence per question the rows can answer: the knee, each stage against its plan,
    /// and what each configuration costs per drain.
    func verdicts(_ table: ConfigurationComparison, rows: [ResultRow]) -> [String] {
        func code(_ text: String) -> String { "<strong>\(escape(text))</strong>" }
        func count(_ value: Double) -> String { escape(NumberText.number(value, digits: 3)) }
        var sentences: [String] = []
        let steps = rows.filter(Self.isKneeStep).sorted { $0.plannedDrainsPerSecond! < $1.plannedDrainsPerSecond! }
        if !steps.isEmpty {
            let held = steps.filter { $0.sloHeld == 1 }
            if let knee = held.last {
                let next = steps.first { $0.plannedDrainsPerSecond! > knee.plannedDrainsPerSecond! && $0.sloHeld != 1 }
                sentences.append(
                    "The knee: \(code(NumberText.compact(knee.plannedDrainsPerSecond!) + " drains/s")) offered held every SLO, "
                        + (knee.startedDrainsPerSecond.map { "starting \(escape(NumberText.compact($0))) drains/s, " }
                            ?? "")
                        + "completing \(escape(NumberText.compact(knee.drainsPerSecond))) drains/s and \(escape(NumberText.compact(knee.pagesPerSecond))) requests/s"
                        + (knee.drainLatencyCorrected.map {
                            " with a corrected drain p99 of \(escape(NumberText.nanoseconds($0.p99Nanoseconds)))"
                        } ?? "")
                        + (next.map {
                            "; the next step, \(escape(NumberText.compact($0.plannedDrainsPerSecond!))) drains/s, broke one."
                        } ?? "; no faster step broke one: the knee may be higher.")
                )
            } else {
                sentences.append(
                    "No step held every SLO: the knee is below \(escape(NumberText.compact(steps[0].plannedDrainsPerSecond!))) drains/s."
                )
            }
            return sentences
        }
        let staged = rows.filter { $0.stage != nil }.sorted {
            ($0.scenario, $0.repetition, $0.stage!) < ($1.scenario, $1.repetition, $1.stage!)
        }
        if !staged.isEmpty {
            let short = staged.filter { row in
                guard let rate = row.plannedDrainsPerSecond, rate > 0 else { return false }
                return row.drainsPerSecond < rate * 0.9
            }
            let parts = staged.map { row in
                "stage \(row.stage!) \(escape(NumberText.compact(row.drainsPerSecond))) drains/s, \(escape(NumberText.compact(row.pagesPerSecond))) requests/s"
                    + (row.plannedDrainsPerSecond.map { " of \(escape(NumberText.compact($0))) offered" } ?? "")
            }
            // Issue 35: the question of a hold is whether its SLOs held, stage by stage.
            sentences.append(Self.stageSLOVerdict(staged, objectives: objectives))
            sentences.append(
                "Stages achieved " + parts.joined(separator: "; ") + ". "
                    + (short.isEmpty
                        ? (staged.contains { $0.plannedDrainsPerSecond != nil }
                            ? "Every stage achieved at least 90 % of its plan." : "")
                        : "Short of the plan (under 90 %): "
                            + short.map { "stage \($0.stage!)" }.joined(separator: ", ") + ".")
            )
            return sentences
        }
        for section in table.sections {
            func values(_ metric: String) -> [Double?]? { section.rows.first { $0.metric == metric }?.values }
            let at = table.sections.count > 1 ? "At \(escape(section.title)): " : ""
            let labels = table.configurations.map(\.label)
            guard let trips = values("pages_per_drain_mean") else { continue }
            let present = labels.indices.filter { trips[$0] != nil }
            guard let first = present.first else { continue }
            if present.count == 1 {
                let empty = values("empty_pages_per_drain")?[first] ?? nil
                sentences.append(
                    at + "\(code(labels[first])) costs \(count(trips[first]!)) round trips"
                        + (empty.map { " and \(count($0)) empty pages" } ?? "") + " per drain"
                        + (values("drain_latency_p50_ns")?[first].map {
                            ", drains in \(escape(NumberText.nanoseconds(UInt64($0)))) (p50)"
                        } ?? "")
                        + (values("drains_per_s")?[first].map { ", \(escape(NumberText.compact($0))) drains/s" } ?? "")
                        + (values("pages_per_s")?[first].map { " (\(escape(NumberText.compact($0))) requests/s)" } ?? "")
                        + "."
                )
                continue
            }
            func best(_ metric: String, lowest: Bool) -> (index: Int, value: Double, worst: Int, worstValue: Double)? {
                guard let list = values(metric) else { return nil }
                let known = present.compactMap { index in list[index].map { (index, $0) } }
                guard let low = known.min(by: { $0.1 < $1.1 }), let high = known.max(by: { $0.1 < $1.1 }) else {
                    return nil
                }
                return lowest ? (low.0, low.1, high.0, high.1) : (high.0, high.1, low.0, low.1)
            }
            var parts: [String] = []
            if let trips = best("pages_per_drain_mean", lowest: true), trips.index != trips.worst {
                parts.append(
                    "\(code(labels[trips.index])) costs the fewest round trips per drain (\(count(trips.value)), against \(count(trips.worstValue)) for \(code(labels[trips.worst])))"
                )
            }
            if let empty = best("empty_pages_per_drain", lowest: true), empty.worstValue > 0, empty.index != empty.worst
            {
                parts.append(
                    "\(code(labels[empty.index])) wastes the fewest empty pages (\(count(empty.value)) per drain, against \(count(empty.worstValue)) for \(code(labels[empty.worst])))"
                )
            }
            if let fast = best("drain_latency_p50_ns", lowest: true), fast.index != fast.worst {
                parts.append(
                    "\(code(labels[fast.index])) drains fastest (p50 \(escape(NumberText.nanoseconds(UInt64(fast.value)))), against \(escape(NumberText.nanoseconds(UInt64(fast.worstValue)))) for \(code(labels[fast.worst])))"
                )
            }
            if let rate = best("drains_per_s", lowest: false), rate.index != rate.worst {
                let requests = values("pages_per_s")?[rate.index] ?? nil
                parts.append(
                    "\(code(labels[rate.index])) completes the most drains per second (\(escape(NumberText.compact(rate.value)))"
                        + (requests.map { ", \(escape(NumberText.compact($0))) requests/s" } ?? "") + ")"
                )
            }
            if !parts.isEmpty { sentences.append(at + parts.joined(separator: "; ") + ".") }
        }
        return sentences
    }

    /// Whether a staged run's SLOs held, stage by stage (`report --slo`, else the SLOs the rows
    /// were judged on): "Every SLO held in every stage", the stages and bounds that broke, or
    /// that no SLO judged the stages (issue 35: "did latency hold?" is the question).
    static func stageSLOVerdict(_ staged: [ResultRow], objectives given: [ServiceLevelObjective]) -> String {
        let objectives = given.isEmpty ? ServiceLevelObjective.recorded(in: staged) : given
        guard !objectives.isEmpty else {
            return
                "No SLO judged these stages: run them with --slo (e.g. drain_latency_corrected_p99_ns&lt;100ms) to ask whether latency held."
        }
        var broken: [String] = []
        for row in staged {
            for objective in objectives {
                if case .broke(let value, _) = objective.judge(row) {
                    broken.append(
                        "stage \(row.stage!) \(objective.column) \(objective.formatted(value)) (\(objective.description))"
                    )
                }
            }
        }
        let names = objectives.map(\.description).joined(separator: ", ")
        guard !broken.isEmpty else { return "Every SLO held in every stage: <strong>\(escape(names))</strong>." }
        return "SLOs broke: <strong>" + escape(broken.joined(separator: "; ")) + "</strong>."
    }
}
