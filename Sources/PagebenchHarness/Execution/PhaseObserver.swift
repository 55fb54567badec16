import PagebenchMetrics

/// Receives what a phase is doing, for a progress display. Called from background tasks of
/// the phase; implementations must be quick and thread-safe.
public protocol PhaseObserver: Sendable {
    /// A phase (scenario × concurrency × repetition, with or without timing) starts.
    func phaseStarted(_ phase: PhaseDescription)
    /// Periodic progress of the current phase.
    func progress(_ snapshot: ProgressSnapshot)
    /// A phase ended with this result.
    func phaseEnded(_ phase: PhaseDescription, result: PhaseResult)
    /// A time-series interval (one second, or to a stage's boundary) ended, with the page
    /// latencies pagers handed over in it (``PhaseRunner/Options/timeSeries`` only; the row's
    /// stage fields are set). Called as each interval ends, before the next begins.
    func intervalEnded(_ row: TimeSeriesRow, pageLatencies: LatencyRecorder)
    /// Whether its ``ProgressSnapshot``s carry the measured phase's page latencies so far
    /// (``ProgressSnapshot/pageLatency``: a merge of the phase's shared histograms per snapshot).
    var wantsPageLatency: Bool { get }
}

extension PhaseObserver {
    /// Observers that need no time series ignore it.
    public func intervalEnded(_ row: TimeSeriesRow, pageLatencies: LatencyRecorder) {}
    /// Observers that show no latency need none.
    public var wantsPageLatency: Bool { false }
}

/// Several observers of one sweep, each told everything in the order given.
public struct PhaseObservers: PhaseObserver {
    public let observers: [any PhaseObserver]

    public init(_ observers: [any PhaseObserver]) {
        self.observers = observers
    }

    public func phaseStarted(_ phase: PhaseDescription) {
        for observer in observers { observer.phaseStarted(phase) }
    }

    public func progress(_ snapshot: ProgressSnapshot) {
        for observer in observers { observer.progress(snapshot) }
    }

    public func phaseEnded(_ phase: PhaseDescription, result: PhaseResult) {
        for observer in observers { observer.phaseEnded(phase, result: result) }
    }

    public func intervalEnded(_ row: TimeSeriesRow, pageLatencies: LatencyRecorder) {
        for observer in observers { observer.intervalEnded(row, pageLatencies: pageLatencies) }
    }

    public var wantsPageLatency: Bool { observers.contains { $0.wantsPageLatency } }
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
    /// The pager kind of the phase's workload (`loop`, `apollo-loadAll`, …).
    public var pager = ""
    /// Seconds of warm-up before the measured phase (0 for none).
    public var warmupSeconds: Double = 0
    /// Whether the phase runs a stage plan (H4): it ends once per stage.
    public var isStaged = false
    /// Pagers of this process in the phase (its shard's; a staged plan's pool).
    public var pagers = 0
    /// Open loop: the planned drains per second of this process (nil: closed loop or staged).
    public var offeredDrainsPerSecond: Double?

    public init(
        scenario: String,
        concurrency: Int,
        repetition: Int,
        isOverheadPhase: Bool,
        ordinal: Int,
        total: Int,
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
public struct ProgressSnapshot: Sendable, Equatable {
    public var scenario: String
    public var concurrency: Int
    public var repetition: Int
    public var isWarmup: Bool
    /// Seconds since the current phase (warm-up or measured) started.
    public var phaseElapsedSeconds: Double
    /// How much of the phase is done (0…1): elapsed ÷ duration, or drains ÷ drain count.
    public var phaseFraction: Double
    /// Pages (requests: one a page) per second since the previous snapshot.
    public var pagesPerSecond: Double
    /// Drains ended as the `drains` column counts them, per second since the previous
    /// snapshot (shown beside the requests/s, issue 35).
    public var drainsPerSecond: Double
    /// Pages of the current phase so far.
    public var pages: Int
    /// Items of those pages (published with them, H7).
    public var items = 0
    /// Drains of the current phase ended as the `drains` column counts them (drained,
    /// stopped or abandoned).
    public var drains = 0
    /// The measured phase: what its ended drains counted so far (empty in warm-up; an unstaged phase's).
    public var counts = LiveCounts()
    /// The measured phase's page latencies so far, when the observer asks for them
    /// (``PhaseObserver/wantsPageLatency``; an unstaged phase's).
    public var pageLatency: LatencyRecorder?

    public init(
        scenario: String,
        concurrency: Int,
        repetition: Int,
        isWarmup: Bool,
        phaseElapsedSeconds: Double,
        phaseFraction: Double,
        pagesPerSecond: Double,
        pages: Int,
        items: Int = 0,
        drains: Int = 0,
        drainsPerSecond: Double = 0,
        counts: LiveCounts = LiveCounts(),
        pageLatency: LatencyRecorder? = nil
    ) {
        self.scenario = scenario
        self.concurrency = concurrency
        self.repetition = repetition
        self.isWarmup = isWarmup
        self.phaseElapsedSeconds = phaseElapsedSeconds
        self.phaseFraction = phaseFraction
        self.pagesPerSecond = pagesPerSecond
        self.pages = pages
        self.items = items
        self.drains = drains
        self.drainsPerSecond = drainsPerSecond
        self.counts = counts
        self.pageLatency = pageLatency
    }
}
