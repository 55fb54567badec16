import ArgumentParser
import Foundation
import PagebenchBase
import PagebenchEngine
import PagebenchGraphQL
import PagebenchHarness
import PagebenchProcessStats
import PagebenchServer
import PagebenchStore

/// `pagebench serve`: the synthetic store as an HTTP service (PagebenchServer's ``StoreServer``).
package struct ServeCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the store over HTTP/1.1 until SIGINT or SIGTERM.",
        discussion: """
            Endpoints: GET /partitions/{p}/items, GET /scan, GET /scan/segments/{i}/{n} with query \
            parameters limit, filter, reverse, nextToken, payload; GET /health. Pages are JSON \
            {items, nextToken, returned, scanned, scannedBytes}; errors are JSON {code, message, \
            retryable} with 400 (invalid limit, token, segment or parameter), 404 (unknown partition \
            or route), 409 (token mismatch), 429 (throttled, with Retry-After) or 503 (injected fault). \
            Prints "listening on http://HOST:PORT" once it accepts connections. Replicas started with \
            the same store options continue each other's tokens. The same port speaks DynamoDB's JSON \
            API (POST / with X-Amz-Target: DynamoDB_20120810.Query, Scan, GetItem, DescribeTable, \
            ListTables; one table, --table, key pk/sk): point boto3 or the AWS CLI at it with \
            --endpoint-url. POST /graphql (and GET /graphql?query=…) is GraphQL over HTTP: \
            listItems (AppSync nextToken) and itemsConnection (Relay), with introspection. Every \
            request is bounded before it runs (W7: the --max-* and --graphql-max-* options); one \
            over a bound gets its protocol's error naming the bound and its option. --health-port PORT \
            answers GET /health on a second port, from a listener and a thread of its own: \
            promptly however busy the store's port is (point probes at it).
            """
    )

    @OptionGroup package var store: StoreOptions

    @Option(
        name: .customLong("scenario"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Serve the store section of this scenario file (the file `pagebench run FILE --target URL` is given); its other keys are read and checked, not used. Store flags override it; excludes --config.",
            valueName: "file"
        )
    )
    package var scenarioFile: String?

    /// The most descriptors `serve` raises its soft limit to (Linux's default `nr_open`).
    static let mostDescriptors = 1 << 20

    @Option(
        parsing: .unconditional,
        help: "Address to bind; loopback by default. Use 0.0.0.0 only on a trusted network."
    )
    package var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: "TCP port; 0 picks a free port (read it from the \"listening on\" line).")
    package var port = 8080

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Also answer GET /health (plain HTTP) on this port, from a listener and a thread of its own, so that probes are answered promptly however busy the store's port is (a Kubernetes probe port); 0 picks a free port (read it from the \"listening on\" line).",
            valueName: "port"
        )
    )
    package var healthPort: Int?

    @Flag(help: "Include each item's payload bytes (base64) unless a request says payload=false.")
    package var payload = false

    @Option(parsing: .unconditional, help: "Retry-After seconds of a 429 (throttled) response.")
    package var retryAfter = 1

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Close a connection that has no request in progress and sends no complete request head for this long (idle keep-alive connections, slowloris clients): 60s, 500ms, a bare number is seconds; 0: never.",
            valueName: "duration"
        ),
        transform: DurationOption.seconds("--idle-timeout")
    )
    package var idleTimeout = 60.0

    @Option(parsing: .unconditional, help: "The DynamoDB table name of the DynamoDB JSON endpoint (POST /, W1).")
    package var table = "pagebench"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How POST /graphql runs a valid document: 'compiled' runs plain listItems/itemsConnection queries as one store request written straight to JSON, and anything else with GraphQLSwift's executor; 'generic' runs everything with GraphQLSwift's executor (same answers, slower: to compare the two).",
            valueName: "compiled|generic"
        )
    )
    package var graphqlExecution: GraphQLRoutes.Execution = .compiled

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Refuse request bodies (POST /, POST /graphql) larger than this (W7).", valueName: "bytes")
    )
    package var maxBodyBytes = RequestBounds.defaultMaximumBodyBytes

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Answer with an error naming this bound instead of a response body larger than this (W7).",
            valueName: "bytes"
        )
    )
    package var maxResponseBytes = RequestBounds.defaultMaximumResponseBytes

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The CPU time one DynamoDB or GraphQL request may spend reading, parsing, validating and costing itself, checked as it goes (W7): 0.5s, 200ms, a bare number is seconds; 0: unbounded.",
            valueName: "duration"
        ),
        transform: DurationOption.seconds("--max-request-cpu")
    )
    package var maxRequestCpu = 0.5

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "GraphQL: the deepest nesting of brackets, of fields through fragments, and of variables (W7).",
            valueName: "levels"
        )
    )
    package var graphqlMaxDepth = GraphQLBounds().maximumDepth

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("GraphQL: the most tokens a document may have, comments not counted.", valueName: "count")
    )
    package var graphqlMaxTokens = GraphQLBounds().maximumTokens

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("GraphQL: the most operations and fragments a document may define.", valueName: "count")
    )
    package var graphqlMaxDefinitions = GraphQLBounds().maximumDefinitions

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("GraphQL: the most directives a document may use.", valueName: "count")
    )
    package var graphqlMaxDirectives = GraphQLBounds().maximumDirectives

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("GraphQL: the most aliased fields a document may have.", valueName: "count")
    )
    package var graphqlMaxAliases = GraphQLBounds().maximumAliases

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "GraphQL: the most fields, fragment spreads and inline fragments a document may select, each fragment counted at every spread.",
            valueName: "count"
        )
    )
    package var graphqlMaxFields = GraphQLBounds().maximumSelections

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "GraphQL: the most values an operation may resolve, computed before it runs: each field 1, each list its requested limit (or longest possible length) times what an element selects.",
            valueName: "cost"
        )
    )
    package var graphqlMaxCost = GraphQLBounds().maximumCost

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (needs --tls-key).", valueName: "file")
    )
    package var tlsCert: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    package var tlsKey: String?

    package init() {}

    package func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be between 0 and 65535, got \(port)")
        }
        if let healthPort {
            guard (0...65535).contains(healthPort) else {
                throw ValidationError("--health-port must be between 0 and 65535, got \(healthPort)")
            }
            guard healthPort == 0 || healthPort != port else {
                throw ValidationError(
                    "--health-port must differ from --port (\(port)): /health is served on --port already"
                )
            }
        }
        guard retryAfter >= 0 else { throw ValidationError("--retry-after must be at least 0, got \(retryAfter)") }
        guard idleTimeout >= 0, idleTimeout <= 86_400, idleTimeout.isFinite else {
            throw ValidationError("--idle-timeout must be between 0 and 86400 seconds, got \(idleTimeout)")
        }
        guard !host.isEmpty else { throw ValidationError("--host must not be empty; use 127.0.0.1 for loopback") }
        try validateBounds()
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        // DynamoDB's table-name rule: 3–255 of letters, digits, _ - .
        guard (3...255).contains(table.utf8.count),
            table.unicodeScalars.allSatisfy({
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0))
            })
        else {
            throw ValidationError("--table must be 3 to 255 letters, digits, '_', '-' or '.', got '\(table)'")
        }
    }

    /// The request bounds' flags (W7): positive, and within what the server can honour.
    func validateBounds() throws {
        func check(_ value: Int, _ flag: String, _ range: ClosedRange<Int>, _ why: String = "") throws {
            guard range.contains(value) else {
                throw ValidationError(
                    "\(flag) must be between \(range.lowerBound) and \(range.upperBound)\(why), got \(value)"
                )
            }
        }
        try check(maxBodyBytes, "--max-body-bytes", 1...(1 << 30))
        try check(maxResponseBytes, "--max-response-bytes", 1...(1 << 32))
        guard maxRequestCpu.isFinite, maxRequestCpu >= 0, maxRequestCpu <= 3600 else {
            throw ValidationError("--max-request-cpu must be between 0 and 3600 seconds, got \(maxRequestCpu)")
        }
        try check(
            graphqlMaxDepth,
            "--graphql-max-depth",
            1...Self.maximumGraphQLDepth,
            " (GraphQLSwift's parser recurses once per level: deeper documents could overflow its stack)"
        )
        try check(graphqlMaxTokens, "--graphql-max-tokens", 1...10_000_000)
        try check(graphqlMaxDefinitions, "--graphql-max-definitions", 1...1_000_000)
        try check(graphqlMaxDirectives, "--graphql-max-directives", 0...1_000_000)
        try check(graphqlMaxAliases, "--graphql-max-aliases", 0...1_000_000)
        try check(graphqlMaxFields, "--graphql-max-fields", 1...10_000_000)
        try check(graphqlMaxCost, "--graphql-max-cost", 1...Int(Int32.max))
    }

    /// The deepest nesting `--graphql-max-depth` accepts.
    static let maximumGraphQLDepth = 256

    /// The bounds of every request (W7).
    var requestBounds: RequestBounds {
        RequestBounds(
            maximumBodyBytes: maxBodyBytes,
            maximumResponseBytes: maxResponseBytes,
            maximumCPUTime: maxRequestCpu == 0 ? nil : .nanoseconds(Int64(maxRequestCpu * 1e9))
        )
    }

    /// The GraphQL request bounds (W7).
    var graphQLBounds: GraphQLBounds {
        GraphQLBounds(
            maximumDepth: graphqlMaxDepth,
            maximumTokens: graphqlMaxTokens,
            maximumDefinitions: graphqlMaxDefinitions,
            maximumDirectives: graphqlMaxDirectives,
            maximumAliases: graphqlMaxAliases,
            maximumSelections: graphqlMaxFields,
            maximumCost: graphqlMaxCost
        )
    }

    package func run() async throws {
        // Every client connection is a socket: hold as many as the hard limit allows (a
        // crowd of 10,000 pagers keeps 10,000 open), as Go's runtime does for every program.
        FileDescriptorLimit.raiseSoftLimit(toAtLeast: min(FileDescriptorLimit.current.hard, Self.mostDescriptors))
        let server: StoreServer
        do {
            server = try makeServer()
        } catch {
            throw error.report()
        }
        let host = self.host
        var tls: TLSFiles?
        if let tlsCert, let tlsKey {
            tls = TLSFiles(certificateFile: tlsCert, keyFile: tlsKey)
            do {
                try Self.checkReadable(tlsCert, flag: "--tls-cert")
                try Self.checkReadable(tlsKey, flag: "--tls-key")
            } catch {
                throw error.report()
            }
            do {
                try tls?.check()
            } catch {
                throw CommandError.invalidInput(
                    "--tls-cert \(tlsCert) / --tls-key \(tlsKey): not a PEM certificate chain and its private key (\(error))"
                ).report()
            }
        }
        let scheme = tls == nil ? "http" : "https"
        // Memory freed after a burst of connections returns to the system within seconds,
        // not at the next burst (results/serve-memory.md).
        JemallocStats.enableBackgroundPurging()
        do {
            try await server.run(tls: tls) { port, healthPort in
                var output = StandardOutput()
                let health = healthPort.map { ", /health also on http://\(host):\($0)/health" } ?? ""
                output.write(
                    "listening on \(scheme)://\(host):\(port) (store \(server.store.configurationHash), \(server.store.totalItems) items)\(health)\n"
                )
                do {
                    try output.finish()
                } catch {
                    // Scripts read the port from this line: a server nobody can find is a failure.
                    Glibc.exit(error.report().rawValue)
                }
            }
        } catch let error as HealthListener.BindError {
            throw CommandError.unavailable(error.description).report()
        } catch {
            throw CommandError.unavailable("cannot serve on \(host):\(port): \(error)").report()
        }
    }

    /// Checks that the file a flag names can be opened for reading, so that the reason a
    /// library would report in its own words (a TLS library's "failed to load") is said
    /// plainly first: `--tls-cert /x: permission denied: …`, `… is a directory, not a file`.
    static func checkReadable(_ path: String, flag: String) throws(CommandError) {
        do {
            _ = try FileSystem.InputFile(path)
        } catch {
            throw .missingInput(
                "\(flag) \(path): \(error.kind == .missing ? "no such file; check the path" : error.reason)"
            )
        }
    }

    /// The GraphQL front end (W6).
    func graphQLRoutes() throws(CommandError) -> GraphQLRoutes {
        do {
            return try GraphQLRoutes(execution: graphqlExecution, bounds: graphQLBounds)
        } catch {
            throw .internalFailure("the GraphQL schema could not be built: \(error)")
        }
    }

    /// The store: `--scenario`'s store section (or `--config`, or the defaults), then the
    /// store flags; validated.
    ///
    /// - Throws: 64 for --scenario with --config (or a flag that makes the store invalid,
    ///   as with --config), 65 for an invalid scenario or configuration file, 66 for a missing one.
    func storeConfiguration() throws(CommandError) -> StoreConfiguration {
        guard let scenarioFile else { return try store.configuration() }
        guard store.configFile == nil else {
            throw .usage("--scenario and --config both give the store; give one")
        }
        let scenario: Scenario
        do {
            scenario = try Scenario.load(path: scenarioFile)
        } catch {
            throw CommandError(error)
        }
        return try store.applied(to: scenario.store)
    }

    /// The server these options describe (not started).
    package func makeServer() throws(CommandError) -> StoreServer {
        let configuration = try storeConfiguration()
        if configuration.writes != nil {
            // The protocol front ends (W1–W6) take sort keys, conditions and start keys in
            // the keys of a store without writes, and the harness counts S25 only on the
            // in-process store: writes stay in-process.
            throw .usage(
                "serve does not take writes (S22): writes run on the in-process store of `pagebench run` only; "
                    + "drop \"writes\" from the --config or --scenario file"
            )
        }
        let syntheticStore: SyntheticStore
        do {
            syntheticStore = try SyntheticStore(configuration: configuration)
        } catch {
            throw CommandError(wrapping: error)
        }
        if payload, configuration.itemSize.maximumBytes > StoreServer.maximumPayloadBytes {
            throw .usage(
                "--payload serves items of at most \(StoreServer.maximumPayloadBytes) bytes (64 MiB), but --item-size allows "
                    + "\(configuration.itemSize.maximumBytes); lower its maximum or serve without --payload"
            )
        }
        return StoreServer(
            store: syntheticStore,
            configuration: .init(
                host: host,
                port: port,
                includePayloadByDefault: payload,
                retryAfterSeconds: retryAfter,
                idleTimeout: idleTimeout == 0 ? nil : .milliseconds(Int64(idleTimeout * 1000)),
                bounds: requestBounds,
                healthPort: healthPort
            ),
            extraRoutes: [DynamoDBRoutes(tableName: table), try graphQLRoutes()]
        )
    }
}

extension GraphQLRoutes.Execution: ExpressibleByArgument {}
