import PagebenchPage
import PagebenchStore

#if canImport(Glibc)
import Glibc
#endif

// Page evaluation at limit 10 under writes (S22): the loop of Benchmarks/store-driver, on the
// default store with `writes` configured, either before any write (an empty overlay) or
// after CHANGES writes (inserts, deletes and updates spread over the store). Thread CPU time
// per page. Built and run by run.sh, next to store-driver builds of this tree and of the
// commit before writes existed.
//
//   writes-driver PAGES ROUNDS CHANGES [keyset|offset]

@main
struct WritesDriver {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 3, let pages = Int(arguments[0]), pages > 0, let rounds = Int(arguments[1]),
            rounds > 0,
            let changes = Int(arguments[2]), changes >= 0
        else {
            print("usage: writes-driver PAGES ROUNDS CHANGES [keyset|offset]")
            exit(64)
        }
        var configuration = StoreConfiguration.default
        // One insert, one delete and one update per request, anywhere in the store.
        configuration.writes = WritesConfiguration(insertRate: 1, deleteRate: 1, updateRate: 1)
        configuration.continuation = arguments.count > 3 && arguments[3] == "offset" ? .offset : .keyset
        let store = try SyntheticStore(configuration: configuration)
        store.applyWrites(requests: (changes + 2) / 3)
        print("overlay: \(store.writeVersion) writes, continuation \(configuration.continuation.rawValue)")
        try timeRounds(store, pages: pages, rounds: rounds)
    }
}
