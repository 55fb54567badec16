/// A load shape: a list of stages, each a duration and a target, ramped linearly within the
/// stage from the previous stage's target (SEMANTICS H4, k6's `stages` model).
///
/// All stages of one plan target the same thing: a number of concurrent pagers (closed loop)
/// or an arrival rate in drains per second (open loop). The first stage ramps from 0 unless it
/// names its start (`30s:8-64`); a stage with a start different from the previous target jumps
/// to it at the stage boundary.
///
/// Text form (`--stages`): comma-separated `DURATION:TARGET` or `DURATION:FROM-TO`, with rates
/// written `N/s`: `30s:0-64,60s:64,30s:64-0` or `20s:100/s-2000/s`.
public struct StagePlan: Sendable, Equatable, CustomStringConvertible {
    /// What the stages set.
    public enum Target: String, Sendable, Equatable {
        /// Concurrent pagers (closed loop); fractional values along a ramp are rounded to the
        /// nearest pager.
        case pagers
        /// Drain arrivals per second (open loop).
        case rate
    }

    /// One stage: `durationNanoseconds` long, moving linearly from `start` to `end`.
    public struct Stage: Sendable, Equatable {
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

    /// Validates and builds a plan.
    ///
    /// - Throws: ``HarnessError`` (`invalidField` on `field`) for no stages, a stage shorter
    ///   than 1 ms, a negative or non-finite target, a fractional pager count, or more than
    ///   1,000,000 pagers.
    public init(target: Target, stages: [Stage], field: String = "workload.stages") throws(HarnessError) {
        guard !stages.isEmpty else { throw .invalidField(field, "give at least one stage") }
        for (index, stage) in stages.enumerated() {
            let name = "\(field)[\(index)]"
            guard stage.durationNanoseconds >= 1_000_000 else {
                throw .invalidField(name, "a stage lasts at least 1ms")
            }
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
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { WorkloadText.trimmed(String($0)) }
        var target: Target?
        var stages: [Stage] = []
        var previous = 0.0
        for (index, part) in parts.enumerated() {
            let name = "\(field) stage \(index + 1) '\(part)'"
            guard let colon = part.firstIndex(of: ":") else {
                throw .invalidField(name, "write DURATION:TARGET or DURATION:FROM-TO, e.g. '30s:0-64' or '20s:100/s-2000/s'")
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
                    throw .invalidField(name, "a plan sets pagers (e.g. 64) or rates (e.g. 100/s) in every stage, not both")
                }
                target = kind
                let number = isRate ? end.dropLast(2) : end[...]
                parsed.append(try WorkloadText.number(number, field: name, example: isRate ? "100/s" : "64"))
            }
            let stage = Stage(durationNanoseconds: duration, start: parsed.count == 2 ? parsed[0] : previous, end: parsed.last!)
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
