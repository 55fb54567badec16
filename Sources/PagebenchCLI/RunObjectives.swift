import PagebenchHarness
import PagebenchMetrics
import PagebenchReport

/// The SLOs a run judges its rows on: every `--slo` on every row, and each scenario's `slo`
/// list on that scenario's rows. The two add up: a row must meet both, and a `--slo` on a
/// column the scenario bounds too does not replace the scenario's bound.
struct RunObjectives {
    /// The `--slo` expressions, for every row.
    let flags: [ServiceLevelObjective]
    /// Each scenario's own list, by scenario name.
    let byScenario: [String: [ServiceLevelObjective]]

    /// Parses `--slo` (a bad one: exit 64) and every scenario's list (a bad one: exit 65,
    /// naming `slo[i]`; ``check(_:file:)`` names its file when it is loaded).
    init(flags: [String], scenarios: [Scenario]) throws(CommandFailure) {
        do {
            self.flags = try ServiceLevelObjective.parseAll(flags)
        } catch {
            throw CommandFailure(error)
        }
        var byScenario: [String: [ServiceLevelObjective]] = [:]
        for scenario in scenarios where !scenario.slo.isEmpty {
            byScenario[scenario.name] = try Self.check(scenario)
        }
        self.byScenario = byScenario
    }

    /// A scenario's `slo` list, parsed.
    ///
    /// - Throws: ``CommandFailure`` (65, invalid scenario) naming `file` and `slo[i]`.
    @discardableResult
    static func check(_ scenario: Scenario, file: String? = nil) throws(CommandFailure) -> [ServiceLevelObjective] {
        do {
            return try ServiceLevelObjective.parseAll(scenario.slo, field: "slo")
        } catch {
            throw CommandFailure(ExitCodes.dataError, (file.map { "\($0): " } ?? "scenario '\(scenario.name)': ") + error.message)
        }
    }

    /// Whether no row is judged.
    var isEmpty: Bool { flags.isEmpty && byScenario.isEmpty }

    /// Every SLO, the scenarios' first, for a summary line.
    var all: [ServiceLevelObjective] { byScenario.keys.sorted().flatMap { byScenario[$0]! } + flags }

    /// The SLOs of `row`: its scenario's (a row over a target is named `SCENARIO@TARGET`)
    /// and every `--slo`.
    func objectives(for row: ResultRow) -> [ServiceLevelObjective] {
        var name = Substring(row.scenario)
        while byScenario[String(name)] == nil, let at = name.lastIndex(of: "@") { name = name[..<at] }
        return (byScenario[String(name)] ?? []) + flags
    }

    /// Sets `slo_held` on every row (when any SLO applies to it).
    func mark(_ rows: inout [ResultRow]) {
        for index in rows.indices {
            let objectives = objectives(for: rows[index])
            guard !objectives.isEmpty else { continue }
            rows[index].sloHeld = ServiceLevelObjective.allHold(objectives, on: rows[index]) ? 1 : 0
            rows[index].slos = ServiceLevelObjective.columnText(objectives)
        }
    }

    /// Every bound a row broke, as sentences (``ServiceLevelObjective/violations(of:in:)``).
    func violations(in rows: [ResultRow]) -> [String] {
        rows.flatMap { ServiceLevelObjective.violations(of: objectives(for: $0), in: [$0]) }
    }
}
