import PagebenchStore

#if canImport(Glibc)
import Glibc
#endif

// Page evaluation at limit 10 in the default configuration, the loop of StoreBenchmarks'
// "Page evaluation limit 10", without package-benchmark around it: no malloc interposer, the
// process's own malloc, thread CPU time per page. Built and run by run.sh.

@inline(never)
func drain(_ store: SyntheticStore, pages: Int) throws -> UInt64 {
    var request = PageRequest(range: .scan, limit: 10)
    var checksum: UInt64 = 0
    for _ in 0..<pages {
        let page = try store.evaluatePage(request)
        checksum &+= UInt64(page.scannedBytes) &+ (page.items.last?.fingerprint ?? 0)
        request.token = page.nextToken
    }
    return checksum
}

func threadCPUNanoseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
}

@main
struct StoreDriver {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count <= 2, let pages = Int(arguments.first ?? "2000000"), pages > 0,
            let rounds = Int(arguments.dropFirst().first ?? "5"), rounds > 0
        else {
            print("usage: store-driver [PAGES [ROUNDS]]  (positive integers; default 2000000 5)")
            exit(64)
        }
        let store = try SyntheticStore(configuration: .default)
        var checksum: UInt64 = 0
        for round in 1...rounds {
            let start = threadCPUNanoseconds()
            checksum &+= try drain(store, pages: pages)
            let perPage = (threadCPUNanoseconds() - start) / Double(pages)
            print("round \(round): \((perPage * 10).rounded() / 10) ns CPU per page = \(((1e3 / perPage) * 100).rounded() / 100) M pages/s")
        }
        print("checksum \(checksum)")  // the same for every build that pages the same dataset
    }
}
