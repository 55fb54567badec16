// swift-tools-version: 6.2
//
// pagebench: load-tests and benchmarks token-paginated APIs.
//
// Dependencies point one way; every target below may use
// PagebenchBase (seeded generator, stable hash, clock, math, number text, files, the one JSON
// tokenizer JSONReader and the strict loader StrictJSON), which
// depends only on CCycleCounter (the CPU's counter read, for the page clock):
//   PagebenchPage: the page contract (page request, page, item, filter, PageError and its
//     kinds), depends on nothing; every page source speaks it: PagebenchStore,
//     PagebenchHTTPClient, PagebenchTargets; PagebenchHarness classifies by its kinds
//   PagebenchPage ← PagebenchStore ← PagebenchHarness → PagebenchPager
//   PagebenchHarness → PagebenchProcessStats → PagebenchMetrics ← PagebenchReport
//   PagebenchHarness → PagebenchMetrics
//   PagebenchScaleOut → PagebenchHarness, PagebenchMetrics
//   PagebenchTLS → COpenSSL (+ SwiftNIO): TLS on the system's OpenSSL, one NIO handler
//   HTTP in three rooms:
//   PagebenchWire → PagebenchStore (+ NIOCore): page bodies, queries, error bodies, JSON
//   PagebenchHTTPClient → PagebenchWire, PagebenchTLS, PagebenchPager (its RetryPolicy) (+ SwiftNIO): the lean
//     client, the one page exchange of HTTP sources, HTTPStoreSource, http-bench's drain loop
//   PagebenchServer → PagebenchWire, PagebenchTLS (+ HummingbirdCore): `serve`, REST and DynamoDB
//   PagebenchTargets → PagebenchWire, PagebenchHTTPClient, PagebenchPage (+ COpenSSL's
//     SHA-256/HMAC for SigV4): real APIs, speaking only the page contract (never the
//     synthetic store's types); never the server, so no HummingbirdCore
//   PagebenchGraphQL → PagebenchServer, PagebenchWire (+ GraphQLSwift): serve's GraphQL (W6)
//   PagebenchLiveMetrics → PagebenchHarness, PagebenchMetrics, PagebenchHTTPClient, CSnappy (+ SwiftNIO):
//     live metrics of a run (`--metrics-listen`, `--remote-write`), fed by the phase observer
//   PagebenchVerify → PagebenchTargets: `verify`, a real API's pagination judged (V1–V7)
//   PagebenchEngine → PagebenchHarness, PagebenchScaleOut, PagebenchReport, PagebenchHTTPClient, PagebenchTargets,
//     PagebenchLiveMetrics:
//     one run (`run`, `knee`, `baseline update`): sources, row names, SLOs, shards, writing,
//     interruption, the knee loop; typed outcomes and errors, and the one exit-code table
//   PagebenchCLI → everything; `pagebench` is a one-line executable over PagebenchCLI.
//   PagebenchTestSupport (tests only) → PagebenchStore, PagebenchPager, PagebenchHarness
//   PagebenchHTTPTestSupport (tests only) → PagebenchServer: live servers, a scripted peer
//   PagebenchCLITestSupport (tests that drive the CLI only) → PagebenchCLI
// Each library target has a test target of its name + Tests (PagebenchBaseTests, …).
// docs/architecture.md is the map of these modules and where a change goes; a test
// (Tests/docs/test_architecture.py) keeps its table equal to the targets below.
// The pager knows nothing of the synthetic store: it pages any source. Only
// PagebenchProcessStats links jemalloc (CJemalloc).
//
// HTTPS and SigV4 use the system's OpenSSL (Debian: libssl-dev) instead of two BoringSSL copies
// (swift-nio-ssl's, swift-crypto's), about half of a cold build's CPU (results/build-times.md).
//
// async-http-client (`--http-client async-http-client`) and what it brings (NIOSSL,
// BoringSSL, NIOHTTP2) are built only with the AsyncHTTPClientSupport package trait:
//   swift build --traits AsyncHTTPClientSupport
//
// The package-benchmark suites under Benchmarks/ are only part of the package when
// PAGEBENCH_BENCHMARKS is set, so that `swift build` and `swift test` do not resolve
// or build ordo-one/benchmark (it costs about 85 s on 2 cores). Run them with
//   PAGEBENCH_BENCHMARKS=1 swift package --scratch-path .build-benchmarks benchmark

