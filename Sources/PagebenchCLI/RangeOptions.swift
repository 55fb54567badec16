import ArgumentParser
import PagebenchEngine
import PagebenchPage
import PagebenchStore

/// Which range a subcommand walks: `--partition P`, or `--segment I --total-segments N`,
/// or (neither) the whole scan; plus `--filter SPEC` and `--reverse`.
package struct RangeOptions: ParsableArguments {
    @Option(
        name: .customLong("partition"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Query this partition only (S14): its number (the store), or a value of a --target-file target (pages).",
            valueName: "partition"
        )
    )
    package var partitionText: String?

    /// `--partition` as the store's partition number (validated in `validate()` unless a
    /// command takes partition values, as `pages --target-file`).
    package var partition: Int? { partitionText.flatMap { Int($0) } }

    @Option(parsing: .unconditional, help: "Scan parallel segment I of --total-segments N (S15).")
    package var segment: Int?

    @Option(parsing: .unconditional, help: "Number of parallel-scan segments (with --segment).")
    package var totalSegments: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Filter: match (category 0), category=N, category!=N (N from 0 to 15), size>=BYTES or size<=BYTES; pages --target-file of a target that declares filters: one of its values.",
            valueName: "spec"
        )
    )
    package var filter: String?

    @Flag(help: "Walk in descending key order (S13).")
    package var reverse = false

    package init() {}

    package func validate() throws {
        if partitionText != nil, segment != nil || totalSegments != nil {
            throw ValidationError(
                "--partition cannot be combined with --segment/--total-segments; choose a query or a segment"
            )
        }
        if (segment == nil) != (totalSegments == nil) {
            throw ValidationError(
                "--segment and --total-segments go together (S15): e.g. --segment 0 --total-segments 4"
            )
        }
        if let segment, let totalSegments, totalSegments < 1 || segment < 0 || segment >= totalSegments {
            throw ValidationError(
                "--segment must be between 0 and --total-segments − 1, got segment \(segment) of \(totalSegments)"
            )
        }
    }

    /// Checks `--filter`'s spelling (its commands call it from their `validate()`: `pages
    /// --target-file` takes a value of the target's `filters` instead, checked when it is loaded).
    package func validateFilter() throws {
        if let filter {
            do {
                _ = try Filter(parsing: filter)
            } catch {
                throw ValidationError(error.message)
            }
        }
    }

    /// Checks that `--partition` is a partition number, as the store (and a target's index in
    /// `http-bench`) needs: a usage error (64) otherwise.
    package func requirePartitionNumber() throws {
        if let partitionText, Int(partitionText) == nil {
            throw ValidationError(
                "--partition '\(partitionText)' is not a partition number; give a whole number (a partition value is for pages --target-file)"
            )
        }
    }

    /// The range named by the flags.
    package var range: ScanRange {
        if let partition { return .partition(partition) }
        if let segment, let totalSegments { return .segment(index: segment, total: totalSegments) }
        return .scan
    }

    /// The parsed filter (validated in `validateFilter()`).
    package func parsedFilter() throws(CommandError) -> Filter? {
        guard let filter else { return nil }
        do {
            return try Filter(parsing: filter)
        } catch {
            throw .usage(error.message)
        }
    }
}
