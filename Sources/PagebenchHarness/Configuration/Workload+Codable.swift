import PagebenchPage
import PagebenchStore

/// A coding key for any JSON key, so that unknown keys can be found and reported.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Workload: Codable {
    static let jsonKeys = [
        "pager", "concurrency", "read", "limit", "filter", "reverse", "drain", "load", "drains", "durationSeconds",
        "warmupSeconds", "repetitions", "cancelFraction", "cancelAtEnd", "retry", "seed", "pageTiming",
        "measureOverhead", "yieldEveryPages", "stages", "rampDown", "watchSeconds",
    ]

    /// Decodes the `workload` object of a scenario file. Missing keys take their defaults;
    /// an unknown key or a bad value throws ``HarnessError`` naming `workload.<key>`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        try Self.rejectUnknownKeys(container, known: Self.jsonKeys, path: "workload")
        func text(_ key: String) throws -> String? { try container.decodeIfPresent(String.self, forKey: AnyKey(key)) }
        self.init()
        if let value = try text("pager") { pager = try PagerKind(parsing: value) }
        if container.contains(AnyKey("concurrency")) {
            if let single = try? container.decode(Int.self, forKey: AnyKey("concurrency")) {
                concurrency = [single]
            } else if let list = try? container.decode([Int].self, forKey: AnyKey("concurrency")) {
                concurrency = list
            } else {
                throw HarnessError.invalidField(
                    "workload.concurrency",
                    "must be a whole number or a list of them, e.g. [1, 8, 64]"
                )
            }
        }
        if let value = try text("read") { read = try ReadRange(parsing: value) }
        limit = try container.decodeIfPresent(Int.self, forKey: AnyKey("limit"))
        if let value = try text("filter") {
            do {
                filter = value.lowercased() == "none" ? nil : try Filter(parsing: value)
            } catch {
                throw HarnessError.invalidField("workload.filter", error.message)
            }
        }
        reverse = try container.decodeIfPresent(Bool.self, forKey: AnyKey("reverse")) ?? reverse
        if let value = try text("drain") { drain = try DrainMode(parsing: value) }
        if let value = try text("load") { load = try LoadModel(parsing: value) }
        let drains = try container.decodeIfPresent(Int.self, forKey: AnyKey("drains"))
        let duration = try container.decodeIfPresent(Double.self, forKey: AnyKey("durationSeconds"))
        switch (drains, duration) {
        case (.some, .some):
            throw HarnessError.invalidField(
                "workload.durationSeconds",
                "give either drains or durationSeconds, not both"
            )
        case (.some(let count), nil): bound = .drains(count)
        case (nil, .some(let seconds)): bound = .duration(seconds: seconds)
        case (nil, nil): break
        }
        warmupSeconds = try container.decodeIfPresent(Double.self, forKey: AnyKey("warmupSeconds")) ?? warmupSeconds
        repetitions = try container.decodeIfPresent(Int.self, forKey: AnyKey("repetitions")) ?? repetitions
        cancelFraction = try container.decodeIfPresent(Double.self, forKey: AnyKey("cancelFraction")) ?? cancelFraction
        cancelAtEnd = try container.decodeIfPresent(Bool.self, forKey: AnyKey("cancelAtEnd")) ?? cancelAtEnd
        retry = try container.decodeIfPresent(RetrySettings.self, forKey: AnyKey("retry")) ?? retry
        seed = try container.decodeIfPresent(UInt64.self, forKey: AnyKey("seed"))
        pageTiming = try container.decodeIfPresent(Bool.self, forKey: AnyKey("pageTiming")) ?? pageTiming
        measureOverhead = try container.decodeIfPresent(Bool.self, forKey: AnyKey("measureOverhead")) ?? measureOverhead
        yieldEveryPages = try container.decodeIfPresent(Int.self, forKey: AnyKey("yieldEveryPages")) ?? yieldEveryPages
        if let value = try text("rampDown") { rampDown = try RampDown(parsing: value) }
        if let plan = try container.decodeIfPresent(StagePlan.self, forKey: AnyKey("stages")) {
            // What the plan sets may not also be given (H4).
            for key in ["drains", "durationSeconds"] where container.contains(AnyKey(key)) {
                throw HarnessError.invalidField("workload.\(key)", "the stages set the phase's length; drop \(key)")
            }
            if plan.target == .pagers, container.contains(AnyKey("concurrency")) {
                throw HarnessError.invalidField(
                    "workload.concurrency",
                    "pager stages set the pagers (the pool is the plan's peak); drop concurrency"
                )
            }
            if plan.target == .rate, case .open(let rate, _) = load, rate != 0 {
                throw HarnessError.invalidField(
                    "workload.load",
                    "the stages set the rate; write '\(LoadModel.open(drainsPerSecond: 0, poisson: load.isPoisson))' without ':\(rate)'"
                )
            }
            if plan.target == .rate, container.contains(AnyKey("load")), load == .closed {
                throw HarnessError.invalidField(
                    "workload.load",
                    "rate stages are open loop: give load 'open-fixed' or 'open-poisson' (without a rate)"
                )
            }
            setStages(plan)
        }
        watchSeconds = try container.decodeIfPresent(Double.self, forKey: AnyKey("watchSeconds")) ?? watchSeconds
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(pager.rawValue, forKey: AnyKey("pager"))
        // What a stage plan sets is left to it, so that the text decodes again (H4).
        if stages?.target != .pagers { try container.encode(concurrency, forKey: AnyKey("concurrency")) }
        try container.encode(read.description, forKey: AnyKey("read"))
        try container.encodeIfPresent(limit, forKey: AnyKey("limit"))
        try container.encodeIfPresent(filter?.description, forKey: AnyKey("filter"))
        try container.encode(reverse, forKey: AnyKey("reverse"))
        try container.encode(drain.description, forKey: AnyKey("drain"))
        try container.encode(load.description, forKey: AnyKey("load"))
        switch bound {
        case _ where stages != nil: break
        case .drains(let count): try container.encode(count, forKey: AnyKey("drains"))
        case .duration(let seconds): try container.encode(seconds, forKey: AnyKey("durationSeconds"))
        }
        try container.encode(warmupSeconds, forKey: AnyKey("warmupSeconds"))
        try container.encode(repetitions, forKey: AnyKey("repetitions"))
        try container.encode(cancelFraction, forKey: AnyKey("cancelFraction"))
        try container.encode(cancelAtEnd, forKey: AnyKey("cancelAtEnd"))
        try container.encode(retry, forKey: AnyKey("retry"))
        try container.encodeIfPresent(seed, forKey: AnyKey("seed"))
        try container.encode(pageTiming, forKey: AnyKey("pageTiming"))
        try container.encode(measureOverhead, forKey: AnyKey("measureOverhead"))
        try container.encode(yieldEveryPages, forKey: AnyKey("yieldEveryPages"))
        if let stages {
            try container.encode(stages, forKey: AnyKey("stages"))
            try container.encode(rampDown.rawValue, forKey: AnyKey("rampDown"))
        }
        if pager == .apolloWatch { try container.encode(watchSeconds, forKey: AnyKey("watchSeconds")) }
    }

    static func rejectUnknownKeys(_ container: KeyedDecodingContainer<AnyKey>, known: [String], path: String) throws {
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) {
            throw HarnessError.invalidField(
                "\(path).\(unknown)",
                "unknown key; known keys are \(known.joined(separator: ", "))"
            )
        }
    }
}

