import Foundation
import PagebenchBase
import PagebenchHarness
import PagebenchMetrics

/// The result shard one worker writes (`--shard I/N`): for every phase it ran, its CSV row,
/// its counters and its latency histograms in their lossless text form, so that
/// ``ShardMerge`` can combine the shards of a run exactly. docs/scaling-out.md documents
/// the JSON layout:
///
/// ```json
/// { "format": "pagebench-shard", "version": 4, "shard": { "index": 0, "count": 4 },
///   "startAt": "2026-11-22T10:00:00.000Z",
///   "phases": [ { "scenario": "default", "configHash": "…", "seed": 42, "concurrency": 64,
///                 "repetition": 1, "pagers": 16, "drains": 500,
///                 "startedAtUnixNanoseconds": …, "durationNanoseconds": …,
///                 "row": "schema_version,…\n1,…\n",
///                 "metrics": { "counts": { "pages": …, … }, … , "errors": { "invalidLimit": 0, …, "unclassified": 0 },
///                              "pageLatency": "hdr1 digits=3 …", "drainLatency": "hdr1 …" } } ],
///   "httpResponses": { "200": 51234, "429": 12, "transport": 0 } }
/// ```
///
/// `httpResponses` (a `--target` run's HTTP responses by status, over all its phases, and
/// requests that got none) is null for an in-process run, and may be absent in files of
/// earlier builds.
package struct ShardFile: Sendable, Equatable {
    /// The value of `format`.
    package static let formatName = "pagebench-shard"
    /// The layout version this build writes and reads.
    package static let currentVersion = 4
    /// Where the layout has `null` values (docs/scaling-out.md), `[]` for any phase: no
    /// `--start-at`, an in-process run's HTTP responses, a duration-bound phase's drains,
    /// A null anywhere else is refused; a histogram of nothing measured is absent.
    static let nullablePaths: Set<String> = ["startAt", "httpResponses", "phases[].drains"]

    package var shard: Shard
    /// The `--start-at` the worker was given, as given to the run (nil without one).
    package var startAt: String?
    package var phases: [ShardPhase]
    /// A `--target` run's HTTP responses by status (`"200"`, `"429"`, …) and `"transport"`
    /// (requests that got no response), over all its phases; nil in-process.
    package var httpResponses: [String: Int]?
    /// Whether SIGINT or SIGTERM stopped the worker (H6): its phases end where it stopped,
    /// the last one possibly partial. Absent (false) in files of earlier builds.
    package var interrupted: Bool

    package init(
        shard: Shard,
        startAt: String?,
        phases: [ShardPhase],
        httpResponses: [String: Int]? = nil,
        interrupted: Bool = false
    ) {
        self.shard = shard
        self.startAt = startAt
        self.phases = phases
        self.httpResponses = httpResponses
        self.interrupted = interrupted
    }

    /// The shard of a sweep's output.
    package init(
        shard: Shard,
        startAt: StartTime?,
        output: SweepRunner.Output,
        httpResponses: [String: Int]? = nil,
        interrupted: Bool = false
    ) {
        self.init(
            shard: shard,
            startAt: startAt?.description,
            phases: zip(output.results, output.rows).map { ShardPhase(result: $0, row: $1) },
            httpResponses: httpResponses,
            interrupted: interrupted
        )
    }

    /// `shard-I-of-N.json`: the file name of a shard in a shard directory.
    package static func fileName(for shard: Shard) -> String { "shard-\(shard.index)-of-\(shard.count).json" }

    // MARK: Writing

    /// The JSON text (pretty, keys sorted, one trailing line break).
    package func jsonText() throws(HarnessError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(Document(self)), as: UTF8.self) + "\n"
        } catch {
            throw HarnessError(.outputFailed, "cannot encode the shard file: \(error)")
        }
    }

    /// Writes the shard to `path` atomically (temporary file + rename), creating its directory.
    /// If it cannot be written after all, the shard is saved to a rescue file in the
    /// temporary directory (``ResultWriter/rescuePath(named:)``), which the error names: a
    /// worker's measurements are never lost to a full disk or a vanished directory.
    ///
    /// - Throws: ``HarnessError`` (`outputFailed`) naming the file, the reason and the rescue file.
    package func write(to path: String) throws(HarnessError) {
        let text = try jsonText()
        do throws(HarnessError) {
            try ResultWriter.createParentDirectory(of: path)
            do {
                try AtomicFile.write(text, to: path)
            } catch {
                throw HarnessError(.outputFailed, file: path, "cannot write the shard file: \(error)")
            }
        } catch {
            let rescue = ResultWriter.rescuePath(named: "-" + Self.fileName(for: shard))
            guard (try? AtomicFile.write(text, to: rescue)) != nil else { throw error }
            throw HarnessError(
                .outputFailed,
                "\(error.description); the shard (\(phases.count) phase\(phases.count == 1 ? "" : "s")) was saved to \(rescue); "
                    + "copy it to the shard directory as \(Self.fileName(for: shard)) to merge it"
            )
        }
    }

    // MARK: Reading

    /// Reads a shard file.
    ///
    /// - Throws: ``HarnessError``: `inputUnavailable` when the file is missing or unreadable,
    ///   `invalidShard` for anything else, naming the phase and field.
    package static func read(path: String) throws(HarnessError) -> ShardFile {
        let data = try HarnessError.readInput(path, ifMissing: "no such shard file; check the path")
        return try decode(json: data, file: path)
    }

    /// A value of the file as an error names it: a string or number as written, a container
    /// by its kind.
    private static func plain(_ node: StrictJSON.Node) -> String {
        switch node {
        case .string(let text), .number(let text): text
        case .bool(let value): String(value)
        case .null: "null"
        case .object, .array: node.description
        }
    }

    /// Decodes a shard file's JSON; `file` names it in errors.
    ///
    /// Read as strictly as a scenario file: a key repeated in one object, a `null` where the
    /// format has none (it has them only at ``nullablePaths``) and a key this build does not
    /// know, at any depth, are refused naming their path (`phases[0].counters.pagez`), not
    /// silently dropped.
    package static func decode(json data: Data, file: String) throws(HarnessError) -> ShardFile {
        func fail(_ message: String) -> HarnessError { HarnessError(.invalidShard, file: file, message) }
        // The format tag first, so that a wrong file gets a useful message, not a missing key.
        let parsed = try? StrictJSON.Document(bytes: Array(data), checked: false)
        guard let parsed, parsed.isObject else {
            let syntax = StrictJSON.syntaxError(in: Array(data)).map { " (\($0))" } ?? ""
            throw fail("not a JSON object\(syntax); a shard file is written by `pagebench run --shard I/N`")
        }
        guard case .string(formatName)? = parsed["format"] else {
            throw fail(
                "'format' is \(parsed["format"].map { "'\(Self.plain($0))'" } ?? "missing"), expected '\(formatName)': not a pagebench shard file"
            )
        }
        guard case .number(let version)? = parsed["version"], Int(version) == currentVersion else {
            throw fail(
                "shard format version \(parsed["version"].map(Self.plain) ?? "missing") is not the one this pagebench reads "
                    + "(\(currentVersion)); merge with the pagebench version that wrote it"
            )
        }
        if let problem = parsed.firstProblem(nullable: nullablePaths) { throw fail(problem) }
        if case .array(let phases)? = parsed.root.member("phases") {
            for (number, phase) in phases.enumerated() {
                guard let metrics = phase.member("metrics") else { continue }
                if let problem = PhaseDocument.countProblem(in: metrics, path: "phases[\(number)].metrics") {
                    throw fail(problem)
                }
            }
        }
        let document: Document
        do {
            document = try parsed.decode(Document.self)
        } catch {
            switch error {
            case .shape(.keyNotFound(let key, let context), _):
                throw fail("missing key '\(path(context.codingPath + [key]))'")
            case .shape(.valueNotFound(_, let context), _):
                throw fail("'\(path(context.codingPath))' is null but needs a value")
            // The path, what goes there and what the file has (a number that does not fit
            // its field included), not JSONDecoder's "The given data was not valid JSON."
            case .shape(let error, let shape): throw fail(shape?.description ?? "\(error)")
            case .reader(let error): throw fail("\(error)")
            case .notJSON, .problem: throw fail("\(error)")
            }
        }
        // Every key the layout knows comes back when the document is encoded again.
        if let unknown = parsed.unknownKey(of: document) {
            throw fail(unknown + "; was the file edited, or written by another pagebench version?")
        }
        let shard: Shard
        do {
            shard = try Shard(index: document.shard.index, count: document.shard.count)
        } catch {
            throw fail("'shard': " + error.message.replacingOccurrences(of: "--shard ", with: ""))
        }
        var phases: [ShardPhase] = []
        for (number, phase) in document.phases.enumerated() {
            phases.append(try phase.model(file: file, at: "phases[\(number)]"))
        }
        if let responses = document.httpResponses,
            let bad = responses.first(where: {
                $0.value < 0 || !($0.key == "transport" || Int($0.key).map { (100...599).contains($0) } == true)
            })
        {
            throw fail(
                "'httpResponses.\(bad.key)': keys are HTTP statuses 100-599 or 'transport', counts are not negative"
            )
        }
        return ShardFile(
            shard: shard,
            startAt: document.startAt,
            phases: phases,
            httpResponses: document.httpResponses,
            interrupted: document.interrupted ?? false
        )
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }
}

