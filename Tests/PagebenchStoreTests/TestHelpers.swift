import PagebenchBase
import PagebenchPage
import PagebenchStore
import Testing

/// A small store for rule tests: `partitions × items` items of `size` bytes.
func smallStore(
    partitions: Int = 3,
    items: Int = 25,
    size: ItemSizeDistribution = .fixed(100),
    budget: Int = 1_048_576,
    boundary: BudgetBoundary = .exclusive,
    exactEnd: ExactEnd = .continuation,
    policy: TokenPolicy = .strict,
    selectivity: Double = 0.3,
    clustering: Clustering = .even,
    seed: UInt64 = 1
) throws -> SyntheticStore {
    try SyntheticStore(
        configuration: StoreConfiguration(
            partitions: partitions,
            itemsPerPartition: .uniform(items),
            itemSize: size,
            selectivity: selectivity,
            clustering: clustering,
            scanBudgetBytes: budget,
            budgetBoundary: boundary,
            exactEnd: exactEnd,
            tokenPolicy: policy,
            seed: seed
        )
    )
}

/// Follows tokens from `request` until a nil token (at most `maxPages` pages).
func drain(_ store: SyntheticStore, _ request: PageRequest, maxPages: Int = 1_000_000) throws -> [Page] {
    var pages: [Page] = []
    var current = request
    while pages.count < maxPages {
        let page = try store.evaluatePage(current)
        pages.append(page)
        guard let token = page.nextToken else { return pages }
        current = current.with(token: token)
    }
    Issue.record("traversal did not end within \(maxPages) pages")
    return pages
}

/// The error code a throwing expression throws, or nil.
func storeErrorCode(_ body: () throws -> Void) -> StoreError.Code? {
    do {
        try body()
        return nil
    } catch let error as StoreError {
        return error.code
    } catch {
        return nil
    }
}

/// The store error a throwing expression throws, or nil.
func storeError(_ body: () throws -> Void) -> StoreError? {
    do {
        try body()
        return nil
    } catch let error as StoreError {
        return error
    } catch {
        return nil
    }
}
