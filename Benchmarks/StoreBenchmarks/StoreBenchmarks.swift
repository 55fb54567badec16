import Benchmark
import PagebenchPage
import PagebenchStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Store hot paths, in release: page evaluation (tokens and items included), a 1 MiB page,
// and token encode/decode. Every closure black-holes a checksum so the work cannot be
// optimised away. Units: throughput in operations per second (larger is better), wall
// clock per operation (smaller is better), mallocs per operation (smaller is better).
//
//   PAGEBENCH_BENCHMARKS=1 swift package --scratch-path .build-benchmarks benchmark --target StoreBenchmarks
//
// CI's allocation gate (.ci/benchmark-gate, README "Allocation gate") sets
// PAGEBENCH_ALLOCATION_GATE: then every benchmark runs a few iterations only, since the gated
// metric, mallocCountTotal, is the same in every iteration; wall clock is still recorded
// but no thresholds file holds it, so it never gates.

/// Whether this run is CI's allocation gate (few iterations, see above).
let allocationGate = getenv("PAGEBENCH_ALLOCATION_GATE") != nil

/// `full` iterations normally, at most 5 under the allocation gate.
func iterations(_ full: Int) -> Int { allocationGate ? min(full, 5) : full }

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(allocationGate ? 1 : 2),
        maxIterations: iterations(100_000)
    )

    let store: SyntheticStore
    do {
        store = try SyntheticStore(configuration: .default)
    } catch {
        fatalError("default configuration is invalid: \(error)")
    }

    /// Follows tokens through the scan at `limit`, restarting at the end: the steady state
    /// of a pager (decode the request token, evaluate, encode the next token).
    func pages(limit: Int, filter: Filter?) -> (Benchmark) throws -> Void {
        { benchmark in
            var request = PageRequest(range: .scan, limit: limit, filter: filter)
            var checksum: UInt64 = 0
            for _ in benchmark.scaledIterations {
                let page = try store.evaluatePage(request)
                checksum &+= UInt64(page.scannedBytes) &+ (page.items.last?.attributes?.fingerprint ?? 0)
                request.token = page.nextToken
            }
            blackHole(checksum)
        }
    }

    Benchmark("Page evaluation limit 10", closure: pages(limit: 10, filter: nil))
    Benchmark("Page evaluation limit 10 filter match", closure: pages(limit: 10, filter: .matching))
    Benchmark(
        "Page evaluation limit 1000",
        configuration: .init(scalingFactor: .one, maxIterations: iterations(100_000)),
        closure: pages(limit: 1000, filter: nil)
    )

    Benchmark("Scan of a 1 MiB page", configuration: .init(scalingFactor: .one, maxIterations: iterations(100_000))) {
        benchmark in
        // A limit far above what fits: the 1 MiB budget cuts every page (S4).
        var request = PageRequest(range: .scan, limit: 1_000_000)
        var checksum: UInt64 = 0
        for _ in benchmark.scaledIterations {
            let page = try store.evaluatePage(request)
            precondition(page.scannedBytes <= 1_048_576 || page.scannedCount == 1)
            checksum &+= UInt64(page.scannedBytes) &+ UInt64(page.scannedCount)
            request.token = page.nextToken
        }
        blackHole(checksum)
    }

    Benchmark(
        "Payload bytes of a 1 MiB page",
        configuration: .init(scalingFactor: .one, maxIterations: iterations(10_000))
    ) {
        benchmark in
        let page = try store.evaluatePage(PageRequest(range: .scan, limit: 1_000_000))
        var checksum: UInt64 = 0
        for _ in benchmark.scaledIterations {
            for item in page.items { checksum &+= item.payload?.checksum() ?? 0 }
        }
        blackHole(checksum)
    }

    let request = PageRequest(range: .scan, limit: 10)
    Benchmark("Token encode") { benchmark in
        var checksum = 0
        for index in benchmark.scaledIterations {
            let token = try store.token(for: request, resumingAfter: index & 63, sortKey: UInt64(index & 1023))
            checksum &+= token.utf8.count
        }
        blackHole(checksum)
    }

    let tokens = try? (0..<1024).map { try store.token(for: request, resumingAfter: $0 & 63, sortKey: UInt64($0)) }
    Benchmark("Token decode") { benchmark in
        guard let tokens else { fatalError("could not create tokens") }
        var checksum: UInt64 = 0
        for index in benchmark.scaledIterations {
            checksum &+= try store.decodeToken(tokens[index & 1023]).lastEvaluatedSortKey
        }
        blackHole(checksum)
    }
}
