/// Receives what a run is doing, for a progress display. Called from background tasks of
/// the run; implementations must be quick and thread-safe.
public protocol RunObserver: Sendable {
    /// A run (scenario × concurrency × repetition, with or without timing) starts.
    func runStarted(_ run: RunDescription)
    /// Periodic progress of the current run.
    func progress(_ snapshot: ProgressSnapshot)
    /// A run ended with this result.
    func runEnded(_ run: RunDescription, result: RunResult)
}

/// Which run of a sweep this is.
public struct RunDescription: Sendable, Hashable {
    /// What the progress lines call the run's configuration: its scenario's label (issue 26:
    /// `limit=100` in a sweep) or, without one, its name.
    public var scenario: String
    public var concurrency: Int
    public var repetition: Int
    /// Whether this is the timing-off run of a measurement-overhead pair.
    public var isOverheadRun: Bool
    /// 1-based position in the sweep and the sweep's length.
    public var ordinal: Int
    public var total: Int
    /// Expected seconds of this run (warm-up + duration), nil when bounded by drain count.
    public var expectedSeconds: Double?

    public init(
        scenario: String, concurrency: Int, repetition: Int, isOverheadRun: Bool, ordinal: Int, total: Int,
        expectedSeconds: Double?
    ) {
        self.scenario = scenario
        self.concurrency = concurrency
        self.repetition = repetition
        self.isOverheadRun = isOverheadRun
        self.ordinal = ordinal
        self.total = total
        self.expectedSeconds = expectedSeconds
    }
}

/// A moment of the current run.
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
