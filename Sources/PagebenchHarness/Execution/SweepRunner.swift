import PagebenchMetrics
import PagebenchPage
import PagebenchProcessStats
import PagebenchStore

/// Runs a list of scenarios on the synthetic store: for each scenario, each concurrency
/// value of its workload, each repetition, one measured phase (after warm-up); with
/// `measureOverhead`, a second phase with per-page timing off. Produces one ``ResultRow``
/// per scenario × concurrency × repetition.
public struct SweepRunner: Sendable {
    /// Options of a sweep.
    public struct Options: Sendable {
        /// The context every row carries.
        public var context: RunContext
        /// Collect per-second time-series rows.
        public var timeSeries = false
        /// Receives progress; nil for none.
        public var observer: (any PhaseObserver)?
        /// How often the observer gets progress snapshots.
        public var progressInterval: Duration = .seconds(1)
        /// The tick of the shared timer that waits out the store's injected service times
        /// (``CoalescingSleeper``); nil arms one `Task.sleep` per request instead. With
        /// hundreds of pagers, per-request timers saturate a small machine's runtime timer
        /// path, so the default coalesces them; delays are then rounded up to the tick.
        public var serviceTimerResolution: Duration? = .microseconds(250)
        /// Page a store served elsewhere instead of an in-process one (`--target URL`). The
        /// scenario's store configuration must describe that store: drains pick partitions
        /// and segments from it. Service time and faults are then the server's.
        public var remoteSource: RemotePageSource?
        /// This process's share of every phase (`--shard`); ``Shard/whole`` runs everything.
        public var shard: Shard = .whole
        /// Awaited before the first phase, once the first store is built (`--start-at`
        /// waits for a common start time here); throwing ends the sweep. Later phases
        /// follow on from the previous one.
        public var waitForStart: (@Sendable () async throws -> Void)?
        /// Stops the sweep early (H6): the phase in progress ends partial, no other starts.
        public var interruption: Interruption?
        /// Ends the sweep after a phase for which this returns true (a remote target that
        /// stopped answering: later phases would only measure failures).
        public var stopAfter: (@Sendable (PhaseResult) -> Bool)?
        /// Whether this process's cooperative pool runs nothing but the sweep (``PhaseRunner/Options/dedicatedPool``).
        public var dedicatedPool = false
        /// Counts each measured phase's instructions under callgrind
        /// (``PhaseRunner/Options/instructionCounter``); nil for none. Not the timing-off
        /// rerun of `measureOverhead`, nor the phases of a stage plan (their length is time).
        public var instructionCounter: InstructionCounter?

        public init(context: RunContext) {
            self.context = context
        }
    }

    /// Everything a sweep produced.
    public struct Output: Sendable {
        public var rows: [ResultRow]
        public var results: [PhaseResult]
        public var timeSeries: [TimeSeriesRow]

        public init(rows: [ResultRow], results: [PhaseResult], timeSeries: [TimeSeriesRow]) {
            self.rows = rows
            self.results = results
            self.timeSeries = timeSeries
        }
    }

    public let scenarios: [Scenario]
    public let options: Options

    /// - Precondition: every scenario was validated (``Scenario/validate()``).
    public init(scenarios: [Scenario], options: Options) {
        self.scenarios = scenarios
        self.options = options
    }

    /// How many measured phases the sweep runs (overhead runs included).
    public var runCount: Int {
        scenarios.reduce(0) { sum, scenario in
            let workload = scenario.workload
            return sum + workload.concurrency.count * workload.repetitions * (workload.measureOverhead ? 2 : 1)
        }
    }

