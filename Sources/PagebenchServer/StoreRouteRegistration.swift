import PagebenchPage
import PagebenchStore

/// Extra routes that a protocol front end (GraphQL, W6) adds to ``StoreServer``'s router,
/// from its own target so that its dependencies stay out of PagebenchServer.
///
/// A front end translates its request into one ``PageRequest`` and pages it through
/// ``StoreServer/servePage(_:context:)``: the same path as the REST endpoints (service
/// time, throttling, faults, statistics), never a second implementation of paging.
package protocol StoreRouteRegistration: Sendable {
    /// Adds this front end's routes to `router`; `server` pages the store.
    func register(on router: inout StoreRouter, server: StoreServer)
}

/// What one page request through ``StoreServer/servePage(_:context:)`` came to.
package enum StorePageOutcome: Sendable {
    /// The store's page.
    case page(Page)
    /// The store's error (carries ``StoreError/code``) or an unexpected failure.
    case failed(any Error)
    /// The client closed the connection before the page was ready.
    case abandoned
}
