import Foundation
import PagebenchBase
import PagebenchMetrics

/// How large and how certain a change of a measured metric must be before `pagebench check`
/// calls it a regression or an improvement.
///
/// Every measured column with a polarity has a ``Rule``; the defaults (``defaultRule(for:)``,
/// documented in docs/gate.md, with which of them gate the check by default: docs/contract.md H10)
/// reflect how noisy each kind of figure is.
/// A thresholds JSON file overrides them (``parse(_:file:)``):
///
/// ```json
/// {
///   "scale": 2.0,
///   "confidence": 0.95,
///   "alpha": 0.05,
///   "resamples": 2000,
///   "seed": 1,
///   "gateWallClock": false,
///   "metrics": {
///     "pages_per_s": { "relative": 0.10, "gate": true },
///     "errors_other": { "absolute": 2 },
///     "page_latency_max_ns": { "ignore": true }
///   }
/// }
/// ```
package struct Thresholds: Sendable, Equatable {
    /// The threshold of one metric.
    package struct Rule: Sendable, Equatable, Codable {
        /// The smallest relative change of the median that counts (0.05 = 5 %).
        package var relative: Double
        /// Changes of the median no larger than this, in the metric's unit, never count (for
        /// counts near zero, where one error more is +100 %).
        package var absolute: Double
        /// Not judged at all (reported as `ignored`).
        package var ignore: Bool
        /// Whether a regression fails the check: nil for the default of the metric's kind
        /// (``gate(for:exactAllocations:remoteTarget:)``, docs/contract.md H10).
        package var gate: Bool?

        package init(relative: Double, absolute: Double = 0, ignore: Bool = false, gate: Bool? = nil) {
            self.relative = relative
            self.absolute = absolute
            self.ignore = ignore
            self.gate = gate
        }
    }

    /// Multiplies every default relative threshold (not explicit per-metric ones): 2 on a noisy
    /// shared machine doubles every tolerance.
    package var scale: Double = 1
    /// Confidence of the bootstrap interval (0.5 < c < 1).
    package var confidence: Double = 0.95
    /// Significance level of the Mann–Whitney U test, applied when the sample sizes can reach it
    /// (``Statistics/smallestMannWhitneyP(_:_:)`` < alpha; with 0.01 that takes 5 repetitions a
    /// side). Strict because one check judges some 30 metrics per group: measured with
    /// `results/checker/measure.sh`, 0.05 let 2 of 20 A/A comparisons through.
    package var alpha: Double = 0.01
    /// Bootstrap rounds.
    package var resamples: Int = 2000
    /// Seed of the bootstrap generator: the same files and thresholds give the same verdicts.
    package var seed: UInt64 = 0x7061_6765_6265_6E63  // "pagebenc"
    /// Explicit per-metric rules, by column name.
    package var metrics: [String: Rule] = [:]
    /// The largest fraction of failed drains (the `errors_*` columns ÷ ended + failed drains)
    /// a row may have and still be compared: a row past it (a target that stopped answering,
    /// a store that failed) is not a measurement, and the check fails naming it.
    package var maxFailedDrainFraction: Double = 0.01
    /// Gate the figures reported by default too (wall-clock rates and latencies, CPU time,
    /// memory, allocations counted through the thread caches) at their rules: for a quiet
    /// machine of one's own (`check --gate-wall-clock`, `"gateWallClock": true`).
    package var gateWallClock = false

    package init() {}

    /// The rule applied to `column` (a measured column with a polarity).
    ///
    /// - Parameter exactAllocations: every row of both sides counted allocations exactly
    ///   (`allocation_counting` = `exact`): then the allocation columns, repeatable to about
    ///   1 % (results/allocation-exact.md), default to ``exactAllocationRule`` instead of the
    ///   50 % that the thread caches' bursts need.
    /// - Parameter remoteTarget: the rows paged a remote target: its gated page latencies
    ///   default to ``targetLatencyRules``, the tolerances they are gated at.
    package func rule(for column: ColumnDescriptor, exactAllocations: Bool = false, remoteTarget: Bool = false) -> Rule
    {
        if let explicit = metrics[column.name] { return explicit }
        var rule =
            exactAllocations && Self.allocationColumns.contains(column.name)
            ? Self.exactAllocationRule
            : remoteTarget
                ? Self.targetLatencyRules[column.name] ?? Self.defaultRule(for: column) : Self.defaultRule(for: column)
        rule.relative *= scale
        return rule
    }

    /// The columns whose default rule depends on how allocations were counted.
    static let allocationColumns: Set<String> = ["allocations", "allocations_per_page"]

    /// The default rule of the allocation columns when both sides counted exactly.
    package static let exactAllocationRule = Rule(relative: 0.05)

    /// The documented default rule of a measured column, by what kind of figure it is.
    package static func defaultRule(for column: ColumnDescriptor) -> Rule {
        let name = column.name
        if name.hasSuffix("_per_s") { return Rule(relative: 0.05) }
        if name.hasPrefix("cancel_latency_") {
            return Rule(relative: name.hasSuffix("_p50_ns") ? 0.25 : name.hasSuffix("_p90_ns") ? 0.50 : 2.00)
        }
        if name.hasSuffix("_p50_ns") || name.hasSuffix("_p10_ns") || name.hasSuffix("_min_ns") {
            return Rule(relative: 0.10)
        }
        if name.hasSuffix("_p90_ns") { return Rule(relative: 0.15) }
        // Tails move with the machine's load (a scheduling hiccup of a few ms lands in p99.9 and max).
        if name.hasSuffix("_p99_ns") { return Rule(relative: 0.50) }
        if name.hasSuffix("_p999_ns") { return Rule(relative: 1.00) }
        if name.hasSuffix("_max_ns") { return Rule(relative: 2.00) }
        switch name {
        // Callgrind's counts of one build, in separate runs: within 0.5 % for phases of tens of
        // millions of instructions, up to 2.7 % for one of 4 million (ci-parallel-scan), whose
        // allocator slow paths follow what the process did before it; one run in 40 counted the
        // Apollo-style pagers 9 % higher (results/aa-gate.md). 3 % catches a 10 % dearer store
        // evaluation (+8 % a page).
        case "instructions_per_page": return Rule(relative: 0.03)
        // Whole-process jemalloc counts: timers, the sampler and the runtime allocate too, and vary
        // by a factor of 2 between repetitions on a loaded machine. Allocation gating belongs to the
        // package-benchmark suites (mallocCountTotal per benchmark).
        case "allocations", "allocations_per_page": return Rule(relative: 0.50)
        case "peak_allocated_bytes", "peak_rss_bytes": return Rule(relative: 0.15)
        case "cpu_user_s": return Rule(relative: 0.25, absolute: 0.05)
        case "cpu_system_s": return Rule(relative: 0.50, absolute: 0.05)
        case "measurement_overhead_ratio": return Rule(relative: 0.10)
        // Two short wall-clock figures divided: the 50 ms calibration moves with the machine's load.
        case "harness_overhead_ratio": return Rule(relative: 0.25)
        case "missed_starts", "late_starts": return Rule(relative: 0.25, absolute: 5)
        default:
            // Counts of rare events (errors, retries, throttles, pages after cancel).
            return Rule(relative: 0.25, absolute: 2)
        }
    }

    /// The columns the checker judges with a threshold: measured, with a polarity.
    package static var judgedColumns: [ColumnDescriptor] {
        ResultRow.columnDescriptors.filter { $0.kind == .measured && $0.polarity != .neutral }
    }

    /// The docs/gate.md table of default rules and gates, generated from ``defaultRule(for:)`` and
    /// ``gate(for:exactAllocations:remoteTarget:)`` (drift-tested).
    package static func defaultsMarkdownTable() -> String {
        var lines = [
            "| metric | polarity | relative | absolute floor | by default (in-process rows) |",
            "| --- | --- | --- | --- | --- |",
        ]
        for column in judgedColumns {
            let rule = defaultRule(for: column)
            let absolute = rule.absolute == 0 ? "—" : "\(NumberText.number(rule.absolute)) \(column.unit)"
            lines.append(
                "| `\(column.name)` | \(column.polarity == .higherIsBetter ? "higher is better" : "lower is better") "
                    + "| \(NumberText.number(rule.relative * 100)) % | \(absolute) | \(Thresholds().gate(for: column).reason) |"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a thresholds JSON file. Errors name the file and the field (`metrics.pages_per_s.relative`).
    package static func read(from path: String) throws -> Thresholds {
        try parse(TextFile.read(path), file: path)
    }

    /// Parses thresholds JSON text (see the type's documentation for the format), decoded with
    /// `Codable` like scenario files and checked field by field.
    ///
    /// - Throws: ``PagebenchMetrics/MetricsError`` (`malformedInput`) naming `file` and the
    ///   field: `t.json: metrics.pages_per_s.relative: must be a number ≥ 0 (0.05 means 5 %)`.
    package static func parse(_ text: String, file: String) throws -> Thresholds {
        func malformed(_ message: String) -> MetricsError {
            MetricsError.malformed(file: file, line: nil, column: nil, message)
        }
        do {
            // What JSONDecoder lets through is refused here: a key given twice (the last one
            // would win), nulls.
            let document = try StrictJSON.Document(bytes: Array(text.utf8))
            return try document.decode(Document.self).thresholds
        } catch {
            switch error {
            case .notJSON(let located, let parser):
                // A number no Double holds (1e400) or JSON does not allow (01) in a file that
                // otherwise reads is named by its field, with what the field takes.
                do {
                    _ = try JSONDecoder().decode(Document.self, from: Data(text.utf8))
                } catch let error as FieldError {
                    throw malformed("\(error.field): \(error.problem)")
                } catch {}
                // Located, as scenario and target files are: not Foundation's "The given data was not valid JSON."
                throw malformed("not valid JSON: \(located ?? parser.localizedDescription)")
            case .problem(let problem):
                throw malformed(problem)
            case .reader(let error as FieldError):
                throw malformed("\(error.field): \(error.problem)")
            case .shape(.typeMismatch(_, let context), _) where context.codingPath.isEmpty:
                throw malformed("expected a JSON object at the top level, like {\"scale\": 2}")
            case .shape(let error, _):
                throw malformed("not a thresholds file (\(error))")
            case .reader(let error):
                throw malformed("not a thresholds file (\(error))")
            }
        }
    }

    /// A field with a bad value: its JSON path and what is wrong.
    private struct FieldError: Error {
        let field: String
        let problem: String
    }

    /// Any key of a JSON object.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The file as decoded: every key checked as it is read.
    private struct Document: Decodable {
        var thresholds = Thresholds()

        static let topKeys = [
            "scale", "confidence", "alpha", "resamples", "seed", "maxFailedDrainFraction", "gateWallClock", "metrics",
        ]

        init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: AnyKey.self)
            for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                let name = key.stringValue
                switch name {
                case "scale":
                    thresholds.scale = try Self.number(
                        object,
                        key,
                        name,
                        in: 0...100,
                        "multiplier of every default relative threshold"
                    )
                case "confidence":
                    thresholds.confidence = try Self.number(
                        object,
                        key,
                        name,
                        in: 0.5...0.999,
                        "confidence of the bootstrap interval"
                    )
                case "alpha":
                    thresholds.alpha = try Self.number(
                        object,
                        key,
                        name,
                        in: 0.0001...0.5,
                        "significance level of the rank test"
                    )
                case "resamples":
                    let value = try Self.number(object, key, name, in: 100...100_000, "bootstrap rounds")
                    guard value == value.rounded() else {
                        throw FieldError(field: name, problem: "must be a whole number")
                    }
                    thresholds.resamples = Int(value)
                case "seed":
                    let value = try Self.number(object, key, name, in: 0...9_007_199_254_740_991, "bootstrap seed")
                    guard value == value.rounded() else {
                        throw FieldError(field: name, problem: "must be a whole number")
                    }
                    thresholds.seed = UInt64(value)
                case "maxFailedDrainFraction":
                    thresholds.maxFailedDrainFraction = try Self.number(
                        object,
                        key,
                        name,
                        in: 0...1,
                        "largest fraction of failed drains a compared row may have"
                    )
                case "gateWallClock":
                    guard let value = try? object.decode(Bool.self, forKey: key) else {
                        throw FieldError(
                            field: name,
                            problem: "must be true or false (gate the figures reported by default)"
                        )
                    }
                    thresholds.gateWallClock = value
                case "metrics":
                    let metrics: KeyedDecodingContainer<AnyKey>
                    do {
                        metrics = try object.nestedContainer(keyedBy: AnyKey.self, forKey: key)
                    } catch {
                        throw FieldError(
                            field: name,
                            problem:
                                "must be an object mapping column names to rules, like {\"pages_per_s\": {\"relative\": 0.1}}"
                        )
                    }
                    thresholds.metrics = try Self.rules(metrics)
                default:
                    throw FieldError(
                        field: name,
                        problem:
                            "unknown key \"\(name)\"; expected one of \(Self.topKeys.map { "\"\($0)\"" }.joined(separator: ", "))"
                    )
                }
            }
        }

        /// A number in `range`; `what` says what it means.
        private static func number(
            _ object: KeyedDecodingContainer<AnyKey>,
            _ key: AnyKey,
            _ field: String,
            in range: ClosedRange<Double>,
            _ what: String
        ) throws -> Double {
            guard let value = try? object.decode(Double.self, forKey: key) else {
                throw FieldError(field: field, problem: "must be a number (\(what))")
            }
            guard range.contains(value) else {
                throw FieldError(
                    field: field,
                    problem: "must be between \(NumberText.number(range.lowerBound)) and "
                        + "\(NumberText.number(range.upperBound)) (\(what)), found \(NumberText.number(value))"
                )
            }
            return value
        }

        private static func rules(_ metrics: KeyedDecodingContainer<AnyKey>) throws -> [String: Rule] {
            let columns = Dictionary(uniqueKeysWithValues: ResultRow.columnDescriptors.map { ($0.name, $0) })
            var rules: [String: Rule] = [:]
            for key in metrics.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                let name = key.stringValue
                let field = "metrics.\(name)"
                guard let column = columns[name] else {
                    let suggestion = closestName(to: name, in: judgedColumns.map(\.name))
                    throw FieldError(
                        field: field,
                        problem: "unknown metric \"\(name)\"" + (suggestion.map { "; did you mean \"\($0)\"?" } ?? "")
                            + " (measured columns are listed in docs/checking.md)"
                    )
                }
                guard column.kind == .measured, column.polarity != .neutral else {
                    let why =
                        column.kind == .deterministic
                        ? "it is deterministic and compared exactly (use --allow-behaviour-change to accept a change)"
                        : column.kind == .context
                            ? "it is a context column, used to match rows" : "it has no better direction"
                    throw FieldError(field: field, problem: "metric \"\(name)\" takes no threshold: \(why); remove it")
                }
                let fields: KeyedDecodingContainer<AnyKey>
                do {
                    fields = try metrics.nestedContainer(keyedBy: AnyKey.self, forKey: key)
                } catch {
                    throw FieldError(
                        field: field,
                        problem: "the rule of \"\(name)\" must be an object like {\"relative\": 0.1}"
                    )
                }
                var rule = defaultRule(for: column)
                for ruleKey in fields.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                    let ruleField = "\(field).\(ruleKey.stringValue)"
                    switch ruleKey.stringValue {
                    case "relative", "absolute":
                        // A relative threshold is a fraction (0.05) or a percentage text ("5%"): a bare 5 is refused, not taken as 500 %.
                        let percentage =
                            ruleKey.stringValue == "relative"
                            ? (try? fields.decode(String.self, forKey: ruleKey)).flatMap {
                                $0.hasSuffix("%") ? Double($0.dropLast()).map { $0 / 100 } : nil
                            } : nil
                        // A latency's absolute floor may be a duration text ("2ms", "1m": DurationText).
                        let duration =
                            ruleKey.stringValue == "absolute" && column.unit == "ns"
                            ? (try? fields.decode(String.self, forKey: ruleKey)).flatMap {
                                DurationText.nanoseconds($0)
                            } : nil
                        guard let value = percentage ?? duration ?? (try? fields.decode(Double.self, forKey: ruleKey)),
                            value >= 0, value.isFinite
                        else {
                            throw FieldError(
                                field: ruleField,
                                problem: "must be a number ≥ 0"
                                    + (ruleKey.stringValue == "relative"
                                        ? " (0.05 means 5 %)"
                                        : " in \(column.unit)"
                                            + (column.unit == "ns"
                                                ? " or a duration (\(DurationText.unitList): \"2ms\")" : ""))
                            )
                        }
                        if ruleKey.stringValue == "relative" {
                            guard value <= 100, percentage != nil || value <= 1 else {
                                throw FieldError(
                                    field: ruleField,
                                    problem:
                                        "is \(NumberText.number(value)), i.e. \(NumberText.number(value * 100)) %; write 0.05 for 5 % (or \"5%\"); "
                                        + "above 1 (100 %) only as a percentage text, \"\(NumberText.number(value * 100))%\""
                                )
                            }
                            rule.relative = value
                        } else {
                            rule.absolute = value
                        }
                    case "ignore":
                        guard let value = try? fields.decode(Bool.self, forKey: ruleKey) else {
                            throw FieldError(field: ruleField, problem: "must be true or false")
                        }
                        rule.ignore = value
                    case "gate":
                        guard let value = try? fields.decode(Bool.self, forKey: ruleKey) else {
                            throw FieldError(
                                field: ruleField,
                                problem: "must be true or false (whether a regression fails the check)"
                            )
                        }
                        rule.gate = value
                    default:
                        throw FieldError(
                            field: ruleField,
                            problem:
                                "unknown key \"\(ruleKey.stringValue)\" in the rule of \"\(name)\"; expected \"relative\", \"absolute\", \"ignore\" or \"gate\""
                        )
                    }
                }
                rules[name] = rule
            }
            return rules
        }
    }

    /// The candidate with the smallest edit distance, if it is close enough to be a typo.
    static func closestName(to name: String, in candidates: [String]) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var previous = Array(0...b.count)
            for (i, x) in a.enumerated() {
                var row = [i + 1]
                for (j, y) in b.enumerated() {
                    row.append(min(previous[j + 1] + 1, row[j] + 1, previous[j] + (x == y ? 0 : 1)))
                }
                previous = row
            }
            return previous[b.count]
        }
        let target = Array(name)
        let best = candidates.map { ($0, distance(target, Array($0))) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= max(2, name.count / 4) else { return nil }
        return best.0
    }
}