import PackageDescription

import class Foundation.ProcessInfo

let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error)
]

var dependencies: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    // Only its HummingbirdCore module (the HTTP/1.1 server, requests and responses): the
    // router module Hummingbird and what it alone brings (_NIOFileSystem, swift-system,
    // swift-metrics, swift-distributed-tracing, swift-atomics) cost 117 CPU-seconds of a cold
    // release build for five routes (results/build-times.md). Without the default trait
    // ConfigurationSupport (swift-configuration), which only adds initializers we do not use.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
    // Already built for HummingbirdCore; named because the server's responses speak its types.
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    // Already built for HummingbirdCore; named here because our HTTP client imports it directly.
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    // `--http-client async-http-client`, next to our own lean client (the default; see
    // results/http-vs-wrk.md for why). Only built with the AsyncHTTPClientSupport trait.
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    // Already built for HummingbirdCore; named because the server's parse-error handler speaks its HTTP parts.
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    // The GraphQL front end of `serve` (W6): parser, validation, execution, introspection.
    .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
    // Already built for GraphQL; named because the GraphQL front end builds its Map values.
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
]

var targets: [Target] = [
    // jemalloc, linked so that every allocation of the pagebench process goes through it
    // and `mallctl` statistics describe the whole process. Debian: libjemalloc-dev.
    .systemLibrary(
        name: "CJemalloc",
        pkgConfig: "jemalloc",
        providers: [.apt(["libjemalloc-dev"]), .brew(["jemalloc"])]
    ),
    // The CPU's time-stamp counter (RDTSC, CNTVCT_EL0) as an inline C function, for the page
    // clock (MonotonicTime.PageClock): Swift has no way to read it.
    .target(name: "CCycleCounter"),
    // Valgrind's callgrind client requests (start, stop and dump the instruction count of a
    // measured phase) when <valgrind/callgrind.h> is there at build time; no-ops otherwise.
    .target(name: "CCallgrind"),
    // The system's OpenSSL (libssl, libcrypto), with C shims for the macros Swift cannot
    // import: TLS for PagebenchTLS, SHA-256 and HMAC for SigV4. Debian: libssl-dev.
    .systemLibrary(
        name: "COpenSSL",
        pkgConfig: "openssl",
        providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
    ),
    // The small helpers every other target shares (seeded generator, stable hash, clock,
    // number text, files, retry back-off); depends on nothing but the counter read.
    .target(name: "PagebenchBase", dependencies: ["CCycleCounter"], swiftSettings: strict),
    // PAGEBENCH_EVALUATION_REGRESSION=1 at build time compiles in the injected 10 % per-page
    // cost regression of the store's evaluation that results/gate-measure.sh aa-gate checks the gate
    // against (SyntheticStore.evaluate); only this target's flags change, so that build reuses
    // the rest. Never set for a shipped build.
    // The page contract every source speaks and the harness reads (no dependencies: a target
    // kind or a front end needs only this to exchange pages and errors).
    .target(name: "PagebenchPage", swiftSettings: strict),
    .target(
        name: "PagebenchStore",
        dependencies: ["PagebenchBase", "PagebenchPage"],
        swiftSettings: strict
            + (ProcessInfo.processInfo.environment["PAGEBENCH_EVALUATION_REGRESSION"] == nil
                ? [] : [.define("PAGEBENCH_EVALUATION_REGRESSION")])
    ),
    .target(name: "PagebenchPager", dependencies: ["PagebenchBase", "PagebenchPage"], swiftSettings: strict),
    // Pure results: rows, CSV, latency histograms, task metrics. No jemalloc, no /proc.
    .target(
        name: "PagebenchMetrics",
        dependencies: [
            "PagebenchBase", "PagebenchPage",
            .product(name: "Histogram", package: "hdrhistogram-swift"),
        ],
        swiftSettings: strict
    ),
    // Statistics of the running process: jemalloc (mallctl), /proc, CPU time, callgrind's instruction counts.
    .target(
        name: "PagebenchProcessStats",
        dependencies: ["PagebenchBase", "PagebenchMetrics", "CJemalloc", "CCallgrind"],
        swiftSettings: strict
    ),
    .target(
        name: "PagebenchHarness",
        dependencies: [
            "PagebenchBase", "PagebenchPage", "PagebenchStore", "PagebenchPager", "PagebenchMetrics",
            "PagebenchProcessStats",
        ],
        swiftSettings: strict
    ),
    // Running one sweep as shards in several processes (`run --shard`, `--workers`, `merge`).
    .target(
        name: "PagebenchScaleOut",
        dependencies: ["PagebenchBase", "PagebenchMetrics", "PagebenchHarness"],
        swiftSettings: strict
    ),
    .target(name: "PagebenchReport", dependencies: ["PagebenchBase", "PagebenchMetrics"], swiftSettings: strict),
    // TLS as one SwiftNIO handler over OpenSSL memory BIOs, client and server side (HTTPS for
    // the lean client and `serve --tls-cert`).
    .target(
        name: "PagebenchTLS",
        dependencies: [
            "COpenSSL",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOTLS", package: "swift-nio"),
        ],
        swiftSettings: strict
    ),
    // The HTTP wire format both sides speak: page bodies, page queries, error bodies, JSON
    // reading and writing (one encoder and one decoder per item form). No HTTP stack.
    .target(
        name: "PagebenchWire",
        dependencies: [
            "PagebenchBase", "PagebenchPage", "PagebenchStore",
            .product(name: "NIOCore", package: "swift-nio"),
        ],
        swiftSettings: strict
    ),
    // The HTTP client: the lean HTTP/1.1 pool with TLS on SwiftNIO, HTTPRequestClient, the served
    // store as a page source (HTTPStoreSource) and the drain load of `http-bench`. No server.
    .target(
        name: "PagebenchHTTPClient",
        dependencies: [
            "PagebenchBase", "PagebenchPage", "PagebenchStore", "PagebenchPager", "PagebenchWire", "PagebenchTLS",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOTLS", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(
                name: "AsyncHTTPClient",
                package: "async-http-client",
                condition: .when(traits: ["AsyncHTTPClientSupport"])
            ),
        ],
        swiftSettings: strict
    ),
    // The store as an HTTP service (`serve`): HummingbirdCore's server with our five routes
    // (StoreRouter) for REST, the DynamoDB front end, request bounds, HTTPS; its own target so
    // that the cost of the server stays out of everything else.
    .target(
        name: "PagebenchServer",
        dependencies: [
            "PagebenchBase", "PagebenchPage", "PagebenchStore", "PagebenchWire", "PagebenchTLS",
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOTLS", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "NIOExtras", package: "swift-nio-extras"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        swiftSettings: strict
    ),
    // Real list APIs as page sources (`run --target-file`): target files, the dynamodb, http
    // and graphql kinds, SigV4; over the wire format and the lean client (never the server).
    // A new target kind goes here and speaks PagebenchPage: PageRequest in, Page or PageError
    // (with its kind) out.
    .target(
        name: "PagebenchTargets",
        dependencies: [
            "PagebenchBase", "PagebenchPage", "PagebenchWire", "PagebenchHTTPClient", "COpenSSL",
            .product(name: "NIOCore", package: "swift-nio"),
        ],
        swiftSettings: strict
    ),
    // `pagebench verify` (issue 37): a real list API's pagination judged against rules V1–V7
    // (docs/contract.md) through the target's own requests; the CLI only parses and prints.
    .target(
        name: "PagebenchVerify",
        dependencies: ["PagebenchBase", "PagebenchPage", "PagebenchWire", "PagebenchTargets"],
        swiftSettings: strict
    ),
    // GraphQL over HTTP on the served store (W6), through PagebenchServer's route hook.
    .target(
        name: "PagebenchGraphQL",
        dependencies: [
            "PagebenchPage", "PagebenchStore", "PagebenchWire", "PagebenchServer",
            .product(name: "GraphQL", package: "GraphQL"),
            // GraphQLSwift's Map holds objects in OrderedDictionary.
            .product(name: "OrderedCollections", package: "swift-collections"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
        ],
        swiftSettings: strict
    ),
    // Snappy's C interface (Debian: libsnappy-dev), the block compression of Prometheus remote
    // write: a system library, nothing to build (results/live-metrics-build.md).
    .systemLibrary(
        name: "CSnappy",
        pkgConfig: "snappy",
        providers: [.apt(["libsnappy-dev"])]
    ),
    // Live metrics of a run (issue 36): `--metrics-listen` (Prometheus text and OpenMetrics on
    // SwiftNIO, already linked), `--remote-write` (remote write 1.0: protobuf by hand, snappy,
    // the lean client's POST); fed by the harness's PhaseObserver, never the per-page path.
    .target(
        name: "PagebenchLiveMetrics",
        dependencies: [
            "PagebenchMetrics", "PagebenchPage", "PagebenchHarness", "PagebenchHTTPClient", "CSnappy",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ],
        swiftSettings: strict
    ),
    // What `run`, `knee` and `baseline update` share, as a library the CLI only calls (issue 28):
    // a request in, typed outcomes and errors out, one table from errors to exit codes. No
    // ArgumentParser: tests run a session in-process.
    .target(
        name: "PagebenchEngine",
        dependencies: [
            "PagebenchBase", "PagebenchPage", "PagebenchStore", "PagebenchMetrics", "PagebenchProcessStats",
            "PagebenchHarness",
            "PagebenchReport", "PagebenchWire", "PagebenchHTTPClient", "PagebenchScaleOut", "PagebenchTargets",
            "PagebenchLiveMetrics",
        ],
        swiftSettings: strict
    ),
    .target(
        name: "PagebenchCLI",
        dependencies: [
            "PagebenchBase", "PagebenchPage", "PagebenchStore", "PagebenchPager", "PagebenchMetrics",
            "PagebenchProcessStats",
            "PagebenchHarness", "PagebenchReport", "PagebenchWire", "PagebenchHTTPClient", "PagebenchServer",
            "PagebenchScaleOut", "PagebenchTargets", "PagebenchGraphQL", "PagebenchEngine", "PagebenchVerify",
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
        dependencies: ["PagebenchBase", "PagebenchPage", "PagebenchStore", "PagebenchPager", "PagebenchHarness"],
        swiftSettings: strict
    ),
    .target(
        name: "PagebenchCLITestSupport",
        dependencies: [
            "PagebenchCLI", "PagebenchHarness", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        swiftSettings: strict
    ),
    // Live servers, a scripted HTTP peer and `pagebench serve` processes for the HTTP, server,
    // GraphQL and CLI tests (tests only).
    .target(
        name: "PagebenchHTTPTestSupport",
        dependencies: [
            "PagebenchPage", "PagebenchStore", "PagebenchWire", "PagebenchServer",
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        swiftSettings: strict
    ),
    .testTarget(name: "PagebenchBaseTests", dependencies: ["PagebenchBase"], swiftSettings: strict),
    .testTarget(name: "PagebenchPageTests", dependencies: ["PagebenchPage"], swiftSettings: strict),
    .testTarget(
        name: "PagebenchStoreTests",
        dependencies: ["PagebenchPage", "PagebenchStore", "PagebenchTestSupport"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchPagerTests",
        dependencies: ["PagebenchPage", "PagebenchPager", "PagebenchStore", "PagebenchTestSupport"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchMetricsTests",
        dependencies: ["PagebenchMetrics", "PagebenchPage", "PagebenchTestSupport"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchProcessStatsTests",
        dependencies: ["PagebenchProcessStats", "PagebenchMetrics", "PagebenchTestSupport"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchHarnessTests",
        dependencies: ["PagebenchHarness", "PagebenchPage", "PagebenchTestSupport"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchScaleOutTests",
        dependencies: ["PagebenchScaleOut", "PagebenchTestSupport"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchWireTests",
        dependencies: [
            "PagebenchWire", "PagebenchPage", "PagebenchStore", "PagebenchBase", "PagebenchHTTPTestSupport",
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
        ],
        swiftSettings: strict
    ),
    // The client's tests run against a live StoreServer (the server is their fixture).
    .testTarget(
        name: "PagebenchHTTPClientTests",
        dependencies: [
            "PagebenchHTTPClient", "PagebenchWire", "PagebenchServer", "PagebenchPage", "PagebenchStore",
            "PagebenchHTTPTestSupport",
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchServerTests",
        dependencies: [
            "PagebenchServer", "PagebenchWire", "PagebenchPage", "PagebenchStore", "PagebenchHTTPTestSupport",
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchGraphQLTests",
        dependencies: [
            "PagebenchGraphQL", "PagebenchServer", "PagebenchWire", "PagebenchPage", "PagebenchStore", "PagebenchBase",
            "PagebenchHTTPTestSupport",
            .product(name: "GraphQL", package: "GraphQL"),
        ],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchTLSTests",
        dependencies: [
            "PagebenchTLS", "PagebenchTestSupport", "COpenSSL",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOTLS", package: "swift-nio"),
        ],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchTargetsTests",
        dependencies: [
            "PagebenchTargets", "PagebenchWire", "PagebenchHTTPClient", "PagebenchServer", "PagebenchCLI",
            "PagebenchHarness", "PagebenchMetrics", "PagebenchPage", "PagebenchStore",
            "PagebenchTestSupport", "PagebenchCLITestSupport",
        ],
        exclude: ["Servers"],
        resources: [.copy("Fixtures")],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchVerifyTests",
        dependencies: ["PagebenchVerify", "PagebenchTargets", "PagebenchPage", "PagebenchBase"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchReportTests",
        dependencies: ["PagebenchReport", "PagebenchTestSupport"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchLiveMetricsTests",
        dependencies: [
            "PagebenchLiveMetrics", "PagebenchHarness", "PagebenchMetrics", "PagebenchPage", "PagebenchTestSupport",
        ],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchEngineTests",
        dependencies: ["PagebenchEngine", "PagebenchHarness", "PagebenchMetrics", "PagebenchTestSupport"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "PagebenchCLITests",
        dependencies: [
            "PagebenchCLI", "PagebenchScaleOut", "PagebenchTestSupport", "PagebenchCLITestSupport",
            // RunTargetTests: `run --target` against live servers.
            "PagebenchHarness", "PagebenchMetrics", "PagebenchStore", "PagebenchServer", "PagebenchHTTPTestSupport",
        ],
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
                // Not PagebenchHarness: it links jemalloc (via PagebenchProcessStats), and a process
                // with both jemalloc and package-benchmark's malloc interposer frees one
                // allocator's blocks with the other and crashes (SIGSEGV in replacement_free).
                dependencies: [
                    "PagebenchBase", "PagebenchPage", "PagebenchStore", "PagebenchPager",
                    .product(name: "Benchmark", package: "benchmark"),
                ],
                path: "Benchmarks/\(suite)",
                swiftSettings: strict,
                plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
            )
        )
    }
}

// The pager library's DocC catalog (Sources/PagebenchPager/PagebenchPager.docc) builds with
// swift-docc-plugin, resolved only when PAGEBENCH_DOCS is set (like the benchmarks above):
//   PAGEBENCH_DOCS=1 swift package --scratch-path .build-docs generate-documentation --target PagebenchPager
if ProcessInfo.processInfo.environment["PAGEBENCH_DOCS"] != nil {
    dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}

let package = Package(
    name: "pagebench",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pagebench", targets: ["pagebench"]),
        .library(name: "PagebenchPage", targets: ["PagebenchPage"]),
        .library(name: "PagebenchStore", targets: ["PagebenchStore"]),
        .library(name: "PagebenchPager", targets: ["PagebenchPager"]),
        .library(name: "PagebenchHarness", targets: ["PagebenchHarness"]),
    ],
    traits: [
        .trait(
            name: "AsyncHTTPClientSupport",
            description:
                "Adds `--http-client async-http-client` (swift-server/async-http-client, with NIOSSL, BoringSSL and NIOHTTP2)."
        ),
        .default(enabledTraits: []),
    ],
    dependencies: dependencies,
    targets: targets,
    swiftLanguageModes: [.v6]
)
