import ArgumentParser
import PagebenchStore

/// The write flags (S22–S24) of the subcommands that page the in-process store under writes
/// (`run`, `items`, `pages`): apart from ``StoreOptions`` so that `serve`, which refuses a
/// store with writes, neither takes nor lists them. Applied after the store flags
/// (``StoreOptions/configuration(writes:)``).
package struct WriteOptions: ParsableArguments, Sendable {
    @Option(
        parsing: .unconditional,
        help:
            "S22 inserts per store request (or per second with --write-rate-unit second); any write flag turns writes on."
    )
    package var insertRate: Double?

    @Option(parsing: .unconditional, help: "S22 deletes per store request (or per second).")
    package var deleteRate: Double?

    @Option(parsing: .unconditional, help: "S22 updates per store request (or per second): new size and category.")
    package var updateRate: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "S22 what write rates count per: request (deterministic, the default) or second.",
            valueName: "unit"
        )
    )
    package var writeRateUnit: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "S22 where in a partition writes land: uniform (default), head or tail.",
            valueName: "position"
        )
    )
    package var writePosition: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "S22 comma-separated partitions that receive --write-hot-fraction of the writes, e.g. 0,3.",
            valueName: "list"
        )
    )
    package var writeHotPartitions: String?

    @Option(
        parsing: .unconditional,
        help: "S22 fraction of writes (0–1) that go to --write-hot-partitions (default 1)."
    )
    package var writeHotFraction: Double?

    package init() {}

    package func validate() throws {
        do {
            var scratch = StoreConfiguration.default
            try applyFlags(to: &scratch)
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// Applies the write flags that were given to `configuration`'s `writes`; none given, none changed.
    package func applyFlags(to configuration: inout StoreConfiguration) throws(StoreError) {
        let writeFlags: [Any?] = [
            insertRate, deleteRate, updateRate, writeRateUnit, writePosition, writeHotPartitions, writeHotFraction,
        ]
        if writeFlags.contains(where: { $0 != nil }) {
            var writes = configuration.writes ?? WritesConfiguration()
            if let insertRate { writes.insertRate = insertRate }
            if let deleteRate { writes.deleteRate = deleteRate }
            if let updateRate { writes.updateRate = updateRate }
            if let writeRateUnit { writes.per = try WriteRateUnit(parsing: writeRateUnit, field: "--write-rate-unit") }
            if let writePosition {
                writes.position = try WritePosition(parsing: writePosition, field: "--write-position")
            }
            if let writeHotPartitions {
                writes.hotPartitions = try StoreOptions.partitionList(
                    writeHotPartitions,
                    flag: "--write-hot-partitions"
                )
            }
            if let writeHotFraction { writes.hotFraction = writeHotFraction }
            configuration.writes = writes
        }
    }
}
