/// The search for the knee (docs/contract.md H5): the highest open-loop arrival rate at which an SLO
/// holds over a whole step and the step sustains the rate it offers (``Verdict``).
///
/// A pure state machine: ``next()`` says which rate to measure, ``record(rate:held:)`` takes the
/// verdict. It doubles the rate from `startRate` while the SLO holds (capped at `maxRate`),
/// then bisects between the highest rate that held and the lowest that broke until they are
/// within `resolution` of each other (relative to the rate that held). If the first step
/// already breaks, it halves until a rate holds (at most ``maxHalvings`` times) and bisects
/// from there.
///
/// Termination is bounded whatever the verdicts are (a flat, a cliff-shaped or a noisy latency
/// curve): every bisection step halves the gap, doubling stops at `maxRate`, halving at
/// ``maxHalvings``, and no search takes more than `maxSteps` steps. The invariant
/// `highestHeld < lowestBroken` holds throughout: a noisy verdict can only move one end
/// inwards.
public struct KneeSearch: Sendable, Equatable {
    /// One measured step.
    public struct Step: Sendable, Equatable {
        /// Drains per second the step offered.
        public var rate: Double
        /// Whether the SLO held over the whole step.
        public var held: Bool
    }

    /// Why the search ended.
    public enum Ending: String, Sendable, Equatable {
        /// The held and broken rates are within the resolution: ``Result/knee`` is the answer.
        case resolved
        /// The SLO held at `maxRate`: the knee is at or above it.
        case heldAtMaxRate
        /// No rate held, down to `startRate / 2^maxHalvings`.
        case neverHeld
        /// `maxSteps` steps were measured before the resolution was reached.
        case stepLimit
        /// A signal stopped the search (H6) before it ended: ``Result/knee`` is the highest
        /// rate that held so far.
        case interrupted
    }

    /// The outcome: the highest rate that held (nil when none did), the lowest that broke
    /// (nil when none did), why it ended, and every step in order.
    public struct Result: Sendable, Equatable {
        public var knee: Double?
        public var lowestBroken: Double?
        public var ending: Ending
        public var steps: [Step]
    }

    /// What to do next.
    public enum Action: Sendable, Equatable {
        case measure(rate: Double)
        case finished(Result)
    }

    /// How many times a search whose first step breaks halves the rate before giving up.
    public static let maxHalvings = 10

    public let startRate: Double
    public let maxRate: Double
    /// The relative gap at which bisection stops: 0.05 means the knee is known to within 5 %.
    public let resolution: Double
    public let maxSteps: Int
    /// The fraction of the offered rate a step must achieve to hold (``Verdict``): 0.95 means
    /// at least 95 drains/s started of 100/s offered; 0 judges on the SLOs alone.
    public let minAchievedFraction: Double

    private(set) var highestHeld: Double?
    private(set) var lowestBroken: Double?
    private(set) var steps: [Step] = []
    private var pending: Double?

    /// - Throws: ``HarnessError`` naming the flag for a rate that is not positive and finite,
    ///   `maxRate < startRate`, a resolution outside (0, 1), fewer than 2 steps, or a
    ///   minimum achieved fraction outside [0, 1].
    public init(
        startRate: Double,
        maxRate: Double? = nil,
        resolution: Double = 0.05,
        maxSteps: Int = 40,
        minAchievedFraction: Double = 0.95
    ) throws(HarnessError) {
        // The rates a step's run takes (issue 24: --from 1e300 made the default --max-rate inf).
        let rates = Workload.openLoopRates
        guard startRate.isFinite, rates.contains(startRate) else {
            throw HarnessError(
                .invalidArgument,
                "--from: the first rate must be from \(rates.lowerBound) to \(Int(rates.upperBound)) drains/s (what a step's run takes), not \(startRate)"
            )
        }
        let maxRate = maxRate ?? min(startRate * 1_048_576, rates.upperBound)
        guard maxRate.isFinite, maxRate >= startRate, maxRate <= rates.upperBound else {
            throw HarnessError(
                .invalidArgument,
                "--max-rate (\(maxRate)) must be a number from --from (\(startRate)) to \(Int(rates.upperBound)) drains/s"
            )
        }
        guard resolution.isFinite, resolution > 0, resolution < 1 else {
            throw HarnessError(
                .invalidArgument,
                "--resolution must be between 0 % and 100 % (exclusive), not \(resolution * 100) %"
            )
        }
        guard maxSteps >= 2 else {
            throw HarnessError(.invalidArgument, "a knee search needs at least 2 steps, not \(maxSteps)")
        }
        guard minAchievedFraction.isFinite, minAchievedFraction >= 0, minAchievedFraction <= 1 else {
            throw HarnessError(
                .invalidArgument,
                "--min-achieved must be between 0 % and 100 % of the offered rate (0: judge on the SLOs alone), not \(minAchievedFraction * 100) %"
            )
        }
        self.startRate = startRate
        self.maxRate = maxRate
        self.resolution = resolution
        self.maxSteps = maxSteps
        self.minAchievedFraction = minAchievedFraction
    }

