import PagebenchMetrics

extension Scenario {
    /// Fills the columns that say which configuration a row measured: scenario, hash, seed,
    /// pager, load model, limit, filter, read, continuation mode and label (issue 26).
    public func describe(_ row: inout ResultRow) {
        row.scenario = name
        row.configHash = configurationHash
        row.seed = workload.effectiveSeed(store: store)
        row.pagerKind = workload.pager.rawValue
        row.loadModel = workload.load.csvName
        if case .open(let rate, _) = workload.load { row.plannedDrainsPerSecond = rate }
        row.limit = workload.effectiveLimit(store: store)
        row.filter = workload.filter?.description ?? "none"
        row.read = workload.read.description
        row.continuation = store.continuation.rawValue
        row.label = label ?? name
    }

    /// `scenarios` with every missing ``label`` derived (issue 26): the workload parameters
    /// that set the scenario apart from the others of the run (`limit=100 filter=category=0`),
    /// or its name when it is alone. A label a scenario file gave is kept; where a sweep runs
    /// that scenario several times, each gets what sets it apart appended (`our list limit=10`).
    public static func labelled(_ scenarios: [Scenario]) -> [Scenario] {
        func derived(_ scenarios: [Scenario]) -> [String] {
            let rows = scenarios.map { scenario in
                var row = ResultRow()
                scenario.describe(&row)
                return row
            }
            return ConfigurationLabel.distinguishing(
                rows.map(\.labelParameters),
                fallback: scenarios.map(\.name),
                disambiguators: scenarios.map { [String($0.configurationHash.prefix(8))] }
            )
        }
        var result = zip(scenarios, derived(scenarios)).map { scenario, label in
            var copy = scenario
            if copy.label == nil { copy.label = label }
            return copy
        }
        let given = Dictionary(grouping: scenarios.indices.filter { scenarios[$0].label != nil }) {
            scenarios[$0].label!
        }
        for (label, indices) in given where indices.count > 1 {
            let parts = derived(indices.map { scenarios[$0] })
            for (index, part) in zip(indices, parts) where part != scenarios[index].name {
                result[index].label = label + " " + part
            }
        }
        return result
    }
}