// MARK: - JSON layout

private struct Document: Codable {
    struct ShardIndex: Codable {
        var index: Int
        var count: Int
    }

    var format = ShardFile.formatName
    var version = ShardFile.currentVersion
    var shard: ShardIndex
    var startAt: String?
    var phases: [PhaseDocument]
    var httpResponses: [String: Int]?
    var interrupted: Bool?

    init(_ file: ShardFile) {
        shard = ShardIndex(index: file.shard.index, count: file.shard.count)
        startAt = file.startAt
        phases = file.phases.map(PhaseDocument.init)
        httpResponses = file.httpResponses
        interrupted = file.interrupted
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(version, forKey: .version)
        try container.encode(shard, forKey: .shard)
        try container.encode(startAt, forKey: .startAt)  // null when absent: every key always present
        try container.encode(phases, forKey: .phases)
        try container.encode(httpResponses, forKey: .httpResponses)
        try container.encode(interrupted, forKey: .interrupted)
    }
}

private struct PhaseDocument: Codable {
    var scenario: String
    var configHash: String
    var seed: UInt64
    var concurrency: Int
    var repetition: Int
    var pagers: Int
    var drains: Int?
    var startedAtUnixNanoseconds: UInt64
    var durationNanoseconds: UInt64
    var row: String
    /// Every counter and histogram of the phase, as ``TaskMetrics`` codes itself.
    var metrics: TaskMetrics

