import ArgumentParser
import Foundation
import PagebenchGraphQL
import PagebenchHTTP
import PagebenchProcessStats
import PagebenchStore

/// `pagebench serve`: the synthetic store as an HTTP service (PagebenchHTTP's ``StoreServer``).
public struct ServeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
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
            listItems (AppSync nextToken) and itemsConnection (Relay), with introspection.
            """
    )

    @OptionGroup public var store: StoreOptions

    @Option(parsing: .unconditional, help: "Address to bind; loopback by default. Use 0.0.0.0 only on a trusted network.")
    public var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: "TCP port; 0 picks a free port (read it from the \"listening on\" line).")
    public var port = 8080

    @Flag(help: "Include each item's payload bytes (base64) unless a request says payload=false.")
    public var payload = false

    @Option(parsing: .unconditional, help: "Retry-After seconds of a 429 (throttled) response.")
    public var retryAfter = 1

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Close a connection that has no request in progress and sends no complete request head for this many seconds (idle keep-alive connections, slowloris clients); 0: never.",
            valueName: "seconds"))
    public var idleTimeout = 60.0

    @Option(parsing: .unconditional, help: "The DynamoDB table name of the DynamoDB JSON endpoint (POST /, W1).")
    public var table = "pagebench"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How POST /graphql runs a valid document: 'compiled' runs plain listItems/itemsConnection queries as one store request written straight to JSON, and anything else with GraphQLSwift's executor; 'generic' runs everything with GraphQLSwift's executor (same answers, slower: to compare the two).",
            valueName: "compiled|generic"))
    public var graphqlExecution: GraphQLRoutes.Execution = .compiled

    @Option(parsing: .unconditional, help: ArgumentHelp("Serve HTTPS with this PEM certificate chain (needs --tls-key).", valueName: "file"))
    public var tlsCert: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    public var tlsKey: String?

    public init() {}

    public func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, got \(port)") }
        guard retryAfter >= 0 else { throw ValidationError("--retry-after must be at least 0, got \(retryAfter)") }
        guard idleTimeout >= 0, idleTimeout <= 86_400, idleTimeout.isFinite else {
            throw ValidationError("--idle-timeout must be between 0 and 86400 seconds, got \(idleTimeout)")
        }
        guard !host.isEmpty else { throw ValidationError("--host must not be empty; use 127.0.0.1 for loopback") }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        // DynamoDB's table-name rule: 3–255 of letters, digits, _ - .
        guard (3...255).contains(table.utf8.count),
            table.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0)) })
        else {
            throw ValidationError("--table must be 3 to 255 letters, digits, '_', '-' or '.', got '\(table)'")
        }
    }

    public func run() async throws {
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
                try CommandFailure.checkReadable(tlsCert, flag: "--tls-cert")
                try CommandFailure.checkReadable(tlsKey, flag: "--tls-key")
            } catch {
                throw error.report()
            }
            do {
                try tls?.check()
            } catch {
                throw CommandFailure(
                    ExitCodes.dataError,
                    "--tls-cert \(tlsCert) / --tls-key \(tlsKey): not a PEM certificate chain and its private key (\(error))"
                ).report()
            }
        }
        let scheme = tls == nil ? "http" : "https"
        // Memory freed after a burst of connections returns to the system within seconds
        // (measured: 34 MB → 128 MB after 4000 connections, back to 44 MB 35 s later; it
        // stayed at 111 MB without it).
        JemallocStats.enableBackgroundPurging()
        do {
            try await server.run(tls: tls) { port in
                var output = StandardOutput()
                output.write(
                    "listening on \(scheme)://\(host):\(port) (store \(server.store.configurationHash), \(server.store.totalItems) items)\n"
                )
                do {
                    try output.finish()
                } catch {
                    // Scripts read the port from this line: a server nobody can find is a failure.
                    Glibc.exit(error.report().rawValue)
                }
            }
        } catch {
            throw CommandFailure(ExitCodes.unavailable, "cannot serve on \(host):\(port): \(error)").report()
        }
    }

    /// The GraphQL front end (W6).
    func graphQLRoutes() throws(CommandFailure) -> GraphQLRoutes {
        do {
            return try GraphQLRoutes(execution: graphqlExecution)
        } catch {
            throw CommandFailure(ExitCodes.software, "the GraphQL schema could not be built: \(error)")
        }
    }

    /// The server these options describe (not started).
    public func makeServer() throws(CommandFailure) -> StoreServer {
        let configuration = try store.configuration()
        if configuration.writes != nil {
            // The protocol front ends (W1–W6) take sort keys, conditions and start keys in
            // the keys of a store without writes, and the harness counts S25 only on the
            // in-process store: writes stay in-process.
            throw CommandFailure(
                ExitCodes.usage,
                "serve does not take writes (S22): writes run on the in-process store of `pagebench run` only; "
                    + "drop the write flags or the config's \"writes\"")
        }
        let syntheticStore: SyntheticStore
        do {
            syntheticStore = try SyntheticStore(configuration: configuration)
        } catch {
            throw CommandFailure(wrapping: error)
        }
        if payload, configuration.itemSize.maximumBytes > StoreServer.maximumPayloadBytes {
            throw CommandFailure(
                ExitCodes.usage,
                "--payload serves items of at most \(StoreServer.maximumPayloadBytes) bytes (64 MiB), but --item-size allows "
                    + "\(configuration.itemSize.maximumBytes); lower its maximum or serve without --payload")
        }
        return StoreServer(
            store: syntheticStore,
            configuration: .init(
                host: host, port: port, includePayloadByDefault: payload, retryAfterSeconds: retryAfter,
                idleTimeout: idleTimeout == 0 ? nil : .milliseconds(Int64(idleTimeout * 1000))),
            extraRoutes: [DynamoDBRoutes(tableName: table), try graphQLRoutes()])
    }
}

extension GraphQLRoutes.Execution: ExpressibleByArgument {}