    /// Runs the sweep. Returns early (with the rows so far) if the task is cancelled, also
    /// while waiting for ``Options/waitForStart``.
    ///
    /// - Throws: ``HarnessError`` if a store cannot be created from a scenario's configuration.
    public func run() async throws -> Output {
        var output = Output(rows: [], results: [], timeSeries: [])
        var ordinal = 0
        let total = runCount
        for scenario in scenarios {
            if let remote = options.remoteSource {
                if ordinal == 0, let waitForStart = options.waitForStart {
                    guard await startTogether(waitForStart) else { return output }
                }
                let runner = PhaseRunner(scenario: scenario, source: remote)
                guard
                    await runScenario(
                        runner,
                        sleeper: nil,
                        calibrationStore: nil,
                        ordinal: &ordinal,
                        total: total,
                        into: &output
                    )
                else {
                    return output
                }
                continue
            }
            let sleeper = options.serviceTimerResolution.map { CoalescingSleeper(resolution: $0) }
            let makeStore = { @Sendable () throws -> SyntheticStore in
                if let sleeper {
                    return try SyntheticStore(
                        configuration: scenario.store,
                        sleep: { try await sleeper.sleep(for: $0) }
                    )
                }
                return try SyntheticStore(configuration: scenario.store)
            }
            let store: SyntheticStore
            do {
                store = try makeStore()
            } catch {
                throw HarnessError.invalidField("store", "\(error)")
            }
            let runner = PhaseRunner(
                scenario: scenario,
                source: StoreSource(store: store, pager: scenario.workload.pager)
            )
            // Where a request changes what later ones see (writes, failure draws), every measured
            // phase pages a store as created, so that repetitions are comparable (its warm-up
            // pages another, H9).
            var makePhaseStore: (@Sendable () -> SyntheticStore)?
            if store.keepsRequestState {
                makePhaseStore = { @Sendable in store.asCreated() }
            }
            if ordinal == 0, let waitForStart = options.waitForStart {
                guard await startTogether(waitForStart) else { return output }
            }
            let finished = await withTaskGroup(of: Void.self) { group -> Bool in
                if let sleeper { group.addTask { await sleeper.run() } }
                defer { group.cancelAll() }
                // The phase runner calibrates only where the bare loop is the phase's floor (no
                // service time, failures or writes; closed loop): elsewhere no harness_overhead_ratio.
                return await runScenario(
                    runner,
                    sleeper: sleeper,
                    calibrationStore: store,
                    makePhaseStore: makePhaseStore,
                    ordinal: &ordinal,
                    total: total,
                    into: &output
                )
            }
            if !finished { return output }
        }
        return output
    }

