import Foundation
import PagebenchHTTPClient
import PagebenchHTTPTestSupport
import PagebenchPage
import PagebenchServer
import PagebenchStore
import PagebenchWire
import Testing

/// Stateless replicas: separate `pagebench serve` processes with the same configuration
/// continue each other's tokens (S16, S18: the token key is derived from the configuration).
@Suite("Replicas", .serialized)
struct ReplicaTests {
    static let arguments = [
        "--partitions", "4", "--items-per-partition", "60", "--item-size", "fixed:300", "--budget-bytes", "2000",
        "--selectivity", "0.3", "--seed", "5",
    ]
    static let configuration = StoreConfiguration(
        partitions: 4,
        itemsPerPartition: .uniform(60),
        itemSize: .fixed(300),
        selectivity: 0.3,
        scanBudgetBytes: 2000,
        seed: 5
    )

    @Test("S16 S18: draining alternately through two serve processes gives the in-process pages")
    func alternateReplicas() async throws {
        let store = try TestStores.store(Self.configuration)
        let replicaA = try ServeProcess(arguments: Self.arguments)
        let replicaB = try ServeProcess(arguments: Self.arguments)
        // Same options, another seed: another store, another token key.
        let stranger = try ServeProcess(arguments: Self.arguments.dropLast() + ["6"])
        #expect(replicaA.port != replicaB.port)
        #expect(replicaA.banner.contains(store.configurationHash))

        let requests = [
            PageRequest(range: .scan, limit: 7, filter: .matching),
            PageRequest(range: .partition(2), reverse: true, limit: 5),
            PageRequest(range: .segment(index: 1, total: 3), filter: .categoryNotEquals(0)),
        ]
        do {
            try await HTTPStoreSource.withSource(target: replicaA.target) { sourceA in
                try await HTTPStoreSource.withSource(target: replicaB.target) { sourceB in
                    #expect(try await sourceA.health().configurationHash == store.configurationHash)
                    #expect(try await sourceB.health().configurationHash == store.configurationHash)
                    for request in requests {
                        let expected = try await TestStores.pages(store, request)
                        #expect(expected.count >= 4, "the traversal must cross replicas several times")
                        let pages = try await TestStores.drain(request, maxPages: expected.count + 1) {
                            request,
                            index in
                            try await (index.isMultiple(of: 2) ? sourceA : sourceB).page(request)
                        }
                        #expect(pages == expected, "\(request)")
                    }
                    #expect(sourceA.statusCounts.byStatus.keys.sorted() == [200])
                    #expect(sourceB.statusCounts.byStatus.keys.sorted() == [200])

                    // A replica of another store refuses the token instead of paging its own data (S17).
                    let token = try #require(try await sourceA.page(requests[0]).nextToken)
                    try await HTTPStoreSource.withSource(target: stranger.target) { strangerSource in
                        let error = await #expect(throws: StoreError.self) {
                            try await strangerSource.page(requests[0].with(token: token))
                        }
                        #expect(error?.code == .invalidToken)
                    }
                }
            }
        } catch {
            // Say what the servers were doing: a request that failed here has twice been a
            // connection closed before answering, under full-suite load only.
            Issue.record("\(error)\n\(replicaA.diagnosis)\n\(replicaB.diagnosis)\n\(stranger.diagnosis)")
            throw error
        }
        // Graceful shutdown on SIGTERM and SIGINT: exit status 0.
        #expect(replicaA.stop(signal: SIGTERM) == 0)
        #expect(replicaB.stop(signal: SIGINT) == 0)
        #expect(stranger.stop() == 0)
    }
}
