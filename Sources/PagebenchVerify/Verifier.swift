import Foundation
import PagebenchBase
import PagebenchPage
public import PagebenchTargets
import PagebenchWire

/// `pagebench verify`: drains a real list API's partitions at several limits, alone and a few
/// at once, probes its tokens and its error answers, and judges rules V1–V7
/// (docs/contract.md) with the evidence of each broken one. Read-only (it sends only the
/// target's own list request, with other limits, partitions and tokens), rate-limited and
/// bounded in requests and time (``VerifyOptions``); it says what it will send before it
/// sends it (``plan``).
public struct Verifier: Sendable {
    public let target: Target
    public let options: VerifyOptions
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

    /// The limits in ascending order.
    var limits: [Int] { options.limits.sorted() }
    /// The limit of the concurrent drains and the token probes: the middle one.
    var probeLimit: Int { limits[limits.count / 2] }

    /// Checks the options against the target and chooses the partitions.
    ///
    /// - Throws: ``VerifyError`` (usage) for an invalid option or a `--partition` given to a
    ///   target without partitions.
    public init(target: Target, options: VerifyOptions, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(VerifyError)
    {
        try options.validate()
        self.target = target
        self.options = options
        self.environment = environment
        var extended = target
        guard var values = target.partitions else {
            if let partition = options.partition {
                throw .usage("--partition \(partition): target \(target.name) lists no partitions; leave --partition out (verify reads it whole)")
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

    /// A partition value as text: a string's characters, a number as written.
    static func text(_ value: JSONValue) -> String {
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
    public func plan() async throws(VerifyError) -> String {
        let source = try makeSource(connections: 1)
        let first = source.describe(request(partitions[0], limit: probeLimit))
        await source.shutdown()
        var lines = ["pagebench verify: target \(target.name) (\(target.kind.rawValue)) at \(target.endpoint); read-only: only its list request"]
        lines.append("  first request: \(first.sent)" + (first.body.map { " body \($0)" } ?? ""))
        if target.itemKey == nil {
            lines.append("  items are counted, not compared: give the target an itemKey (a JSON Pointer into each item, e.g. \"/id\") to compare them")
        }
        let names = partitions.map(\.label).joined(separator: ", ")
        let drained = target.partitions == nil ? "the whole list" : "partition \(names)"
        let firstDrain = target.partitions == nil ? "the whole list" : "partition " + partitions[0].label
        let limitList = limits.reversed().map(String.init).joined(separator: ", ")
        lines.append("  1. a drain of \(firstDrain) at limit \(probeLimit)")
        var probes = ["its first continuation twice more, once on a new connection", "garbled", "truncated"]
        if let other = otherPartition { probes.append("partition \(other.label)'s with partition \(partitions[0].label)") }
        if options.tokenBindsLimit, limits.count > 1 { probes.append("at another limit") }
        lines.append("  2. token probes: " + probes.joined(separator: ", "))
        var errors = ["limit 0", "limit -1", "limit \(Self.hugeLimit)"]
        if let unknown = unknownPartition { errors.append("partition \(unknown.label)") }
        lines.append("  3. error probes: " + errors.joined(separator: ", "))
        lines.append("  4. the other drains of \(drained) at limit \(limitList), one at a time, the largest limit first")
        if options.concurrency > 1 {
            lines.append("  5. \(options.concurrency) drains at once of \(firstDrain) at limit \(probeLimit)")
        }
        let rate = NumberText.number(options.rate)
        let seconds = NumberTextShort.seconds(options.maxSeconds)
        lines.append(
            "  bounds: at most \(options.maxRequests) requests, \(rate) a second, \(options.maxPagesPerDrain) pages a drain, \(seconds) s; "
                + "each request times out after \(NumberText.number(target.timeoutSeconds)) s")
        return lines.joined(separator: "\n")
    }

    /// A limit beyond what a 32-bit field holds (V6).
    static let hugeLimit = Int(Int32.max) + 1

    func makeSource(connections: Int) throws(VerifyError) -> TargetSource {
        do {
            return try TargetSource(
                target: extended, connections: connections, caFile: options.caFile, insecure: options.insecure, environment: environment)
        } catch {
            throw .invalidInput("target \(target.name): \(error.message)")
        }
    }
}
