import ArgumentParser
import Foundation
import PagebenchBase
import PagebenchEngine
import PagebenchPage
import PagebenchStore

/// Store options shared by every subcommand (`@OptionGroup var store: StoreOptions`):
/// a JSON configuration file plus flags that override single fields. The write flags are
/// ``WriteOptions``, apart, so that `serve`, which refuses writes, does not list them.
///
/// Precedence: defaults < `--config FILE` < flags. Call ``configuration()`` for the
/// validated result.
package struct StoreOptions: ParsableArguments, Sendable {
    @Option(
        name: .customLong("config"),
        parsing: .unconditional,
        help: ArgumentHelp("A JSON store configuration; missing keys take their defaults.", valueName: "file")
    )
    package var configFile: String?

    @Option(parsing: .unconditional, help: "Number of partitions (default 64).")
    package var partitions: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Items per partition: 10000, uniform:10000 or zipf:MEAN:EXPONENT (default 10000).",
            valueName: "spec"
        )
    )
    package var itemsPerPartition: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Item sizes: fixed:1024, uniform:100-2000 or lognormal:median=512,sigma=1,min=64,max=409600 (the default).",
            valueName: "spec"
        )
    )
    package var itemSize: String?

    @Option(
        parsing: .unconditional,
        help: "Fraction of items (0–1) in category 0, which `--filter match` selects (default 0.1)."
    )
    package var selectivity: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Layout of category-0 items: even, random or runs:LENGTH (default even).", valueName: "spec")
    )
    package var clustering: String?

    @Option(
        parsing: .unconditional,
        help: "Scan budget of one page in bytes, charged before the filter (default 1048576)."
    )
    package var budgetBytes: Int?

    @Option(parsing: .unconditional, help: "S4: exclusive or inclusive (default exclusive).")
    package var budgetBoundary: BudgetBoundary?

    @Option(parsing: .unconditional, help: "S6: continuation or final (default continuation).")
    package var exactEnd: ExactEnd?

    @Option(parsing: .unconditional, help: "S18: strict or lenient (default strict).")
    package var tokenPolicy: TokenPolicy?

    @Option(parsing: .unconditional, help: "Limit of requests without --limit (default 10).")
    package var defaultLimit: Int?

    @Option(parsing: .unconditional, help: "Seed of all generated data (default 42).")
    package var seed: UInt64?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "S20 base latency: none, fixed:2ms, uniform:1ms-5ms or lognormal:median=2ms,sigma=0.5,max=200ms.",
            valueName: "spec"
        )
    )
    package var serviceTime: String?

    @Option(parsing: .unconditional, help: "S20 cost per scanned byte in nanoseconds (default 0).")
    package var serviceNsPerByte: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("S20 comma-separated hot partitions, e.g. 0,3.", valueName: "list")
    )
    package var hotPartitions: String?

    @Option(parsing: .unconditional, help: "S20 base-latency multiplier of hot partitions (default 1).")
    package var hotMultiplier: Double?

    @Option(parsing: .unconditional, help: "S21 fraction of requests throttled (default 0).")
    package var throttleRate: Double?

    @Option(parsing: .unconditional, help: "S21 fraction of requests failing with an injected fault (default 0).")
    package var faultRate: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "S24 how tokens resume: keyset (default, after the last evaluated key) or offset (at the n-th item).",
            valueName: "mode"
        )
    )
    package var continuation: String?

    package init() {}

    package func validate() throws {
        do {
            var scratch = StoreConfiguration.default
            try applyFlags(to: &scratch)
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// The configuration: defaults, then the file, then the flags; validated.
    ///
    /// - Throws: ``CommandError``: missing input (66) when the file cannot be read, invalid
    ///   input (65) when it is not a valid configuration, the store's error (64) when a flag
    ///   is invalid or makes the result invalid.
    package func configuration(writes: WriteOptions? = nil) throws(CommandError) -> StoreConfiguration {
        var configuration = StoreConfiguration.default
        if let configFile {
            let data: Data
            do {
                data = Data(try FileSystem.readBytes(configFile))
            } catch {
                throw .missingInput("cannot read configuration file \(configFile): \(error.reason)")
            }
            do {
                configuration = try StoreConfiguration.load(json: data)
            } catch let error as StoreError {
                throw .invalidInput("\(configFile): \(error.message)")
            } catch {
                throw .invalidInput("\(configFile): \(error)")
            }
        }
        return try applied(to: configuration, writes: writes)
    }

    /// `base` with the flags applied, validated (`serve --scenario`: a scenario's store).
    ///
    /// - Throws: ``CommandError``, the store's error (64) when a flag is invalid or makes the
    ///   result invalid.
    package func applied(
        to base: StoreConfiguration,
        writes: WriteOptions? = nil
    ) throws(CommandError) -> StoreConfiguration {
        var configuration = base
        do {
            try applyFlags(to: &configuration)
            try writes?.applyFlags(to: &configuration)
            try configuration.validate()
        } catch let error as StoreError {
            throw CommandError(error)
        } catch {
            throw CommandError(wrapping: error)
        }
        return configuration
    }

    /// Applies the flags that were given to `configuration` (used by `run` on a scenario's store).
    package func applyFlags(to configuration: inout StoreConfiguration) throws(StoreError) {
        if let partitions { configuration.partitions = partitions }
        if let itemsPerPartition { configuration.itemsPerPartition = try ItemsPerPartition(parsing: itemsPerPartition) }
        if let itemSize { configuration.itemSize = try ItemSizeDistribution(parsing: itemSize) }
        if let selectivity { configuration.selectivity = selectivity }
        if let clustering { configuration.clustering = try Clustering(parsing: clustering) }
        if let budgetBytes { configuration.scanBudgetBytes = budgetBytes }
        if let budgetBoundary { configuration.budgetBoundary = budgetBoundary }
        if let exactEnd { configuration.exactEnd = exactEnd }
        if let tokenPolicy { configuration.tokenPolicy = tokenPolicy }
        if let defaultLimit { configuration.defaultLimit = defaultLimit }
        if let seed { configuration.seed = seed }
        if let serviceTime { configuration.serviceTime.base = try LatencyDistribution(parsing: serviceTime) }
        if let serviceNsPerByte { configuration.serviceTime.nanosecondsPerScannedByte = serviceNsPerByte }
        if let hotPartitions {
            configuration.serviceTime.hotPartitions = try Self.partitionList(hotPartitions, flag: "--hot-partitions")
        }
        if let hotMultiplier { configuration.serviceTime.hotPartitionMultiplier = hotMultiplier }
        if let throttleRate { configuration.throttleRate = throttleRate }
        if let faultRate { configuration.faultRate = faultRate }
        if let continuation {
            configuration.continuation = try ContinuationMode(parsing: continuation, field: "--continuation")
        }
    }

    /// Parses a comma-separated list of partition numbers given to `flag`.
    static func partitionList(_ text: String, flag: String) throws(StoreError) -> [Int] {
        var list: [Int] = []
        let parts: [String]
        do {
            parts = try ListText.elements(of: text)
        } catch {
            throw .invalidConfiguration("\(flag): " + error.problem(example: "0,3"))
        }
        for part in parts {
            guard let value = Int(part) else {
                throw .invalidConfiguration("\(flag): '\(part)' is not a partition number; write e.g. 0,3")
            }
            list.append(value)
        }
        return list
    }
}

extension BudgetBoundary: ExpressibleByArgument {}
extension ExactEnd: ExpressibleByArgument {}
extension TokenPolicy: ExpressibleByArgument {}
