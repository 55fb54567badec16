/// A load shape: a list of stages, each a duration and a target, ramped linearly within the
/// stage from the previous stage's target (docs/contract.md H4, k6's `stages` model).
///
/// All stages of one plan target the same thing: a number of concurrent pagers (closed loop)
/// or an arrival rate in drains per second (open loop). The first stage ramps from 0 unless it
/// names its start (`30s:8-64`); a stage with a start different from the previous target jumps
/// to it at the stage boundary.
///
/// Text form (`--stages`): comma-separated `DURATION:TARGET` or `DURATION:FROM-TO`, with rates
/// written `N/s`: `30s:0-64,60s:64,30s:64-0` or `20s:100/s-2000/s`.
public struct StagePlan: Sendable, Hashable, CustomStringConvertible {
    /// What the stages set.
    public enum Target: String, Sendable, Hashable {
        /// Concurrent pagers (closed loop); fractional values along a ramp are rounded to the
        /// nearest pager.
        case pagers
        /// Drain arrivals per second (open loop).
        case rate
    }

    /// One stage: `durationNanoseconds` long, moving linearly from `start` to `end`.
    public struct Stage: Sendable, Hashable {
        public var durationNanoseconds: Int
        /// The target at the stage's first instant (the previous stage's `end` unless written).
        public var start: Double
        /// The target at the stage's last instant.
        public var end: Double

        public init(durationNanoseconds: Int, start: Double, end: Double) {
            self.durationNanoseconds = durationNanoseconds
            self.start = start
            self.end = end
        }
    }

    public let target: Target
    public let stages: [Stage]

    /// The largest number of pagers any stage asks for (the pool a closed-loop run needs).
    public var peak: Double { stages.map { max($0.start, $0.end) }.max() ?? 0 }

    /// The whole plan's length.
    public var durationNanoseconds: Int { stages.reduce(0) { $0 + $1.durationNanoseconds } }

    /// The most stages a plan may have. Each stage a drain started in keeps its own totals
    /// and a set of latency histograms for the whole phase (0.4–0.8 MiB:
    /// results/memory-per-pager-and-stage.md), so 1,000 stages hold up to 0.8 GiB.
    public static let maximumStages = 1_000
    /// The longest plan: a phase lasts at most 24 hours (as `durationSeconds` does).
    public static let maximumDurationNanoseconds = 86_400_000_000_000

    /// Validates and builds a plan.
    ///
    /// - Throws: ``HarnessError`` (`invalidField` on `field`) for no stages, more than
    ///   ``maximumStages``, a stage shorter than 1 ms, stages that last more than 24 hours in
    ///   all, a negative or non-finite target, a fractional pager count, or more than
    ///   1,000,000 pagers.
    public init(target: Target, stages: [Stage], field: String = "workload.stages") throws(HarnessError) {
        guard !stages.isEmpty else { throw .invalidField(field, "give at least one stage") }
        guard stages.count <= Self.maximumStages else {
            throw .invalidField(
                field,
                "has \(stages.count) stages; a plan has at most \(Self.maximumStages) (each stage keeps its own "
                    + "totals and latency histograms, 0.4-0.8 MiB, for the whole phase)"
            )
        }
        var total = 0
        for (index, stage) in stages.enumerated() {
            let name = "\(field)[\(index)]"
            guard stage.durationNanoseconds >= 1_000_000 else {
                throw .invalidField(name, "a stage lasts at least 1ms")
            }
            // Summed here, bounded, so that no later sum of the plan can overflow.
            guard stage.durationNanoseconds <= Self.maximumDurationNanoseconds - total else {
                throw .invalidField(
                    name,
                    "the stages last more than 24h up to here; a phase (the whole plan) lasts at most 24h"
                )
            }
            total += stage.durationNanoseconds
            for value in [stage.start, stage.end] {
                guard value.isFinite, value >= 0 else {
                    throw .invalidField(name, "the target must be a non-negative number, not \(value)")
                }
                if target == .pagers {
                    guard value == value.rounded(), value <= 1_000_000 else {
                        throw .invalidField(name, "pagers must be a whole number from 0 to 1000000, not \(value)")
                    }
                }
            }
        }
        guard target == .rate || stages.contains(where: { max($0.start, $0.end) >= 1 }) else {
            throw .invalidField(field, "every stage has 0 pagers: no drain would ever run")
        }
        guard target == .pagers || stages.contains(where: { max($0.start, $0.end) > 0 }) else {
            throw .invalidField(field, "every stage has rate 0: no drain would ever start")
        }
        self.target = target
        self.stages = stages
    }

