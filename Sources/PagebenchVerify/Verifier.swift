import Foundation
import PagebenchBase
import PagebenchPage
import PagebenchTargets
import PagebenchWire

/// `pagebench verify`: drains a real list API's partitions at several limits, alone and a few
/// at once, probes its tokens and its error answers, and judges rules V1–V7
/// (docs/contract.md) with the evidence of each broken one. Read-only (it sends only the
/// target's own list request, with other limits, partitions and tokens), rate-limited and
/// bounded in requests and time (``VerifyOptions``); it says what it will send before it
/// sends it (``plan``).
package struct Verifier: Sendable {
    package let target: Target
    package let options: VerifyOptions
    /// The target with the partition values verify adds: a `--partition` it does not list,
    /// and one it surely has not (V6), at the end of its list.
    let extended: Target
    /// The partitions drained: their index in ``extended``'s list and their text.
    let partitions: [(index: Int, label: String)]
    /// The index of a partition the API has not (V6); nil for a target without partitions.
    let unknownPartition: (index: Int, label: String)?
    /// A listed partition other than the first drained one whose token V5 sends with it.
    let otherPartition: (index: Int, label: String)?
    let environment: [String: String]

    /// Whether V5 sends a token at another limit: the target's `tokensBind` holds `limit`, or
    /// `--token-binds-limit`.
    var bindsLimit: Bool { options.tokenBindsLimit || target.tokensBind.contains(.limit) }
    /// The filter value drains are sent with (the target's first `filters` value), and the one
    /// V5 sends its token with when the target's `tokensBind` holds `filter`.
    var filter: JSONValue? { target.filters?.first }
    var otherFilter: JSONValue? {
        guard target.tokensBind.contains(.filter), let filters = target.filters, filters.count > 1 else { return nil }
        return filters[1]
    }

    /// The limits in ascending order.
    var limits: [Int] { options.limits.sorted() }
    /// The limit of the concurrent drains and the token probes: the middle one.
    var probeLimit: Int { limits[limits.count / 2] }

    /// Checks the options against the target and chooses the partitions.
    ///
    /// - Throws: ``VerifyError`` (usage) for an invalid option or a `--partition` given to a
    ///   target without partitions.
    package init(
        target: Target,
        options: VerifyOptions,
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        throws(VerifyError)
    {
        try options.validate()
        if case .http(let http) = target.request, !Self.readMethods.contains(http.method) {
            throw .invalidInput(
                "target \(target.name): method \(http.method): verify sends only reads, and a list request by "
                    + Self.readMethods.joined(separator: ", ")
                    + " (it repeats each request many times); give the API's list request"
            )
        }
        if case .graphql(let graphql) = target.request, let operation = Self.writingOperation(in: graphql.query) {
            throw .invalidInput(
                "target \(target.name): query: the document holds a \(operation); verify sends only reads (it repeats each request many times): give the API's list query"
            )
        }
        self.target = target
        self.options = options
        self.environment = environment
        var extended = target
        extended.filterValue = target.filters?.first
        guard var values = target.partitions else {
            if let partition = options.partition {
                throw .usage(
                    "--partition \(partition): target \(target.name) lists no partitions; leave --partition out (verify reads it whole)"
                )
            }
            self.extended = target
            partitions = [(0, "scan")]
            unknownPartition = nil
            otherPartition = nil
            return
        }
        let numeric = values.allSatisfy { if case .number = $0 { true } else { false } }
        if let partition = options.partition {
            if let index = values.firstIndex(where: { Self.text($0) == partition }) {
                partitions = [(index, partition)]
            } else {
                values.append(numeric && Int64(partition) != nil ? .number(partition) : .string(partition))
                partitions = [(values.count - 1, partition)]
            }
        } else {
            let count = min(options.partitionSample, values.count)
            partitions = (0..<count).map { sample in
                let index = sample * values.count / count
                return (index, Self.text(values[index]))
            }
        }
        let chosen = partitions
        let listed = target.partitions!.indices
        let firstOther = listed.first { $0 != chosen[0].index }
        otherPartition = chosen.count > 1 ? chosen[1] : firstOther.map { ($0, Self.text(values[$0])) }
        let unknown: JSONValue
        if numeric {
            let largest = values.compactMap { Int64(Self.text($0)) }.max() ?? 0
            unknown = .number(String(largest < Int64.max - 1_000_000_007 ? largest + 1_000_000_007 : -1_000_000_007))
        } else {
            unknown = .string("pagebench-verify-no-such-partition")
        }
        values.append(unknown)
        unknownPartition = (values.count - 1, Self.text(unknown))
        extended.partitions = values
        self.extended = extended
    }

    /// A partition or filter value as text: a string's characters, a number as written.
    package static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text), .number(let text): text
        default: value.text
        }
    }

    func request(_ partition: (index: Int, label: String), limit: Int, token: String? = nil) -> PageRequest {
        PageRequest(range: target.partitions == nil ? .scan : .partition(partition.index), limit: limit, token: token)
    }

    /// What verify will send, for the caller to print before it starts: the first request
    /// itself, the drains, the probes and the bounds.
    package func plan() async throws(VerifyError) -> String {
        let source = try makeSource(connections: 1)
        let first = source.describe(request(partitions[0], limit: probeLimit))
        await source.shutdown()
        var lines = [
            "pagebench verify: target \(target.name) (\(target.kind.rawValue)) at \(target.endpoint); read-only: only its list request"
        ]
        lines.append("  first request: \(first.sent)" + (first.body.map { " body \($0)" } ?? ""))
        if target.endpoint.hasPrefix("https://") {
            let trust =
                options.insecure
                ? "NOT verified (--insecure: any certificate and host name is accepted)"
                : options.caFile.map { "verified against --ca-file \($0)" }
                    ?? "verified against the system's trusted certificates"
            lines.append("  TLS: the server's certificate is " + trust)
        }
        if let filter {
            lines.append("  every drain is sent with filter \(Self.text(filter)) (the target's first filters value)")
        } else if target.placeholders.contains(.filter) {
            lines.append("  ${filter} is sent empty: give the target filters (the values its filter takes) to send one")
        }
        if target.itemKey == nil {
            lines.append(
                "  items are counted, not compared: give the target an itemKey (a JSON Pointer into each item, e.g. \"/id\") to compare them"
            )
        }
        let names = partitions.map(\.label).joined(separator: ", ")
        let drained = target.partitions == nil ? "the whole list" : "partition \(names)"
        let firstDrain = target.partitions == nil ? "the whole list" : "partition " + partitions[0].label
        let limitList = limits.reversed().map(String.init).joined(separator: ", ")
        lines.append("  1. a drain of \(firstDrain) at limit \(probeLimit)")
        var probes = ["its first continuation twice more, once on a new connection", "garbled", "truncated"]
        if let other = otherPartition {
            probes.append("partition \(other.label)'s with partition \(partitions[0].label)")
        }
        if let other = otherFilter, let filter {
            probes.append("filter \(Self.text(filter))'s with filter \(Self.text(other))")
        }
        if bindsLimit, let other = limits.first(where: { $0 != probeLimit }) {
            probes.append("a limit-\(probeLimit) token at limit \(other)")
        }
        lines.append("  2. token probes: " + probes.joined(separator: ", "))
        var unsent: [String] = []
        if !bindsLimit, limits.count > 1 {
            unsent.append("at another limit (\"tokensBind\": [\"limit\"] if the API refuses that)")
        }
        if otherFilter == nil, let filters = target.filters, filters.count > 1 {
            unsent.append("with another filter (\"tokensBind\": [\"filter\"] if the API refuses that)")
        }
        if !unsent.isEmpty {
            lines.append(
                "     not sent, as the target declares no binding: a token " + unsent.joined(separator: ", or ")
            )
        }
        var errors = ["limit 0", "limit -1", "limit \(Self.hugeLimit)"]
        if let unknown = unknownPartition { errors.append("partition \(unknown.label)") }
        lines.append("  3. error probes: " + errors.joined(separator: ", "))
        lines.append(
            "  4. the other drains of \(drained) at limit \(limitList), one at a time, the largest limit first"
        )
        if options.concurrency > 1 {
            lines.append(
                "  5. \(options.concurrency) drains at once of \(firstDrain) at limit \(probeLimit), their requests sent \(options.concurrency) together within the rate"
            )
        }
        let rate = NumberText.number(options.rate)
        let seconds = NumberTextShort.seconds(options.maxSeconds)
        lines.append(
            "  bounds: at most \(options.maxRequests) requests, \(rate) a second, \(options.maxPagesPerDrain) pages a drain, \(seconds) s; "
                + "each request times out after \(NumberText.number(target.timeoutSeconds)) s"
        )
        return lines.joined(separator: "\n")
    }

    /// The HTTP methods of a list request verify sends: reads (a search or GraphQL endpoint
    /// takes POST). Anything else (PUT, PATCH, DELETE) it refuses: it would send it hundreds of
    /// times.
    static let readMethods = ["GET", "POST", "QUERY"]

    /// `mutation` or `subscription` when a GraphQL document defines one (a keyword outside
    /// any selection, string or comment), else nil: verify sends queries only.
    static func writingOperation(in document: String) -> String? {
        var depth = 0
        var word = ""
        var characters = document.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let scalar = pending {
                pending = nil
                return scalar
            }
            return characters.next()
        }
        func endWord() -> String? {
            defer { word = "" }
            return depth == 0 && (word == "mutation" || word == "subscription") ? word : nil
        }
        while let scalar = next() {
            if scalar == "_" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                word.unicodeScalars.append(scalar)
                continue
            }
            if let found = endWord() { return found }
            switch scalar {
            case "{", "(", "[": depth += 1
            case "}", ")", "]": depth = max(0, depth - 1)
            case "#":
                while let skipped = next(), skipped != "\n", skipped != "\r" {}
            case "\"":
                // A string or a block string: skipped to its end (escapes included).
                var quotes = 1
                while let following = next() {
                    if following == "\"" {
                        quotes += 1
                    } else {
                        pending = following
                        break
                    }
                }
                if quotes == 2 { continue }  // an empty string
                let block = quotes >= 3
                var run = 0
                while let inner = next() {
                    if inner == "\\" {
                        _ = next()
                        run = 0
                    } else if inner == "\"" {
                        run += 1
                        if !block || run == 3 { break }
                    } else {
                        run = 0
                    }
                }
            default: break
            }
        }
        return endWord()
    }

    /// A limit beyond what a 32-bit field holds (V6).
    static let hugeLimit = Int(Int32.max) + 1

    /// A source for the extended target; `filter`: `${filter}` takes that value instead of the
    /// drains' filter (V5's token of another filter).
    func makeSource(connections: Int, filter: JSONValue? = nil) throws(VerifyError) -> TargetSource {
        var target = extended
        if let filter { target.filterValue = filter }
        do {
            return try TargetSource(
                target: target,
                connections: connections,
                caFile: options.caFile,
                insecure: options.insecure,
                environment: environment
            )
        } catch {
            throw .invalidInput("target \(target.name): \(error.message)")
        }
    }
}
