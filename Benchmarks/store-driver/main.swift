import PagebenchPage
import PagebenchStore

#if canImport(Glibc)
import Glibc
#endif

// Page evaluation at limit 10 in the default configuration, the loop of StoreBenchmarks'
// "Page evaluation limit 10", without package-benchmark around it: no malloc interposer, the
// process's own malloc, thread CPU time per page. Built and run by run.sh.

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
        // The checksum is the same for every build that pages the same dataset.
        try timeRounds(store, pages: pages, rounds: rounds)
    }
}