    /// Parses the text form (`--stages`).
    ///
    /// - Throws: ``HarnessError`` naming the stage that is malformed, or a plan that mixes
    ///   pagers and rates.
    public init(parsing text: String, field: String = "--stages") throws(HarnessError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            WorkloadText.trimmed(String($0))
        }
        var target: Target?
        var stages: [Stage] = []
        var previous = 0.0
        for (index, part) in parts.enumerated() {
            let name = "\(field) stage \(index + 1) '\(part)'"
            guard let colon = part.firstIndex(of: ":") else {
                throw .invalidField(
                    name,
                    "write DURATION:TARGET or DURATION:FROM-TO, e.g. '30s:0-64' or '20s:100/s-2000/s'"
                )
            }
            let duration = try WorkloadText.durationNanoseconds(String(part[..<colon]), field: name)
            let values = part[part.index(after: colon)...]
            let ends = values.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count == 1 || ends.count == 2 else {
                throw .invalidField(name, "a target is one value or FROM-TO")
            }
            var parsed: [Double] = []
            for end in ends {
                let isRate = end.hasSuffix("/s")
                let kind: Target = isRate ? .rate : .pagers
                if let target, target != kind {
                    throw .invalidField(
                        name,
                        "a plan sets pagers (e.g. 64) or rates (e.g. 100/s) in every stage, not both"
                    )
                }
                target = kind
                let number = isRate ? end.dropLast(2) : end[...]
                parsed.append(try WorkloadText.number(number, field: name, example: isRate ? "100/s" : "64"))
            }
            let stage = Stage(
                durationNanoseconds: duration,
                start: parsed.count == 2 ? parsed[0] : previous,
                end: parsed.last!
            )
            stages.append(stage)
            previous = stage.end
        }
        try self.init(target: target ?? .pagers, stages: stages, field: field)
    }

    /// Where a plan is at an instant: the stage (0-based) and the target value there.
    public struct Position: Sendable, Equatable {
        public var stage: Int
        /// The interpolated target (fractional along a ramp).
        public var value: Double
    }

    /// The stage and target `nanoseconds` after the plan started; past the end, the last
    /// stage's end value. A boundary instant belongs to the stage that starts there.
    public func position(atNanoseconds nanoseconds: Int) -> Position {
        var elapsed = max(0, nanoseconds)
        for (index, stage) in stages.enumerated() {
            if elapsed < stage.durationNanoseconds {
                let fraction = Double(elapsed) / Double(stage.durationNanoseconds)
                return Position(stage: index, value: stage.start + (stage.end - stage.start) * fraction)
            }
            elapsed -= stage.durationNanoseconds
        }
        return Position(stage: stages.count - 1, value: stages[stages.count - 1].end)
    }

    /// The number of pagers a closed-loop plan asks for at an instant (nearest whole pager).
    public func pagers(atNanoseconds nanoseconds: Int) -> Int {
        Int(position(atNanoseconds: nanoseconds).value.rounded())
    }

    /// The nanosecond offsets at which each stage starts (the first is 0).
    public var stageStartsNanoseconds: [Int] {
        var starts: [Int] = []
        var total = 0
        for stage in stages {
            starts.append(total)
            total += stage.durationNanoseconds
        }
        return starts
    }

    /// The first whole nanosecond after `elapsed` at which the plan moves on: the pager count
    /// (``pagers(atNanoseconds:)``) changes, or a stage (or the plan) ends; nil from the end
    /// of the plan on. A closed-loop controller sleeps until this instant, so it wakes exactly
    /// when there is something to do and never misses a change (H4).
    public func nextChangeNanoseconds(after elapsed: Int) -> Int? {
        let elapsed = max(0, elapsed)
        guard elapsed < durationNanoseconds else { return nil }
        var stageStart = 0
        for stage in stages {
            let stageEnd = stageStart + stage.durationNanoseconds
            defer { stageStart = stageEnd }
            guard elapsed < stageEnd else { continue }
            guard target == .pagers, stage.start != stage.end else { return stageEnd }
            let current = pagers(atNanoseconds: elapsed)
            // Rounding changes where the line crosses the next half pager.
            let threshold = Double(current) + (stage.end > stage.start ? 0.5 : -0.5)
            let offset = (threshold - stage.start) * Double(stage.durationNanoseconds) / (stage.end - stage.start)
            var candidate = offset.isFinite ? stageStart + Int(min(offset.rounded(.up), 1e15)) : stageEnd
            candidate = min(max(candidate, elapsed + 1), stageEnd)
            // The formula is within a rounding error of the answer: settle it on the integer
            // instants the controller samples, so that it is the first changed one.
            while candidate - 1 > elapsed, pagers(atNanoseconds: candidate - 1) != current { candidate -= 1 }
            while candidate < stageEnd, pagers(atNanoseconds: candidate) == current { candidate += 1 }
            return candidate
        }
        return nil
    }

    /// An open-loop plan's arrival schedule: the instant (nanoseconds after the plan started)
    /// at which `arrivals` drains have been offered, counting the rate's integral (drains
    /// per second, linear within each stage) from the start; nil when the plan ends first.
    ///
    /// Drain `k` of a fixed schedule starts at `arrivals = k + 1`, so a steady rate `r` offers
    /// its first drain at `1/r`, and a stage at rate 0 offers none. A Poisson schedule passes
    /// the running sum of unit-mean exponential draws (the time change of a unit-rate Poisson
    /// process). Within a stage from rate `a` to `b` over `D` seconds the integral is
    /// `a·t + (b−a)·t²/(2D)`, solved for `t` exactly rather than stepped per tick.
    public func arrivalOffsetNanoseconds(arrivals: Double) -> Double? {
        guard target == .rate, arrivals.isFinite else { return nil }
        var remaining = max(0, arrivals)
        var offset = 0.0
        for stage in stages {
            let seconds = Double(stage.durationNanoseconds) / 1e9
            let a = stage.start
            let b = stage.end
            let mass = (a + b) / 2 * seconds
            if remaining <= mass {
                let t: Double
                if remaining <= 0 {
                    t = 0
                } else if a == b {
                    t = remaining / a
                } else {
                    // The root of (b−a)/(2D)·t² + a·t − m = 0 in [0, D], in the form that does
                    // not cancel when b−a is small.
                    let discriminant = max(0, a * a + 2 * (b - a) * remaining / seconds)
                    t = 2 * remaining / (a + discriminant.squareRoot())
                }
                return offset + min(max(0, t), seconds) * 1e9
            }
            remaining -= mass
            offset += seconds * 1e9
        }
        return nil
    }

    /// The text form, which parses back to the same plan.
    public var description: String {
        func value(_ number: Double) -> String {
            let text = number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
            return target == .rate ? "\(text)/s" : text
        }
        return stages.map { "\(WorkloadText.durationText($0.durationNanoseconds)):\(value($0.start))-\(value($0.end))" }
            .joined(separator: ",")
    }
}

