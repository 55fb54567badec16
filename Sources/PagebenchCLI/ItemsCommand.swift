import ArgumentParser
import PagebenchStore

/// `pagebench items`: every item of a range in scan order, one JSON object per line, with
/// whether it passes the filter — the unpaginated reference a traversal must reproduce.
package struct ItemsCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "items",
        abstract: "Print every item of a range in scan order, one JSON object per line.",
        discussion: """
            Each line has partition, sortKey, sizeBytes, category and matches (whether the item \
            passes --filter; true for every item without one).
            """
    )

    @OptionGroup package var store: StoreOptions
    @OptionGroup(title: "Writes during pagination (S22–S26)") package var writes: WriteOptions
    @OptionGroup package var range: RangeOptions

    @Option(parsing: .unconditional, help: "Stop after this many items.")
    package var maxItems: Int?

    package init() {}

    package func validate() throws {
        try range.requirePartitionNumber()
        try range.validateFilter()
        if let maxItems, maxItems < 0 { throw ValidationError("--max-items must be at least 0, got \(maxItems)") }
    }

    package func run() async throws {
        var output = StandardOutput()
        do {
            try execute(into: &output)
            try output.finish()
        } catch {
            output.flush()
            throw error.report()
        }
    }

    /// Writes the lines to `output`.
    package func execute(into output: inout some TextOutputStream) throws(CommandError) {
        let configuration = try store.configuration(writes: writes)
        let syntheticStore: SyntheticStore
        let listing: ItemListing
        do {
            syntheticStore = try SyntheticStore(configuration: configuration)
            listing = try syntheticStore.listing(
                in: range.range,
                filter: try range.parsedFilter(),
                reverse: range.reverse
            )
        } catch {
            throw CommandError(wrapping: error)
        }
        let maxItems = self.maxItems ?? Int.max  // a local: property reads cost in the loop
        var written = 0
        for listed in listing {
            guard written < maxItems else { break }
            let item = listed.item
            output.write(
                "{\"partition\":\(item.partition),\"sortKey\":\(item.sortKey),\"sizeBytes\":\(item.sizeBytes),\"category\":\(item.storeAttributes.category),\"matches\":\(listed.matches)}\n"
            )
            written += 1
        }
    }
}
