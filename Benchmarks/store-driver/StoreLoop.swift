import PagebenchPage
import PagebenchStore

#if canImport(Glibc)
import Glibc
#endif

// The page loop the store drivers time (store-driver, writes-driver): page evaluation at
// limit 10 over a full scan, thread CPU time per page. Compiled into each driver by its run.sh.

@inline(never)
func drain(_ store: SyntheticStore, pages: Int) throws -> UInt64 {
    var request = PageRequest(range: .scan, limit: 10)
    var checksum: UInt64 = 0
    for _ in 0..<pages {
        let page = try store.evaluatePage(request)
        checksum &+= UInt64(page.scannedBytes) &+ (page.items.last?.attributes?.fingerprint ?? 0)
        request.token = page.nextToken
    }
    return checksum
}

func threadCPUNanoseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
}

/// Drains `pages` pages `rounds` times, printing each round's CPU per page, then the checksum.
func timeRounds(_ store: SyntheticStore, pages: Int, rounds: Int) throws {
    var checksum: UInt64 = 0
    for round in 1...rounds {
        let start = threadCPUNanoseconds()
        checksum &+= try drain(store, pages: pages)
        let perPage = (threadCPUNanoseconds() - start) / Double(pages)
        print(
            "round \(round): \((perPage * 10).rounded() / 10) ns CPU per page = \(((1e3 / perPage) * 100).rounded() / 100) M pages/s"
        )
    }
    print("checksum \(checksum)")
}