    /// Whether a step held (H5): its SLOs held over the whole step, and it achieved at least
    /// ``KneeSearch/minAchievedFraction`` of the rate it offered.
    ///
    /// The SLOs alone can pass a rate the system did not sustain: in a step shorter than the
    /// time a growing backlog needs to push the latency percentile past its bound, a saturated
    /// service starts and completes drains at its capacity, below the offered rate, while the
    /// percentile still looks healthy. The achieved rate sees that at once. It counts the
    /// drains the step *started* (ended, or still in flight when it ended): a step that keeps
    /// up starts every drain it offers however short it is, while counting completions only
    /// would lose rate × drain latency of them at its end. A saturated step starts its
    /// capacity plus at most one drain per pager slot.
    public struct Verdict: Sendable, Equatable {
        /// Drains per second the step offered.
        public var rate: Double
        /// Drains per second the step started: those that ended or were cancelled (in flight at
        /// its end), ÷ its length.
        public var achievedRate: Double
        /// Whether every SLO held over the step.
        public var sloHeld: Bool
        /// The fraction of `rate` that `achievedRate` must reach.
        public var minAchievedFraction: Double

        /// `achievedRate ÷ rate` (higher is better; 1 when the step kept up exactly).
        public var achievedFraction: Double { rate > 0 ? achievedRate / rate : 0 }
        /// Whether the step achieved enough of what it offered.
        public var sustained: Bool { achievedFraction >= minAchievedFraction }
        /// Whether the step held: the SLOs and the throughput condition.
        public var held: Bool { sloHeld && sustained }
    }

    /// The verdict of a step at `rate` that started `achievedRate` drains/s, its SLOs
    /// having held (`sloHeld`) or not.
    public func judge(rate: Double, achievedRate: Double, sloHeld: Bool) -> Verdict {
        Verdict(rate: rate, achievedRate: achievedRate, sloHeld: sloHeld, minAchievedFraction: minAchievedFraction)
    }

    /// The next rate to measure, or the result. Calling it again before ``record(rate:held:)``
    /// returns the same rate.
    public mutating func next() -> Action {
        if let pending { return .measure(rate: pending) }
        let rate: Double
        if let ending = ending() {
            return .finished(Result(knee: highestHeld, lowestBroken: lowestBroken, ending: ending, steps: steps))
        }
        switch (highestHeld, lowestBroken) {
        case (nil, nil):
            rate = startRate
        case (let held?, nil):
            rate = min(held * 2, maxRate)
        case (nil, let broken?):
            rate = broken / 2
        case (let held?, let broken?):
            rate = (held + broken) / 2
        }
        pending = rate
        return .measure(rate: rate)
    }

    /// What the steps recorded so far found, for a search a signal stopped (H6): the step in
    /// progress, cut short, is not one of them.
    public func interrupted() -> Result {
        Result(knee: highestHeld, lowestBroken: lowestBroken, ending: .interrupted, steps: steps)
    }

    /// Takes the verdict of the step at `rate` (the rate ``next()`` asked for).
    public mutating func record(rate: Double, held: Bool) {
        precondition(rate == pending, "record the rate next() asked for")
        pending = nil
        steps.append(Step(rate: rate, held: held))
        if held {
            highestHeld = max(highestHeld ?? rate, rate)
        } else {
            lowestBroken = min(lowestBroken ?? rate, rate)
        }
    }

    private func ending() -> Ending? {
        if let held = highestHeld, let broken = lowestBroken, (broken - held) <= resolution * held {
            return .resolved
        }
        if lowestBroken == nil, let held = highestHeld, held >= maxRate { return .heldAtMaxRate }
        if highestHeld == nil, let broken = lowestBroken,
            broken <= startRate / Double(1 << Self.maxHalvings) || broken / 2 < Workload.openLoopRates.lowerBound
        {
            return .neverHeld
        }
        if steps.count >= maxSteps { return .stepLimit }
        return nil
    }

    /// Takes a step's ``Verdict`` (for the rate ``next()`` asked for).
    public mutating func record(_ verdict: Verdict) {
        record(rate: verdict.rate, held: verdict.held)
    }

    /// Runs a whole search: `measure(rate)` runs one step at that rate and says whether it
    /// held. Errors and cancellation from `measure` end the search and propagate.
    public static func run(
        _ search: KneeSearch,
        measure: (Double) async throws -> Bool
    ) async rethrows -> Result {
        var search = search
        while true {
            switch search.next() {
            case .finished(let result):
                return result
            case .measure(let rate):
                let held = try await measure(rate)
                search.record(rate: rate, held: held)
            }
        }
    }
}
