// swift-tools-version: 6.2
//
// pagebench: load-tests and benchmarks token-paginated APIs.
//
// Dependencies point one way (see ../shared/docs/STYLE.md):
//   PagebenchStore ← PagebenchHarness → PagebenchPager
//   PagebenchHarness → PagebenchMetrics ← PagebenchReport
//   PagebenchCLI → everything; `pagebench` is a one-line executable over PagebenchCLI.
// The pager knows nothing of the synthetic store: it pages any source.
//
// The package-benchmark suites under Benchmarks/ are only part of the package when
// PAGEBENCH_BENCHMARKS is set, so that `swift build` and `swift test` do not resolve
// or build ordo-one/benchmark (it costs about 85 s on 2 cores). Run them with
//   PAGEBENCH_BENCHMARKS=1 swift package --scratch-path .build-benchmarks benchmark

import PackageDescription

import class Foundation.ProcessInfo

let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
]

var dependencies: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    // Already built for Hummingbird; named here because our HTTP client imports it directly.
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    // The client the issue names for `run --target`, kept as `--http-client async-http-client`
    // next to our own lean client (the default; see results/http-vs-wrk.md for why).
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    // HTTPS for the lean client and `serve --tls-cert` (issue 14); SHA-256/HMAC for SigV4.
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
]

var targets: [Target] = [
    // jemalloc, linked so that every allocation of the pagebench process goes through it
    // and `mallctl` statistics describe the whole process. Debian: libjemalloc-dev.
    .systemLibrary(
        name: "CJemalloc",
        pkgConfig: "jemalloc",
        providers: [.apt(["libjemalloc-dev"])]
    ),
    .target(name: "PagebenchStore", swiftSettings: strict),
    .target(name: "PagebenchPager", swiftSettings: strict),
    .target(
        name: "PagebenchMetrics",
        dependencies: [
            "CJemalloc",
            .product(name: "Histogram", package: "hdrhistogram-swift"),
        ],
        swiftSettings: strict
    ),
    .target(
        name: "PagebenchHarness",
        dependencies: ["PagebenchStore", "PagebenchPager", "PagebenchMetrics"],
        swiftSettings: strict
    ),
    .target(name: "PagebenchReport", dependencies: ["PagebenchMetrics"], swiftSettings: strict),
    // The store as an HTTP service and the HTTP client source (its own HTTP/1.1 client on
    // SwiftNIO, which Hummingbird brings); its own target so that the cost of Hummingbird
    // stays out of everything else.
    .target(
        name: "PagebenchHTTP",
        dependencies: [
            "PagebenchStore",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOTLS", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        swiftSettings: strict
    ),
    // Real list APIs as page sources (`run --target-file`): target files, the dynamodb, http
    // and graphql kinds, SigV4; over PagebenchHTTP's lean client.
    .target(
        name: "PagebenchTargets",
        dependencies: [
            "PagebenchStore", "PagebenchHTTP",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
        ],
        swiftSettings: strict
    ),
    .target(
        name: "PagebenchCLI",
        dependencies: [
            "PagebenchStore", "PagebenchPager", "PagebenchMetrics", "PagebenchHarness", "PagebenchReport",
            "PagebenchHTTP", "PagebenchTargets",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        swiftSettings: strict
    ),
    .executableTarget(
        name: "pagebench",
        dependencies: ["PagebenchCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")],
        swiftSettings: strict
    ),
    .target(
        name: "PagebenchTestSupport",
        dependencies: ["PagebenchStore", "PagebenchPager"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchStoreTests",
        dependencies: ["PagebenchStore", "PagebenchTestSupport"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchPagerTests",
        dependencies: ["PagebenchPager", "PagebenchStore", "PagebenchTestSupport"],
        swiftSettings: strict
    ),
    .testTarget(name: "PagebenchMetricsTests", dependencies: ["PagebenchMetrics"], swiftSettings: strict),
    .testTarget(
        name: "PagebenchHarnessTests",
        dependencies: ["PagebenchHarness", "PagebenchTestSupport"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchHTTPTests",
        dependencies: [
            "PagebenchHTTP", "PagebenchStore", "PagebenchCLI", "PagebenchHarness",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
        ],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchTargetsTests",
        dependencies: ["PagebenchTargets", "PagebenchHTTP", "PagebenchCLI", "PagebenchHarness", "PagebenchMetrics", "PagebenchStore"],
        exclude: ["Servers"],
        resources: [.copy("Fixtures")],
        swiftSettings: strict
    ),
    .testTarget(name: "PagebenchReportTests", dependencies: ["PagebenchReport"], swiftSettings: strict),
    .testTarget(
        name: "PagebenchCLITests",
        dependencies: ["PagebenchCLI", "PagebenchTestSupport"],
        swiftSettings: strict
    ),
]

if ProcessInfo.processInfo.environment["PAGEBENCH_BENCHMARKS"] != nil {
    dependencies.append(
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"])
    )
    for suite in ["StoreBenchmarks", "PagerBenchmarks"] {
        targets.append(
            .executableTarget(
                name: suite,
                // Not PagebenchHarness: it links jemalloc (via PagebenchMetrics), and a process
                // with both jemalloc and package-benchmark's malloc interposer frees one
                // allocator's blocks with the other and crashes (SIGSEGV in replacement_free).
                dependencies: [
                    "PagebenchStore", "PagebenchPager",
                    .product(name: "Benchmark", package: "benchmark"),
                ],
                path: "Benchmarks/\(suite)",
                swiftSettings: strict,
                plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
            )
        )
    }
}

let package = Package(
    name: "pagebench",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pagebench", targets: ["pagebench"]),
        .library(name: "PagebenchStore", targets: ["PagebenchStore"]),
        .library(name: "PagebenchPager", targets: ["PagebenchPager"]),
        .library(name: "PagebenchHarness", targets: ["PagebenchHarness"]),
    ],
    dependencies: dependencies,
    targets: targets,
    swiftLanguageModes: [.v6]
)