extension RetrySettings: Codable {
    static let jsonKeys = ["maxRetries", "initialBackoff", "maxBackoff", "multiplier", "jitter"]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        try Workload.rejectUnknownKeys(container, known: Self.jsonKeys, path: "workload.retry")
        self.init()
        maxRetries = try container.decodeIfPresent(Int.self, forKey: AnyKey("maxRetries")) ?? maxRetries
        if let text = try container.decodeIfPresent(String.self, forKey: AnyKey("initialBackoff")) {
            initialBackoffNanoseconds = try WorkloadText.durationNanoseconds(
                text,
                field: "workload.retry.initialBackoff"
            )
        }
        if let text = try container.decodeIfPresent(String.self, forKey: AnyKey("maxBackoff")) {
            maxBackoffNanoseconds = try WorkloadText.durationNanoseconds(text, field: "workload.retry.maxBackoff")
        }
        multiplier = try container.decodeIfPresent(Double.self, forKey: AnyKey("multiplier")) ?? multiplier
        jitter = try container.decodeIfPresent(Double.self, forKey: AnyKey("jitter")) ?? jitter
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(maxRetries, forKey: AnyKey("maxRetries"))
        try container.encode(WorkloadText.durationText(initialBackoffNanoseconds), forKey: AnyKey("initialBackoff"))
        try container.encode(WorkloadText.durationText(maxBackoffNanoseconds), forKey: AnyKey("maxBackoff"))
        try container.encode(multiplier, forKey: AnyKey("multiplier"))
        try container.encode(jitter, forKey: AnyKey("jitter"))
    }
}