    /// Waits for the common start unless interrupted or cancelled first; true when it came.
    private func startTogether(_ wait: @escaping @Sendable () async throws -> Void) async -> Bool {
        guard let interruption = options.interruption else {
            do { try await wait() } catch { return false }
            return true
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do { try await wait() } catch { return false }
                return true
            }
            group.addTask {
                await interruption.wait()
                return false
            }
            let started = await group.next() ?? false
            group.cancelAll()
            return started && !interruption.isRequested
        }
    }

    /// Runs every concurrency × repetition of one scenario; false when cancelled or interrupted. With an
    /// in-process `calibrationStore`, each measured phase (not the timing-off rerun) is
    /// preceded by the bare-loop calibration of `harness_overhead_ratio`.
    private func runScenario<Source>(
        _ runner: PhaseRunner<Source>,
        sleeper: CoalescingSleeper?,
        calibrationStore: SyntheticStore?,
        makePhaseStore: (@Sendable () -> SyntheticStore)? = nil,
        ordinal: inout Int,
        total: Int,
        into output: inout Output
    ) async -> Bool {
        let workload = runner.scenario.workload
        for concurrency in workload.concurrency {
            for repetition in 1...workload.repetitions {
                if Task.isCancelled || options.interruption?.isRequested == true { return false }
                if workload.stages != nil {
                    // A stage plan: one result and row per stage (H4).
                    ordinal += 1
                    let results = await measureStages(
                        runner,
                        sleeper: sleeper,
                        repetition: repetition,
                        ordinal: ordinal,
                        total: total
                    )
                    for result in results {
                        output.results.append(result)
                        output.rows.append(result.row(context: options.context))
                        output.timeSeries += result.timeSeries
                    }
                    if results.isEmpty || results.contains(where: \.partial)
                        || results.contains(where: { options.stopAfter?($0) == true })
                    {
                        return false
                    }
                    continue
                }
                ordinal += 1
                var result = await measure(
                    runner,
                    sleeper: sleeper,
                    concurrency: concurrency,
                    repetition: repetition,
                    ordinal: ordinal,
                    total: total,
                    timing: workload.pageTiming,
                    overhead: false,
                    calibrationStore: calibrationStore,
                    phaseStore: makePhaseStore?()
                )
                guard result.measured else { return false }
                if workload.measureOverhead, !result.partial {
                    ordinal += 1
                    let untimed = await measure(
                        runner,
                        sleeper: sleeper,
                        concurrency: concurrency,
                        repetition: repetition,
                        ordinal: ordinal,
                        total: total,
                        timing: false,
                        overhead: true,
                        calibrationStore: nil,
                        phaseStore: makePhaseStore?()
                    )
                    if result.pagesPerSecond > 0, !untimed.partial {
                        result.measurementOverheadRatio = untimed.pagesPerSecond / result.pagesPerSecond
                    }
                }
                output.results.append(result)
                output.rows.append(result.row(context: options.context))
                output.timeSeries += result.timeSeries
                if result.partial || options.stopAfter?(result) == true { return false }
            }
        }
        return true
    }

    /// One repetition of a stage plan (``PhaseRunner/runStages(repetition:options:clock:)``).
    private func measureStages<Source>(
        _ runner: PhaseRunner<Source>,
        sleeper: CoalescingSleeper?,
        repetition: Int,
        ordinal: Int,
        total: Int
    ) async -> [PhaseResult] {
        let workload = runner.scenario.workload
        var description = PhaseDescription(
            scenario: runner.scenario.label ?? runner.scenario.name,
            concurrency: workload.concurrency[0],
            repetition: repetition,
            isOverheadPhase: false,
            ordinal: ordinal,
            total: total,
            expectedSeconds: workload.stages.map { Double($0.durationNanoseconds) / 1e9 }
        )
        describe(&description, workload, concurrency: workload.concurrency[0])
        description.isStaged = true
        options.observer?.phaseStarted(description)
        let results = await runner.runStages(
            repetition: repetition,
            options: phaseOptions(sleeper: sleeper, timing: workload.pageTiming, overhead: false),
            clock: ContinuousClock()
        )
        for result in results { options.observer?.phaseEnded(description, result: result) }
        return results
    }

    /// The workload's part of a phase's description: its pager, warm-up, this process's pagers
    /// and, in open loop, this process's share of the planned rate.
    private func describe(_ description: inout PhaseDescription, _ workload: Workload, concurrency: Int) {
        description.pager = workload.pager.rawValue
        description.warmupSeconds = workload.warmupSeconds
        let pagers = options.shard.pagers(ofConcurrency: concurrency)
        description.pagers = pagers
        if case .open(let rate, _) = workload.load, workload.stages == nil, concurrency > 0 {
            description.offeredDrainsPerSecond = rate * Double(pagers) / Double(concurrency)
        }
    }

    /// The options of one measured phase of the sweep.
    private func phaseOptions<Source>(
        sleeper: CoalescingSleeper?,
        timing: Bool,
        overhead: Bool
    ) -> PhaseRunner<Source>.Options {
        var runOptions = PhaseRunner<Source>.Options()
        runOptions.pageTiming = timing
        runOptions.timeSeries = options.timeSeries && !overhead
        runOptions.observer = options.observer
        runOptions.progressInterval = options.observer == nil ? nil : options.progressInterval
        runOptions.shard = options.shard
        runOptions.remoteCounters = options.remoteSource?.counters
        runOptions.interruption = options.interruption
        runOptions.dedicatedPool = options.dedicatedPool
        if let sleeper {
            // Probes wait on the same shared timer as the store's service times.
            runOptions.probeSleep = { try await sleeper.sleep(for: .nanoseconds(Int64(clamping: $0))) }
        }
        return runOptions
    }

    private func measure<Source>(
        _ runner: PhaseRunner<Source>,
        sleeper: CoalescingSleeper?,
        concurrency: Int,
        repetition: Int,
        ordinal: Int,
        total: Int,
        timing: Bool,
        overhead: Bool,
        calibrationStore: SyntheticStore?,
        phaseStore: SyntheticStore?
    ) async -> PhaseResult {
        let workload = runner.scenario.workload
        var expected: Double?
        if case .duration(let seconds) = workload.bound { expected = seconds + workload.warmupSeconds }
        var description = PhaseDescription(
            scenario: runner.scenario.label ?? runner.scenario.name,
            concurrency: concurrency,
            repetition: repetition,
            isOverheadPhase: overhead,
            ordinal: ordinal,
            total: total,
            expectedSeconds: expected
        )
        describe(&description, workload, concurrency: concurrency)
        options.observer?.phaseStarted(description)
        var runOptions: PhaseRunner<Source>.Options = phaseOptions(sleeper: sleeper, timing: timing, overhead: overhead)
        runOptions.calibrationStore = calibrationStore
        runOptions.phaseStore = phaseStore
        if let counter = options.instructionCounter, !overhead {
            runOptions.instructionCounter = counter
            // The sampler's ticks come with wall-clock time, which callgrind stretches by a
            // varying factor: one sample at the phase's start and one at its end (outside the count).
            runOptions.samplingInterval = .seconds(86_400)
        }
        let result = await runner.run(concurrency: concurrency, repetition: repetition, options: runOptions)
        options.observer?.phaseEnded(description, result: result)
        return result
    }
}
