import ArgumentParser
import Foundation
import PagebenchBase
import PagebenchEngine
import PagebenchMetrics
import PagebenchPage
import PagebenchProcessStats
import PagebenchStore
import PagebenchTargets
import PagebenchVerify
import PagebenchWire

/// `pagebench pages`: follows tokens from the first call (or from `--token`) and prints one
/// JSON object per page, as the store serves them (service time and injected failures
/// included).
package struct PagesCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "pages",
        abstract: "Follow tokens through a range and print one JSON object per page.",
        discussion: """
            Each line has page, returned, scanned, scannedBytes, keys (the returned items' \
            [partition, sortKey] pairs), nextToken (null at the end) and lastEvaluatedKey (the \
            [partition, sortKey] the token resumes after: DynamoDB's LastEvaluatedKey, W3). Exit codes: 0 success, \
            64 invalid arguments, 65 invalid or mismatched token, 69 injected throttling or fault.

            With --target-file, pages a real API instead (--partition VALUE: a partition value, listed in \
            the target or not; the first listed one by default): each line has page, request (method and \
            URL, masked; --limit defaults to 10), body (the request body, when there is one), status, returned, scanned, keys (the \
            items' values at the target's itemKey, null without one), nextToken, bytes (the answer's body) \
            and seconds (the request's time); an answer that is not a page is printed with its error and \
            exits 69. The store flags do not apply.
            """
    )

    @OptionGroup package var store: StoreOptions
    @OptionGroup(title: "Writes during pagination (S22–S26)") package var writes: WriteOptions
    @OptionGroup package var range: RangeOptions

    @Option(
        parsing: .unconditional,
        help: "Items to evaluate per page (S1, S2); the store's default limit when absent."
    )
    package var limit: Int?

    @Option(
        parsing: .unconditional,
        help: "With --partition: walk sort keys from this one (inclusive; DynamoDB's sk >= / BETWEEN, W2)."
    )
    package var sortKeyMin: UInt64?

    @Option(parsing: .unconditional, help: "With --partition: walk sort keys up to this one (inclusive).")
    package var sortKeyMax: UInt64?

    @Option(parsing: .unconditional, help: "Continue from this token instead of the first page.")
    package var token: String?

    @Option(parsing: .unconditional, help: "Stop after this many pages (the last line's nextToken continues).")
    package var maxPages: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Page the real API this target file describes instead of the store (docs/file-formats.md).",
            valueName: "file"
        )
    )
    package var targetFile: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("--target-file over HTTPS: trust the certificates in this PEM file.", valueName: "file")
    )
    package var caFile: String?

    @Flag(help: "--target-file over HTTPS: accept any certificate and host name (self-signed test servers only).")
    package var insecure = false

    @Flag(
        help: "Print a summary with the configuration hash, pages, items and resident memory (VmRSS, VmHWM) to stderr."
    )
    package var memory = false

    package init() {}

    package func validate() throws {
        if targetFile == nil {
            try range.requirePartitionNumber()
            try range.validateFilter()
            if caFile != nil || insecure {
                throw ValidationError("--ca-file and --insecure apply to --target-file targets")
            }
        } else if sortKeyMin != nil || sortKeyMax != nil {
            throw ValidationError(
                "--sort-key-min/--sort-key-max narrow the store's query; a target's request is its template"
            )
        }
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

    package func run() async throws {
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
                to: &standardError
            )
        }
    }

    /// Totals of one run.
    package struct Summary: Sendable, Equatable {
        package var pages = 0
        package var returned = 0
        package var scanned = 0
        /// ``StoreConfiguration/configurationHash`` of the store paged.
        package var configurationHash = ""
    }

    /// Pages through the range and writes one line per page to `output`.
    @discardableResult
    package func execute(into output: inout some TextOutputStream) async throws(CommandError) -> Summary {
        if let targetFile { return try await executeTarget(targetFile, into: &output) }
        let configuration = try store.configuration(writes: writes)
        let syntheticStore: SyntheticStore
        do {
            syntheticStore = try SyntheticStore(configuration: configuration)
        } catch {
            throw CommandError(wrapping: error)
        }
        var request = PageRequest(
            range: range.range,
            reverse: range.reverse,
            limit: limit,
            filter: try range.parsedFilter(),
            token: token,
            sortKeys: sortKeys
        )
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
            let last =
                page.nextToken.flatMap { try? syntheticStore.decodeToken($0) }
                .map {
                    $0.offset.map { "{\"offset\":\($0)}" }
                        ?? "[\($0.lastEvaluatedPartition),\($0.lastEvaluatedSortKey)]"
                }
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

extension PagesCommand {
    /// `pages --target-file`: the real API's pages one by one, each line the request and what
    /// came back (T1, T2); the first answer that is not a page is printed and ends it with 69.
    func executeTarget(_ path: String, into output: inout some TextOutputStream) async throws(CommandError) -> Summary {
        var target = try VerifyCommand.loadTarget(path)
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .usage("--ca-file \(caFile): no such file or not readable; check the path")
        }
        var scanRange = range.range
        if let value = range.partitionText {
            guard var values = target.partitions else {
                throw .usage("--partition \(value): target \(target.name) lists no partitions; leave --partition out")
            }
            if let index = values.firstIndex(where: { $0 == .string(value) || $0 == .number(value) }) {
                scanRange = .partition(index)
            } else {
                let numeric = values.allSatisfy { if case .number = $0 { true } else { false } }
                values.append(numeric && Int64(value) != nil ? .number(value) : .string(value))
                target.partitions = values
                scanRange = .partition(values.count - 1)
            }
        } else if target.partitions != nil, range.segment == nil {
            scanRange = .partition(0)
        }
        // A target's request always carries a limit: the contract's default (10) without --limit.
        let limit = self.limit ?? StoreConfiguration.default.defaultLimit
        // A target that declares its filter values sends one through ${filter}: --filter's
        // value when it is one of them, else the first; otherwise --filter is pagebench's own.
        var filter: Filter?
        if let filters = target.filters {
            let chosen = range.filter.flatMap { given in filters.first { Verifier.text($0) == given } }
            if let given = range.filter, chosen == nil {
                throw .usage(
                    "--filter \(given): target \(target.name) declares filters \(filters.map(Verifier.text).joined(separator: ", ")); give one of them"
                )
            }
            target.filterValue = chosen ?? filters[0]
        } else {
            filter = try range.parsedFilter()
        }
        let source: TargetSource
        do {
            source = try TargetSource(target: target, connections: 1, caFile: caFile, insecure: insecure)
        } catch {
            throw .invalidInput("target \(target.name): \(error.message)")
        }
        var request = PageRequest(range: scanRange, reverse: range.reverse, limit: limit, filter: filter, token: token)
        var summary = Summary()
        summary.configurationHash = target.targetHash
        let maxPages = self.maxPages ?? Int.max
        var failure: CommandError?
        while summary.pages < maxPages {
            let exchange: TargetExchange
            do {
                exchange = try await source.exchange(request)
            } catch {
                failure = .internalFailure("interrupted")
                break
            }
            summary.pages += 1
            var line: [String: JSONValue] = [
                "page": .number(String(summary.pages)), "request": .string(exchange.sent),
                "status": exchange.status.map { .number(String($0)) } ?? .null,
                "bytes": .number(String(exchange.bodyBytes)),
                "seconds": .number(NumberText.fixed(exchange.seconds, 6)),
            ]
            if let body = exchange.sentBody { line["body"] = .string(body) }
            switch exchange.outcome {
            case .page(let page):
                summary.returned += page.count
                summary.scanned += page.scanned
                line["returned"] = .number(String(page.count))
                line["scanned"] = .number(String(page.scanned))
                line["keys"] =
                    page.keys.map { keys in
                        .array(keys.map { key in key.flatMap { try? JSONValue.parse($0) } ?? .null })
                    } ?? .null
                line["nextToken"] = page.token.map { .string(source.secretMask($0)) } ?? .null
                output.write(JSONValue.object(line).text + "\n")
                guard let next = page.token else {
                    await source.shutdown()
                    return summary
                }
                request.token = next
            case .failure(let kind, let message):
                line["error"] = .string(message)
                line["kind"] = .string("\(kind)")
                output.write(JSONValue.object(line).text + "\n")
                failure = .unavailable("target \(target.name): page \(summary.pages) is not a page: \(message)")
            }
            if failure != nil { break }
        }
        await source.shutdown()
        if let failure { throw failure }
        return summary
    }
}
