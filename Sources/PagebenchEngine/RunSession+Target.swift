import PagebenchBase
import PagebenchHTTPClient
import PagebenchHarness
import PagebenchStore
import PagebenchWire

extension RunSession {
    /// `--target URL`: connects to a `pagebench serve` store, checks that it is the store
    /// the scenarios describe (drains choose partitions and segments from it), and returns
    /// the source the harness pages through.
    ///
    /// - Throws: exit 64 for a malformed URL or several scenarios with different stores,
    ///   69 when the server cannot be reached, 65 when it serves another store, 128 + the
    ///   signal when `interruption` is requested while `/health` is asked (T5, H6).
    func connectTarget(_ target: String, scenarios: [Scenario]) async throws(CommandError) -> HTTPStoreSource {
        let hashes = Set(scenarios.map(\.store.configurationHash))
        guard hashes.count == 1, let expected = hashes.first else {
            throw .usage(
                "--target pages one served store, but these scenarios describe \(hashes.count) different stores; run them one at a time"
            )
        }
        let connections = max(1, scenarios.flatMap(\.workload.concurrency).max() ?? 1)
        try Self.checkDescriptorLimit(connections: connections)
        let source: HTTPStoreSource
        do {
            source = try HTTPStoreSource(
                target: target,
                configuration: .init(connections: connections, client: request.httpClient)
            )
        } catch {
            throw .usage("--target: \(error)")
        }
        let health: StoreHealth
        do {
            health = try await Self.unlessInterrupted(interruption) { try await source.health() }
        } catch {
            try? await source.shutdown()
            try Self.checkInterrupted(interruption, rows: [])
            throw .targetUnavailable("--target \(target): the store did not answer /health: \(error)")
        }
        guard health.configurationHash == expected else {
            try? await source.shutdown()
            var differences = ""
            if let served = health.canonical, let scenario = scenarios.first?.store.canonicalText {
                let fields = StoreConfiguration.differences(canonical: scenario, served)
                if !fields.isEmpty {
                    differences =
                        "; they differ in "
                        + fields.map { "\($0.field) \($0.first) ≠ \($0.second)" }.joined(separator: ", ")
                        + " (scenario ≠ served)"
                }
            }
            throw .invalidInput(
                "--target \(target) serves store \(health.configurationHash), but the scenario describes store \(expected)\(differences): "
                    + "start `pagebench serve` with the same store options, --config file or --scenario file as `pagebench run`"
            )
        }
        return source
    }
}

extension RunSession {
    /// Descriptors a run keeps besides its connections' sockets: standard streams, output
    /// files, the event loops' epoll, event and timer descriptors, and room to spare.
    static var reservedDescriptors: Int { 64 }

    /// A remote target gets a connection per pager of the widest phase, and every
    /// connection is a socket: more than the process may open would fail to connect (EMFILE)
    /// part way and be counted as failures of the target. The soft limit is raised as far
    /// as the hard limit allows (as Go's runtime does); beyond that, exit 64 before
    /// connecting, naming the limit and the fix.
    static func checkDescriptorLimit(connections: Int) throws(CommandError) {
        let needed = connections + reservedDescriptors
        // As far as the hard limit allows, also when that is not enough: the refusal then
        // says how many pagers the raised limit holds.
        let limits = FileDescriptorLimit.raiseSoftLimit(toAtLeast: min(needed, FileDescriptorLimit.current.hard))
        guard limits.soft < needed else { return }
        throw .usage(
            "\(connections) pagers against a remote target need \(needed) file descriptors (a connection per pager and "
                + "\(reservedDescriptors) for the process), but this process may open \(limits.soft) (ulimit -n; hard limit "
                + "\(limits.hard == Int.max ? "unlimited" : String(limits.hard))); give at most --concurrency "
                + "\(max(0, limits.soft - reservedDescriptors)), raise the hard limit (ulimit -Hn, as root, or LimitNOFILE= "
                + "of a systemd unit; the server needs as many for its side), or split the run with --workers N"
        )
    }
}
