import Foundation
import PagebenchPage
import Testing

@testable import PagebenchStore

/// A store of 10⁹ items is created at once and pages in bounded memory: attributes are
/// computed, not stored.
@Suite struct LargeStoreTests {
    /// VmRSS of this process in bytes (Linux), or nil elsewhere.
    static func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.split(separator: " ").compactMap { Int($0) }
            return digits.first.map { $0 * 1024 }
        }
        return nil
    }

    @Test(arguments: [ItemsPerPartition.uniform(1_000_000), .zipf(mean: 1_000_000, exponent: 1.2)])
    func aBillionItemStorePagesInAFewMegabytes(items: ItemsPerPartition) throws {
        let before = Self.residentBytes()
        let store = try SyntheticStore(
            configuration: StoreConfiguration(partitions: 1000, itemsPerPartition: items)
        )
        #expect(store.totalItems == 1_000_000_000)
        var checksum: UInt64 = 0
        for request in [
            PageRequest(range: .scan, limit: 1000),
            PageRequest(range: .partition(999), reverse: true, limit: 1000, filter: .matching),
            PageRequest(range: .segment(index: 7, total: 16), limit: 100_000),
        ] {
            var current = request
            for _ in 0..<50 {
                let page = try store.evaluatePage(current)
                #expect(page.scannedCount > 0 && page.nextToken != nil)
                checksum &+= page.items.reduce(0) { $0 &+ ($1.payload?.checksum() ?? 0) }
                current.token = page.nextToken
            }
        }
        let last = try #require(store.item(partition: 999, sortKey: UInt64(store.itemCount(inPartition: 999) - 1)))
        #expect(last.partition == 999)
        #expect(checksum != 0)
        if let before, let after = Self.residentBytes() {
            // The whole store, its prefix table and 150 pages: far below the 64 MB bound.
            #expect(after - before < 32 << 20, "RSS grew by \(after - before) bytes")
        }
    }
}
