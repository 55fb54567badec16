// loadAll (SEMANTICS P8: keeps every page) against the bare loop that keeps every page too,
// at limit 10 and 1000, as the PagerBenchmarks `ratios` benchmark measures it: each round
// runs every drain once, in rotating order, over the default store (640,000 items), and the
// figure is pages/s of the keeping loop ÷ pages/s of loadAll, wall clock and process CPU.
// Run with Benchmarks/loadall-driver/run.sh [ROUNDS]. The drains are the PagerBenchmarks ones,
// copied: that target needs package-benchmark and its malloc interposer, this one nothing.

import PagebenchPager
import PagebenchStore

#if canImport(Glibc)
import Glibc
#endif

func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func wallSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

struct StoreSource: PageSource {
    let store: SyntheticStore
    func fetch(_ request: PageRequest) async throws -> Page { try await store.page(request) }
}

struct Checksum: Equatable {
    var value: UInt64 = 0
    var items = 0
    mutating func add(_ page: Page) {
        for item in page.items {
            items += 1
            value = (value &* 0x100_0000_01B3) ^ item.fingerprint
        }
    }
}

func bareLoopKeepingPages(_ store: SyntheticStore, limit: Int) async throws -> Checksum {
    var pages: [Page] = []
    var request = PageRequest(range: .scan, limit: limit)
    while true {
        let page = try await store.page(request)
        pages.append(page)
        guard let token = page.nextToken else { break }
        request.token = token
    }
    var checksum = Checksum()
    for page in pages { checksum.add(page) }
    return checksum
}

func apolloPager(_ store: SyntheticStore, limit: Int) async throws -> Checksum {
    let request = PageRequest(range: .scan, limit: limit)
    let pager = QueryPager(
        source: StoreSource(store: store),
        initialRequest: request,
        extractPageInfo: { CursorBasedPagination.Forward(nextToken: $0.nextToken) },
        pageResolver: { info, _ in info.endCursor.map { request.with(token: $0) } }
    )
    try await pager.loadAll()
    guard let output = pager.output else { fatalError("loadAll returned without an output") }
    var checksum = Checksum()
    for page in output.previousPages { checksum.add(page) }
    checksum.add(output.initialPage)
    for page in output.nextPages { checksum.add(page) }
    return checksum
}

@main
enum Driver {
    static func main() async throws {
        let rounds = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 15 : 15
        var configuration = StoreConfiguration.default
        configuration.itemsPerPartition = .uniform(10_000)
        let store = try SyntheticStore(configuration: configuration)
        let drains: [(String, (SyntheticStore, Int) async throws -> Checksum)] = [
            ("keeping loop", bareLoopKeepingPages), ("loadAll", apolloPager),
        ]
        for limit in [10, 1_000] {
            var expected: Checksum?
            var wallRatios: [Double] = []
            var cpuRatios: [Double] = []
            for round in 0...rounds {
                var wall = [0.0, 0.0]
                var cpu = [0.0, 0.0]
                for step in 0..<drains.count {
                    let index = (step + round) % drains.count
                    let (wallStart, cpuStart) = (wallSeconds(), cpuSeconds())
                    let checksum = try await drains[index].1(store, limit)
                    cpu[index] += cpuSeconds() - cpuStart
                    wall[index] += wallSeconds() - wallStart
                    if expected == nil { expected = checksum }
                    precondition(checksum == expected, "\(drains[index].0) drained other items")
                }
                if round == 0 { continue }  // warm-up
                wallRatios.append(wall[0] / wall[1])
                cpuRatios.append(cpu[0] / cpu[1])
            }
            func summary(_ ratios: [Double]) -> String {
                let sorted = ratios.sorted()
                let median = sorted[sorted.count / 2]
                return "\(Int((median * 100).rounded())) (\(Int((sorted.first! * 100).rounded()))–\(Int((sorted.last! * 100).rounded())))"
            }
            print("limit \(limit): loadAll at \(summary(wallRatios)) % of the keeping loop's pages/s (wall), \(summary(cpuRatios)) % (CPU); \(rounds) rounds")
        }
    }
}