    init(_ phase: ShardPhase) {
        scenario = phase.scenario
        configHash = phase.configHash
        seed = phase.seed
        concurrency = phase.concurrency
        repetition = phase.repetition
        pagers = phase.pagers
        drains = phase.drains
        startedAtUnixNanoseconds = phase.startedAtUnixNanoseconds
        durationNanoseconds = phase.durationNanoseconds
        // A row's decimals are finite by construction (rates over a zero-length phase are 0).
        row = (try? ResultRow.csvText([phase.row])) ?? ""
        metrics = phase.metrics
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scenario, forKey: .scenario)
        try container.encode(configHash, forKey: .configHash)
        try container.encode(seed, forKey: .seed)
        try container.encode(concurrency, forKey: .concurrency)
        try container.encode(repetition, forKey: .repetition)
        try container.encode(pagers, forKey: .pagers)
        try container.encode(drains, forKey: .drains)
        try container.encode(startedAtUnixNanoseconds, forKey: .startedAtUnixNanoseconds)
        try container.encode(durationNanoseconds, forKey: .durationNanoseconds)
        try container.encode(row, forKey: .row)
        try container.encode(metrics, forKey: .metrics)
    }

    /// The largest count a shard file may hold: 2^50, so that the counts of
    /// ``Shard/maximumCount`` (2^12) shards add up within Int64.
    static let maximumCount = 1 << 50

    func model(file: String, at location: String) throws(HarnessError) -> ShardPhase {
        func fail(_ message: String) -> HarnessError {
            HarnessError(.invalidShard, file: file, "\(location): \(message)")
        }
        let rows: [ResultRow]
        do {
            rows = try ResultRow.parseCSV(row, file: "\(file) \(location).row")
        } catch {
            throw fail("'row' is not a results CSV row: \(error)")
        }
        guard rows.count == 1, let parsed = rows.first else {
            throw fail("'row' must hold a header and exactly one row, found \(rows.count) rows")
        }
        guard parsed.scenario == scenario, parsed.configHash == configHash, parsed.seed == seed,
            parsed.concurrency == concurrency, parsed.repetition == repetition
        else {
            throw fail(
                "'row' describes \(parsed.scenario) [\(parsed.configHash)] seed \(parsed.seed) ×\(parsed.concurrency) "
                    + "rep \(parsed.repetition), but the phase says \(scenario) [\(configHash)] seed \(seed) ×\(concurrency) "
                    + "rep \(repetition); was the file edited?"
            )
        }
        for (name, value) in [("pagers", pagers), ("concurrency", concurrency), ("repetition", repetition)]
        where value < 0 || value > Self.maximumCount {
            throw fail(Self.outOfRange(name, value))
        }
        return ShardPhase(
            scenario: scenario,
            configHash: configHash,
            seed: seed,
            concurrency: concurrency,
            repetition: repetition,
            pagers: pagers,
            drains: drains,
            startedAtUnixNanoseconds: startedAtUnixNanoseconds,
            durationNanoseconds: durationNanoseconds,
            row: parsed,
            metrics: metrics
        )
    }

    static func outOfRange(_ name: String, _ value: String) -> String {
        "'\(name)' must be between 0 and \(maximumCount) (so that \(Shard.maximumCount) shards add up without overflow), found \(value)"
    }

    static func outOfRange(_ name: String, _ value: Int) -> String { outOfRange(name, String(value)) }

    /// The first number under `node` (a phase's `metrics`: counts, and histograms as text) that is
    /// not a count a merge of ``Shard/maximumCount`` shards can add, named by its path.
    static func countProblem(in node: StrictJSON.Node, path: String) -> String? {
        switch node {
        case .object(let members):
            for member in members {
                if let problem = countProblem(in: member.value, path: path + "." + member.key) { return problem }
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let problem = countProblem(in: element, path: path + "[\(index)]") { return problem }
            }
        case .number(let text):
            guard let value = Int(text), (0...maximumCount).contains(value) else { return outOfRange(path, text) }
        case .string, .bool, .null: break
        }
        return nil
    }
}
