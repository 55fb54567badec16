import PagebenchHarness
import PagebenchMetrics
import PagebenchReport

/// The SLOs a run judges its rows on: every `--slo` on every row, and each scenario's `slo`
/// list on that scenario's rows. The two add up: a row must meet both, and a `--slo` on a
/// column the scenario bounds too does not replace the scenario's bound.
package struct RunObjectives: Sendable {
    /// The `--slo` expressions, for every row.
    package let flags: [ServiceLevelObjective]
    /// Each scenario's own list, by scenario name.
    package let byScenario: [String: [ServiceLevelObjective]]

    /// Parses `--slo` (a bad one: exit 64) and every scenario's list (a bad one: exit 65,
    /// naming `slo[i]`; ``check(_:file:)`` names its file when it is loaded).
    package init(flags: [String], scenarios: [Scenario]) throws(CommandError) {
        do {
            self.flags = try ServiceLevelObjective.parseAll(flags)
        } catch {
            throw CommandError(error)
        }
        var byScenario: [String: [ServiceLevelObjective]] = [:]
        for scenario in scenarios where !scenario.slo.isEmpty {
            byScenario[scenario.name] = try Self.check(scenario)
        }
        self.byScenario = byScenario
    }

    /// A scenario's `slo` list, parsed.
    ///
    /// - Throws: ``CommandError`` (65, invalid scenario) naming `file` and `slo[i]`.
    @discardableResult
    package static func check(_ scenario: Scenario, file: String? = nil) throws(CommandError) -> [ServiceLevelObjective]
    {
        do {
            return try ServiceLevelObjective.parseAll(scenario.slo, field: "slo")
        } catch {
            throw .invalidInput((file.map { "\($0): " } ?? "scenario '\(scenario.name)': ") + error.message)
        }
    }

    /// Whether no row is judged.
    package var isEmpty: Bool { flags.isEmpty && byScenario.isEmpty }

    /// Every SLO, the scenarios' first, for a summary line.
    package var all: [ServiceLevelObjective] { byScenario.keys.sorted().flatMap { byScenario[$0]! } + flags }

    /// The SLOs that judge `row`: every `--slo`, and those of its scenario's list (a row over a
    /// target is named `SCENARIO@TARGET`) that the row has a value for. A scenario's bound on a
    /// column its row does not have (`drain_latency_corrected_p99_ns` of a closed-loop or ramped
    /// run) does not apply to that row (``notApplicable(in:)`` says so); a `--slo` asked for on
    /// the command line always applies, and a row without its column breaks it.
    package func objectives(for row: ResultRow) -> [ServiceLevelObjective] {
        scenarioObjectives(for: row).filter { $0.judge(row) != .missing } + flags
    }

    /// The scenario's own list for `row`.
    private func scenarioObjectives(for row: ResultRow) -> [ServiceLevelObjective] {
        var name = Substring(row.scenario)
        while byScenario[String(name)] == nil, let at = name.lastIndex(of: "@") { name = name[..<at] }
        return byScenario[String(name)] ?? []
    }

    /// One sentence per scenario SLO that some rows could not be judged on, naming how many
    /// and the first of them; empty when every scenario SLO applied to every row.
    package func notApplicable(in rows: [ResultRow]) -> [String] {
        var unjudged: [String: (objective: ServiceLevelObjective, rows: [String])] = [:]
        var order: [String] = []
        for row in rows {
            for objective in scenarioObjectives(for: row) where objective.judge(row) == .missing {
                let key = "\(row.scenario)\u{0}\(objective.description)"
                if unjudged[key] == nil { order.append(key) }
                unjudged[key, default: (objective, [])].rows.append(Self.name(of: row))
            }
        }
        return order.map { key in
            let (objective, names) = unjudged[key]!
            let count = names.count == 1 ? "1 row has" : "\(names.count) rows have"
            return "scenario SLO \(objective.description) not applicable: \(count) no \(objective.column) (\(names[0])"
                + (names.count > 1 ? ", …)" : ")") + "; it judges the rows that have it"
        }
    }

    /// The SLOs that judged at least one of `rows` (every `--slo`; a scenario's where a row had
    /// its column), for the line that says they held.
    package func applied(in rows: [ResultRow]) -> [ServiceLevelObjective] {
        let judged = Set(rows.flatMap { objectives(for: $0).map(\.description) })
        return all.filter { judged.contains($0.description) }
    }

    /// A row as the SLO messages name it.
    package static func name(of row: ResultRow) -> String {
        "\(row.scenario) \(row.pagerKind) ×\(row.concurrency) rep \(row.repetition)"
            + (row.stage.map { " stage \($0)" } ?? "")
    }

    /// The summary table with a column for each column an SLO bounds that the table does not
    /// show already (its value on each row in the bound's unit, `-` where the row has none)
    /// and `slo` (held or broke): what each row was judged on, next to it.
    package func summaryTable(_ rows: [ResultRow]) -> String {
        let table = SummaryTable.render(rows)
        guard !isEmpty else { return table }
        var bounded: [ServiceLevelObjective] = []
        for objective in all where !bounded.contains(where: { $0.column == objective.column }) {
            bounded.append(objective)
        }
        let headers = bounded.map(\.column) + ["slo"]
        let cells = rows.map { row -> [String] in
            bounded.map { objective in
                if case .held(let value) = objective.judge(row) { return objective.formatted(value) }
                if case .broke(let value, _) = objective.judge(row) { return objective.formatted(value) }
                return "-"
            } + [row.sloHeld.map { $0 == 1 ? "held" : "broke" } ?? "-"]
        }
        let widths = headers.indices.map { column in
            ([headers[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0
        }
        func extra(_ line: [String]) -> String {
            line.enumerated().map { column, cell in String(repeating: " ", count: widths[column] - cell.count) + cell }
                .joined(separator: "  ")
        }
        let lines = table.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let extended = zip(lines, [headers] + cells).map { line, cells in line + "  " + extra(cells) }
        return extended.joined(separator: "\n") + "\n"
    }

    /// Sets `slo_held` on every row (when any SLO applies to it).
    package func mark(_ rows: inout [ResultRow]) {
        for index in rows.indices {
            let objectives = objectives(for: rows[index])
            guard !objectives.isEmpty else { continue }
            rows[index].sloHeld = ServiceLevelObjective.allHold(objectives, on: rows[index]) ? 1 : 0
            rows[index].slos = ServiceLevelObjective.columnText(objectives)
        }
    }

    /// Every bound a row broke, as sentences (``ServiceLevelObjective/violations(of:in:)``).
    package func violations(in rows: [ResultRow]) -> [String] {
        rows.flatMap { ServiceLevelObjective.violations(of: objectives(for: $0), in: [$0]) }
    }
}
