/// Receives what a phase is doing, for a progress display. Called from background tasks of
/// the phase; implementations must be quick and thread-safe.
public protocol PhaseObserver: Sendable {
    /// A phase (scenario × concurrency × repetition, with or without timing) starts.
    func phaseStarted(_ phase: PhaseDescription)
    /// Periodic progress of the current phase.
    func progress(_ snapshot: ProgressSnapshot)
    /// A phase ended with this result.
    func phaseEnded(_ phase: PhaseDescription, result: PhaseResult)
}

/// Which phase of a sweep this is.
public struct PhaseDescription: Sendable, Hashable {
    /// What the progress lines call the phase's configuration: its scenario's label (issue 26:
    /// `limit=100` in a sweep) or, without one, its name.
    public var scenario: String
    public var concurrency: Int
    public var repetition: Int
    /// Whether this is the timing-off phase of a measurement-overhead pair.
    public var isOverheadPhase: Bool
    /// 1-based position in the sweep and the sweep's length.
    public var ordinal: Int
    public var total: Int
    /// Expected seconds of this phase (warm-up + duration), nil when bounded by drain count.
    public var expectedSeconds: Double?

    public init(
        scenario: String, concurrency: Int, repetition: Int, isOverheadPhase: Bool, ordinal: Int, total: Int,
        expectedSeconds: Double?
    ) {
        self.scenario = scenario
        self.concurrency = concurrency
        self.repetition = repetition
        self.isOverheadPhase = isOverheadPhase
        self.ordinal = ordinal
        self.total = total
        self.expectedSeconds = expectedSeconds
    }
}

/// A moment of the current phase.
public struct ProgressSnapshot: Sendable, Hashable {
    public var scenario: String
    public var concurrency: Int
    public var repetition: Int
    public var isWarmup: Bool
    /// Seconds since the current phase (warm-up or measured) started.
    public var phaseElapsedSeconds: Double
    /// How much of the phase is done (0…1): elapsed ÷ duration, or drains ÷ drain count.
    public var phaseFraction: Double
    /// Pages per second since the previous snapshot.
    public var pagesPerSecond: Double
    /// Pages of the current phase so far.
    public var pages: Int

    public init(
        scenario: String, concurrency: Int, repetition: Int, isWarmup: Bool, phaseElapsedSeconds: Double,
        phaseFraction: Double, pagesPerSecond: Double, pages: Int
    ) {
        self.scenario = scenario
        self.concurrency = concurrency
        self.repetition = repetition
        self.isWarmup = isWarmup
        self.phaseElapsedSeconds = phaseElapsedSeconds
        self.phaseFraction = phaseFraction
        self.pagesPerSecond = pagesPerSecond
        self.pages = pages
    }
}