extension StagePlan: Codable {
    static let stageKeys = ["duration", "pagers", "rate", "from"]

    /// Decodes a scenario's `workload.stages`: the text form (`"30s:0-64,60s:64"`) or a list of
    /// `{"duration": "30s", "pagers": 64}` / `{"duration": "20s", "rate": 2000}` objects, each
    /// ramping from the previous stage's target (0 before the first) unless it gives `from`.
    ///
    /// - Throws: ``HarnessError`` naming `workload.stages[i].<key>`.
    public init(from decoder: any Decoder) throws {
        let field = "workload.stages"
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            try self.init(parsing: text, field: field)
            return
        }
        guard var list = try? decoder.unkeyedContainer() else {
            throw HarnessError.invalidField(
                field,
                "give a list of stages, e.g. [{\"duration\": \"30s\", \"pagers\": 64}], or the text form \"30s:0-64,60s:64\""
            )
        }
        var target: Target?
        var stages: [Stage] = []
        var previous = 0.0
        while !list.isAtEnd {
            let name = "\(field)[\(stages.count)]"
            let container: KeyedDecodingContainer<AnyKey>
            do {
                container = try list.nestedContainer(keyedBy: AnyKey.self)
            } catch {
                throw HarnessError.invalidField(
                    name,
                    "a stage is an object such as {\"duration\": \"30s\", \"pagers\": 64}"
                )
            }
            try Workload.rejectUnknownKeys(container, known: Self.stageKeys, path: name)
            guard let duration = try container.decodeIfPresent(String.self, forKey: AnyKey("duration")) else {
                throw HarnessError.invalidField(name + ".duration", "give the stage's length with a unit, e.g. \"30s\"")
            }
            let nanoseconds = try WorkloadText.durationNanoseconds(duration, field: name + ".duration")
            let pagers = try container.decodeIfPresent(Double.self, forKey: AnyKey("pagers"))
            let rate = try container.decodeIfPresent(Double.self, forKey: AnyKey("rate"))
            let kind: Target
            let end: Double
            switch (pagers, rate) {
            case (.some(let value), nil): (kind, end) = (.pagers, value)
            case (nil, .some(let value)): (kind, end) = (.rate, value)
            default:
                throw HarnessError.invalidField(
                    name,
                    "give either pagers (closed loop) or rate (open loop, drains per second), not \(pagers == nil ? "neither" : "both")"
                )
            }
            if let target, target != kind {
                throw HarnessError.invalidField(
                    name,
                    "every stage of a plan sets pagers, or every stage sets rate; not both"
                )
            }
            target = kind
            let start = try container.decodeIfPresent(Double.self, forKey: AnyKey("from")) ?? previous
            stages.append(Stage(durationNanoseconds: nanoseconds, start: start, end: end))
            previous = end
        }
        try self.init(target: target ?? .pagers, stages: stages, field: field)
    }

    /// Encodes the list form; `from` only where a stage does not start at the previous target.
    public func encode(to encoder: any Encoder) throws {
        var list = encoder.unkeyedContainer()
        var previous = 0.0
        for stage in stages {
            var container = list.nestedContainer(keyedBy: AnyKey.self)
            try container.encode(WorkloadText.durationText(stage.durationNanoseconds), forKey: AnyKey("duration"))
            if stage.start != previous { try container.encode(stage.start, forKey: AnyKey("from")) }
            try container.encode(stage.end, forKey: AnyKey(target == .pagers ? "pagers" : "rate"))
            previous = stage.end
        }
    }
}
