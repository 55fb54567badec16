import ArgumentParser
import PagebenchEngine
import PagebenchMetrics
import PagebenchPage
import PagebenchProcessStats
import PagebenchStore

/// `pagebench pages`: follows tokens from the first call (or from `--token`) and prints one
/// JSON object per page, as the store serves them (service time and injected failures
/// included).
public struct PagesCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "pages",
        abstract: "Follow tokens through a range and print one JSON object per page.",
        discussion: """
            Each line has page, returned, scanned, scannedBytes, keys (the returned items' \
            [partition, sortKey] pairs), nextToken (null at the end) and lastEvaluatedKey (the \
            [partition, sortKey] the token resumes after: DynamoDB's LastEvaluatedKey, W3). Exit codes: 0 success, \
            64 invalid arguments, 65 invalid or mismatched token, 69 injected throttling or fault.
            """
    )

    @OptionGroup public var store: StoreOptions
    @OptionGroup(title: "Writes during pagination (S22–S26)") public var writes: WriteOptions
    @OptionGroup public var range: RangeOptions

    @Option(parsing: .unconditional, help: "Items to evaluate per page (S1, S2); the store's default limit when absent.")
    public var limit: Int?

    @Option(parsing: .unconditional, help: "With --partition: walk sort keys from this one (inclusive; DynamoDB's sk >= / BETWEEN, W2).")
    public var sortKeyMin: UInt64?

    @Option(parsing: .unconditional, help: "With --partition: walk sort keys up to this one (inclusive).")
    public var sortKeyMax: UInt64?

    @Option(parsing: .unconditional, help: "Continue from this token instead of the first page.")
    public var token: String?

    @Option(parsing: .unconditional, help: "Stop after this many pages (the last line's nextToken continues).")
    public var maxPages: Int?

    @Flag(help: "Print a summary with the configuration hash, pages, items and resident memory (VmRSS, VmHWM) to stderr.")
    public var memory = false

    public init() {}

    public func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, got \(limit) (S1)") }
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1, got \(maxPages)") }
        if sortKeyMin != nil || sortKeyMax != nil, range.partition == nil {
            throw ValidationError("--sort-key-min/--sort-key-max narrow a query: give --partition too")
        }
        if let sortKeyMax, sortKeyMax == .max {
            throw ValidationError("--sort-key-max must be below \(UInt64.max)")
        }
    }

    /// The sort-key window of --sort-key-min/--sort-key-max (an empty one when min > max).
    var sortKeys: Range<UInt64>? {
        guard sortKeyMin != nil || sortKeyMax != nil else { return nil }
        let lower = sortKeyMin ?? 0
        let upper = sortKeyMax.map { $0 + 1 } ?? .max
        return lower <= upper ? lower..<upper : lower..<lower
    }

    public func run() async throws {
        var output = StandardOutput()
        let summary: Summary
        do {
            summary = try await execute(into: &output)
            try output.finish()
        } catch {
            output.flush()
            throw error.report()
        }
        if memory {
            let process = try? ProcessMemory.read()
            let rss = process.map { String($0.residentBytes) } ?? "null"
            let peak = process.map { String($0.peakResidentBytes) } ?? "null"
            var standardError = StandardError()
            print(
                "{\"configurationHash\":\"\(summary.configurationHash)\",\"pages\":\(summary.pages),\"returned\":\(summary.returned),\"scanned\":\(summary.scanned),\"vmRSSBytes\":\(rss),\"vmHWMBytes\":\(peak)}",
                to: &standardError)
        }
    }

    /// Totals of one run.
    public struct Summary: Sendable, Equatable {
        public var pages = 0
        public var returned = 0
        public var scanned = 0
        /// ``StoreConfiguration/configurationHash`` of the store paged.
        public var configurationHash = ""
    }

    /// Pages through the range and writes one line per page to `output`.
    @discardableResult
    public func execute(into output: inout some TextOutputStream) async throws(CommandError) -> Summary {
        let configuration = try store.configuration(writes: writes)
        let syntheticStore: SyntheticStore
        do {
            syntheticStore = try SyntheticStore(configuration: configuration)
        } catch {
            throw CommandError(wrapping: error)
        }
        var request = PageRequest(
            range: range.range, reverse: range.reverse, limit: limit, filter: try range.parsedFilter(), token: token,
            sortKeys: sortKeys)
        let maxPages = self.maxPages ?? Int.max  // a local: property reads cost in the loop
        var summary = Summary()
        summary.configurationHash = configuration.configurationHash
        while summary.pages < maxPages {
            let page: Page
            do {
                page = try await syntheticStore.page(request)
            } catch {
                throw CommandError(wrapping: error)
            }
            summary.pages += 1
            summary.returned += page.returnedCount
            summary.scanned += page.scannedCount
            var keys = ""
            for (index, item) in page.items.enumerated() {
                keys += index == 0 ? "[\(item.partition),\(item.sortKey)]" : ",[\(item.partition),\(item.sortKey)]"
            }
            let next = page.nextToken.map { "\"\($0)\"" } ?? "null"
            // An offset token (S24, under writes) names a position, not a key.
            let last = page.nextToken.flatMap { try? syntheticStore.decodeToken($0) }
                .map { $0.offset.map { "{\"offset\":\($0)}" } ?? "[\($0.lastEvaluatedPartition),\($0.lastEvaluatedSortKey)]" }
                ?? "null"
            output.write(
                "{\"page\":\(summary.pages),\"returned\":\(page.returnedCount),\"scanned\":\(page.scannedCount),\"scannedBytes\":\(page.scannedBytes),\"keys\":[\(keys)],\"nextToken\":\(next),\"lastEvaluatedKey\":\(last)}\n"
            )
            guard let nextToken = page.nextToken else { break }
            request.token = nextToken
        }
        return summary
    }
}
