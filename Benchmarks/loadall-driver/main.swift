// loadAll (docs/contract.md P8: keeps every page) against the bare loop that keeps every page too,
// at limit 10 and 1000, as the PagerBenchmarks `ratios` benchmark measures it: each round
// runs every drain once, in rotating order, over the default store (640,000 items), and the
// figure is pages/s of the keeping loop ÷ pages/s of loadAll, wall clock and process CPU.
// Run with Benchmarks/loadall-driver/run.sh [ROUNDS]. The drains are the PagerBenchmarks ones
// (Benchmarks/PagerBenchmarks/Drains.swift, compiled in by run.sh), without package-benchmark.
//
// `run.sh --count DRAIN LIMIT [REPEATS]` (DRAIN: `loop`, `loadAll` or `none`) runs one warm-up
// drain and REPEATS (1) counted drains of DRAIN only, for per-page counts that tell the drains apart: under an
// LD_PRELOAD malloc-counting shim that exports `pagebench_shim_mallocs` it prints the counted
// drain's allocations per page; under `perf stat` with uprobes the difference between the
// DRAIN runs and the `none` run is the drain's runtime calls (results/apollo-loadall-fair.md).

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

/// The malloc count of a preloaded counting shim, if one is loaded.
func shimMallocs() -> UInt? {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pagebench_shim_mallocs") else { return nil }
    let function = unsafeBitCast(symbol, to: (@convention(c) () -> UInt).self)
    return function()
}

func count(drain name: String, limit: Int, repeats: Int, store: SyntheticStore) async throws {
    let drain: ((SyntheticStore, Int) async throws -> Checksum)? =
        switch name {
        case "loop": bareLoopKeepingPages
        case "loadAll": apolloPager
        case "none": nil
        default: fatalError("--count takes loop, loadAll or none, not \(name)")
        }
    guard let drain else { return }
    _ = try await drain(store, limit)  // warm-up
    let before = shimMallocs()
    var checksum = Checksum()
    for _ in 0..<repeats { checksum = try await drain(store, limit) }
    let after = shimMallocs()
    let pages = repeats * (checksum.items + limit - 1) / limit
    if let before, let after {
        let perPage = Double(after - before) / Double(pages)
        print("\(name) limit \(limit): \(after - before) allocations over \(pages) pages, \(perPage) per page")
    } else {
        print("\(name) limit \(limit): \(pages) pages (no malloc-counting shim preloaded)")
    }
}

@main
enum Driver {
    static func main() async throws {
        if CommandLine.arguments.count > 3, CommandLine.arguments[1] == "--count" {
            var configuration = StoreConfiguration.default
            configuration.itemsPerPartition = .uniform(10_000)
            let store = try SyntheticStore(configuration: configuration)
            let repeats = CommandLine.arguments.count > 4 ? Int(CommandLine.arguments[4]) ?? 1 : 1
            try await count(
                drain: CommandLine.arguments[2],
                limit: Int(CommandLine.arguments[3]) ?? 10,
                repeats: repeats,
                store: store
            )
            return
        }
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
            var cpuPerPage: [[Double]] = [[], []]
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
                let pages = Double((expected!.items + limit - 1) / limit)
                for index in cpu.indices { cpuPerPage[index].append(cpu[index] / pages * 1e9) }
            }
            func summary(_ ratios: [Double]) -> String {
                let sorted = ratios.sorted()
                let median = sorted[sorted.count / 2]
                return
                    "\(Int((median * 100).rounded())) (\(Int((sorted.first! * 100).rounded()))–\(Int((sorted.last! * 100).rounded())))"
            }
            func median(_ values: [Double]) -> Int { Int(values.sorted()[values.count / 2].rounded()) }
            print(
                "limit \(limit): loadAll at \(summary(wallRatios)) % of the keeping loop's pages/s (wall), \(summary(cpuRatios)) % (CPU); \(rounds) rounds;"
                    + " CPU ns per page (median): keeping loop \(median(cpuPerPage[0])), loadAll \(median(cpuPerPage[1]))"
            )
        }
    }
}
