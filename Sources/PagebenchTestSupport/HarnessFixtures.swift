import PagebenchHarness
import PagebenchMetrics
import PagebenchStore

/// A scenario named `name` over `store` with no warm-up; `configure` sets the workload.
package func scenario(
    _ name: String = "test",
    store: StoreConfiguration,
    _ configure: (inout Workload) -> Void
) -> Scenario {
    var workload = Workload()
    workload.warmupSeconds = 0
    configure(&workload)
    return Scenario(name: name, store: store, workload: workload)
}

/// A phase runner over the in-process store of `scenario` (validated first), as `run` makes it.
package func storeRunner(_ scenario: Scenario) throws -> PhaseRunner<StoreSource> {
    try scenario.validate()
    let store = try SyntheticStore(configuration: scenario.store)
    return PhaseRunner(scenario: scenario, source: StoreSource(store: store, pager: scenario.workload.pager))
}

/// The deterministic figures of a run (H3): identical for the same seed and configuration.
package struct DeterministicFigures: Equatable, CustomStringConvertible {
    package var drains, pages, items, scannedItems, scannedBytes, emptyPagesWasted, emptyPagesFinal, pagesInEndedDrains,
        pagesPerDrainMax: Int

    package init(_ metrics: TaskMetrics) {
        drains = metrics.drains
        pages = metrics.pages
        items = metrics.items
        scannedItems = metrics.scannedItems
        scannedBytes = metrics.scannedBytes
        emptyPagesWasted = metrics.emptyPagesWasted
        emptyPagesFinal = metrics.emptyPagesFinal
        pagesInEndedDrains = metrics.pagesInEndedDrains
        pagesPerDrainMax = metrics.pagesPerDrainMax
    }

    package var description: String {
        "drains \(drains) pages \(pages) items \(items) scanned \(scannedItems)/\(scannedBytes)B empty \(emptyPagesWasted)+\(emptyPagesFinal) max \(pagesPerDrainMax)"
    }
}
