import Foundation
import PagebenchBase
import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchProcessStats
import PagebenchStore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs a scenario's workload against a page source: one measured phase (after its warm-up)
/// per call, with `concurrency` pagers in one task group. Each pager task owns its counts
/// and returns them; its latencies go a batch at a time to a few histograms the phase
/// shares (``SharedLatencies``), so a pager costs kilobytes, not two histograms. A memory sampler, the progress
/// ticker and the time-series ticker run beside the pagers.
///
/// Generic over the source so tests can run it on scripted sources; ``SweepRunner`` runs it on
/// the synthetic store through ``StoreSource``.
public struct PhaseRunner<Source: PageSource>: Sendable where Source.Request == PageRequest, Source.Response == Page {
    public let scenario: Scenario
    public let source: Source
    public let planner: DrainPlanner

    public init(scenario: Scenario, source: Source) {
        self.scenario = scenario
        self.source = source
        self.planner = DrainPlanner(workload: scenario.workload, store: scenario.store)
    }

    /// Options of one run.
    public struct Options: Sendable {
        /// Time each page (default: the workload's `pageTiming`).
        public var pageTiming: Bool?
        /// Collect per-second ``TimeSeriesRow``s.
        public var timeSeries = false
        /// How often the observer gets a ``ProgressSnapshot``; nil for never.
        public var progressInterval: Duration? = nil
        /// Receives progress snapshots.
        public var observer: (any PhaseObserver)?
        /// How often the memory sampler reads jemalloc's `stats.allocated`.
        public var samplingInterval: Duration = .milliseconds(10)
        /// This process's share of the run (``Shard``); ``Shard/whole`` runs everything.
        public var shard: Shard = .whole
        /// Waits out a cancellation probe's delay (nanoseconds) before it cancels its drain;
        /// throws when the waiting task is cancelled. Nil arms one `Task.sleep` per probed
        /// drain; ``SweepRunner`` passes the shared service-time timer (``CoalescingSleeper``),
        /// which rounds the cancel instant up to its tick. Latency is timed from the cancel
        /// request itself, so the rounding does not enter it.
        public var probeSleep: (@Sendable (UInt64) async throws -> Void)?
        /// The in-process store the source serves, for the bare-loop calibration before the
        /// measured phase (``BareLoopCalibration``, `harness_overhead_ratio`); nil for none.
        /// Ignored where the bare loop is not the phase's floor
        /// (``BareLoopCalibration/measuresHarness(store:workload:)``).
        public var calibrationStore: SyntheticStore?
        /// A remote target's live counters (``RemotePageSource/counters``), read at the start
        /// and end of the measured phase.
        public var remoteCounters: (@Sendable () -> RemoteCounts)?
        /// Stops the phase early when requested (H6): its pagers are cancelled and the
        /// result is marked partial; a request during warm-up skips the measured phase.
        public var interruption: Interruption?
        /// The in-process store the source serves, when a request can change what later ones
        /// see (``SyntheticStore/keepsRequestState``: writes, S22; the arrival count injected
        /// failures are drawn from, S21). The measured phase's requests all go to this store,
        /// as the caller made it (a store as created, for each measured phase); the warm-up
        /// pages a store of its own made like it (``SyntheticStore/asCreated()``), so that
        /// nothing the warm-up does changes what the measured phase sees (H9). Under writes
        /// each pager task counts its drains' duplicates and skips (S25) on it, and per-second
        /// writes are applied on a 1 ms timer while the phase runs.
        public var phaseStore: SyntheticStore?
        /// Whether the process's cooperative pool runs nothing but this phase (`pagebench run`
        /// says so). Only then may a drain with a spare core keep its thread
        /// (``YieldPolicy/forPhase(pagers:cores:backgroundTicks:)``); in a shared pool (tests,
        /// a library caller) drains yield every millisecond, as others' tasks wait on them.
        public var dedicatedPool = false
        /// Counts the measured phase's instructions (the process runs under callgrind:
        /// `run --count-instructions`); nil for none. Counting needs work that repeats with
        /// pages, not with wall-clock time, so ``SweepRunner`` also slows the memory sampler
        /// to one sample per phase.
        public var instructionCounter: InstructionCounter?

        public init() {}
    }

    /// Runs warm-up (if any) and one measured phase at `concurrency`: all of it, or the
    /// share of ``Options/shard`` (its pagers and its drains; nothing at all, not even the
    /// warm-up, when the shard has no pager at this concurrency).
    public func run(concurrency: Int, repetition: Int, options: Options = Options()) async -> PhaseResult {
        let workload = scenario.workload
        let timing = options.pageTiming ?? workload.pageTiming
        let shard = options.shard
        let pagers = shard.pagers(ofConcurrency: concurrency)
        let shardDrains: Int?
        if case .drains(let total) = workload.bound {
            shardDrains = shard.drainCount(of: total, concurrency: concurrency)
        } else {
            shardDrains = nil
        }
        /// A phase that measured nothing (this shard has no pager, or it was interrupted first).
        func nothingMeasured(pagers: Int) -> PhaseResult {
            .nothingMeasured(
                scenario: scenario,
                concurrency: concurrency,
                repetition: repetition,
                pageTiming: timing,
                shard: shard,
                pagers: pagers,
                shardDrains: shardDrains
            )
        }
        guard pagers > 0 else { return nothingMeasured(pagers: 0) }
        // The page clock calibrates on first use (a few ms, once per process): not inside a phase.
        _ = MonotonicTime.PageClock.process
        let slots = (0..<pagers).map { _ in PagerTaskProgress() }
        let sampler = MemorySampler()
        let intervals = options.timeSeries ? IntervalLatencies() : nil
        let status = PhaseStatus()
        let runStart = MonotonicTime.nanoseconds()
        // The sampler's count tells a drain with a spare core whether background work runs;
        // only a pool that runs nothing else may leave it there (``Options/dedicatedPool``).
        var backgroundTicks: (@Sendable () -> Int)?
        if options.dedicatedPool { backgroundTicks = { sampler.sampleCount } }

        return await withTaskGroup(of: [TimeSeriesRow].self) { background in
            background.addTask {
                await sampler.run(every: options.samplingInterval)
                return []
            }
            if options.timeSeries {
                background.addTask {
                    await timeSeriesLoop(
                        slots: slots,
                        intervals: intervals!,
                        sampler: sampler,
                        status: status,
                        runStart: runStart,
                        concurrency: concurrency,
                        repetition: repetition,
                        observer: options.observer
                    )
                }
            }
            if let interval = options.progressInterval, let observer = options.observer {
                background.addTask {
                    await progressLoop(
                        every: interval,
                        observer: observer,
                        slots: slots,
                        status: status,
                        concurrency: concurrency,
                        repetition: repetition,
                        drainTarget: shardDrains
                    )
                    return []
                }
            }

            var warmupRemote: RemoteCounts?
            if workload.warmupSeconds > 0 {
                status.begin(warmup: true, totals: totals(slots))
                let before = options.remoteCounters?()
                _ = await runPhase(
                    concurrency: concurrency,
                    shard: shard,
                    slots: slots,
                    intervals: intervals,
                    timing: timing,
                    probeSleep: options.probeSleep,
                    warmup: true,
                    bound: .duration(seconds: workload.warmupSeconds),
                    interruption: options.interruption,
                    backgroundTicks: backgroundTicks,
                    status: status,
                    // Its own store: its writes and failure draws never reach the measured phase's (H9).
                    phaseStore: options.phaseStore?.asCreated()
                )
                warmupRemote = before.flatMap { before in options.remoteCounters.map { $0().since(before) } }
            }
            if options.interruption?.isRequested == true {
                // Stopped before measuring: nothing of this phase is a result.
                background.cancelAll()
                for await _ in background {}
                var result = nothingMeasured(pagers: pagers)
                result.partial = true
                result.measured = false
                return result
            }

            // The bare store loop over the same store and drain plans, for harness_overhead_ratio
            // (only where it is the phase's floor: otherwise the ratio stays empty, H7).
            var bareLoopPagesPerSecond: Double?
            if let store = options.calibrationStore,
                BareLoopCalibration.measuresHarness(store: store, workload: workload)
            {
                let calibration = BareLoopCalibration(
                    store: store,
                    planner: planner,
                    durationNanoseconds: BareLoopCalibration.defaultDurationNanoseconds
                )
                bareLoopPagesPerSecond = await calibration.pagesPerSecond(pagers: pagers)
            }

            // The measured phase: resources are read around it.
            sampler.resetPeak()
            // Live metrics' counters count the measured phase (no pager runs now).
            for slot in slots { slot.resetCounts() }
            let residentBefore = try? ProcessMemory.read().residentBytes
            PeakResidentMemory.reset()
            let allocationsBefore = try? JemallocStats.read(flushingThreadCache: true)
            let cpuBefore = CPUTime.now()
            let measuredStart = Date()
            status.begin(warmup: false, totals: totals(slots))
            let remoteBefore = options.remoteCounters?()
            let phase = await runPhase(
                concurrency: concurrency,
                shard: shard,
                slots: slots,
                intervals: intervals,
                timing: timing,
                probeSleep: options.probeSleep,
                warmup: false,
                bound: workload.bound,
                interruption: options.interruption,
                backgroundTicks: backgroundTicks,
                status: status,
                phaseStore: options.phaseStore,
                instructionCounter: options.instructionCounter
            )
            let cpu = CPUTime.now().since(cpuBefore)
            let remote = remoteBefore.flatMap { before in options.remoteCounters.map { $0().since(before) } }
            let allocationsAfter = try? JemallocStats.read(flushingThreadCache: true)
            sampler.sample()
            let peakRSS = (try? ProcessMemory.read().peakResidentBytes) ?? 0

            background.cancelAll()
            var series: [TimeSeriesRow] = []
            for await rows in background { series += rows }
            series.sort { $0.elapsedSeconds < $1.elapsedSeconds }

            var allocations: UInt64 = 0
            if let allocationsBefore, let allocationsAfter {
                allocations = allocationsAfter.allocationRequests(since: allocationsBefore)
            }
            var result = PhaseResult(
                scenario: scenario,
                concurrency: concurrency,
                repetition: repetition,
                pageTiming: timing,
                metrics: phase.metrics,
                pagersReturned: phase.pagersReturned,
                measuredSeconds: Double(phase.nanoseconds) / 1e9,
                cpu: cpu,
                allocations: allocations,
                peakAllocatedBytes: sampler.peakAllocatedBytes,
                peakRSSBytes: peakRSS,
                timeSeries: series,
                startedAt: measuredStart,
                shard: shard,
                pagers: pagers,
                shardDrains: shardDrains
            )
            result.bareLoopPagesPerSecond = bareLoopPagesPerSecond
            result.residentBytesBeforePagers = residentBefore
            result.remoteCounts = remote
            result.warmupRemoteCounts = warmupRemote
            result.instructions = phase.instructions
            result.partial = phase.interrupted
            result.probesArmed = phase.probes.armed
            result.probesCancelled = phase.probes.cancelled
            return result
        }
    }

    private struct PhaseOutcome {
        var metrics: TaskMetrics
        var pagersReturned: Int
        var nanoseconds: UInt64
        /// Whether an ``Interruption`` ended the phase before its bound.
        var interrupted: Bool
        /// Drains the cancellation probe was asked to cancel, and cancelled.
        var probes: (armed: Int, cancelled: Int)
        /// Instructions from the pagers' start to the last one's return; nil when not counted
        /// (or when callgrind wrote no dump: the row then has no count, and `run` says so).
        var instructions: UInt64?
    }

    private enum PhaseChild: Sendable {
        /// A group of pagers returned: their counts, added up.
        case pagers(TaskMetrics, count: Int)
        case deadline(reached: Bool)
        case interrupted
        case writesEnded
    }

    /// One phase: one pager per slot (the shard's pagers) in a task group, plus a deadline
    /// for a duration-bound phase that cancels every drain still in flight.
    ///
    /// - Parameter instructionCounter: counts from just before the pagers start to the return
    ///   of the last one: the paging, not the merge of their metrics afterwards (its cost
    ///   grows with the largest latency recorded, a wall-clock figure).
    private func runPhase(
        concurrency total: Int,
        shard: Shard,
        slots: [PagerTaskProgress],
        intervals: IntervalLatencies?,
        timing: Bool,
        probeSleep: (@Sendable (UInt64) async throws -> Void)?,
        warmup: Bool,
        bound: PhaseBound,
        interruption: Interruption?,
        backgroundTicks: (@Sendable () -> Int)?,
        status: PhaseStatus,
        phaseStore: SyntheticStore?,
        instructionCounter: InstructionCounter? = nil
    ) async -> PhaseOutcome {
        let concurrency = slots.count
        var drainLimit: Int?
        var durationNanoseconds: Double?
        switch bound {
        case .drains(let count): drainLimit = count
        case .duration(let seconds): durationNanoseconds = seconds * 1e9
        }
        let workload = scenario.workload
        let retryPolicy = Self.retryPolicy(workload.retry, seed: planner.seed)
        let cancelAtEnd = warmup || workload.cancelAtEnd

        var isOpenLoop = false
        if case .open = workload.load { isOpenLoop = true }
        let sleep = probeSleep ?? { try await Task.sleep(nanoseconds: $0) }
        let cancels = workload.cancelFraction > 0 || (durationNanoseconds != nil && cancelAtEnd)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let latencies = SharedLatencies(pagers: concurrency, cores: cores)
        status.share(latencies)
        let yieldPolicy = YieldPolicy.forPhase(pagers: concurrency, cores: cores, backgroundTicks: backgroundTicks)
        instructionCounter?.start()
        let start = MonotonicTime.nanoseconds()
        let deadline = durationNanoseconds.map { start + UInt64($0) }
        // The pagers read the deadline and the interruption at their checkpoints; the tasks
        // below that wait for them end the pagers a checkpoint cannot reach (a request in
        // flight, a backoff, an open-loop wait).
        let control = PhaseControl(
            planner: planner,
            isWarmup: warmup,
            start: start,
            drainLimit: drainLimit,
            durationNanoseconds: durationNanoseconds,
            shard: shard,
            concurrency: total,
            pagers: concurrency,
            end: PhaseControl.End(deadline: deadline, cancelsAtEnd: cancelAtEnd, interruption: interruption)
        )

        let (metrics, returned, interrupted, instructions) = await withTaskGroup(of: PhaseChild.self) { group in
            // The pagers in groups of `pagersPerGroup`, each a child task of this group with a
            // group of its own: a task group finds a finished child in a list of its children
            // (the runtime's `removeChildTask` walks it), so 100,000 children in one group made
            // the phase's end quadratic (a 3 s phase of 100,000 pagers lasted 115 s, issue 38).
            for first in stride(from: 0, to: concurrency, by: Self.pagersPerGroup) {
                let pagerSlots = first..<min(first + Self.pagersPerGroup, concurrency)
                group.addTask {
                    // The group's pagers add their counts here as each returns: a pager's task
                    // returning its 912-byte counts held them in its closure's frame all along.
                    let counted = CountsSum()
                    await withTaskGroup(of: Void.self) { pagers in
                        for slot in pagerSlots {
                            var observed = ObservedSource(base: source, failures: FailureLog())
                            if let phaseStore {
                                // Every request goes to the phase's store. Watching drains re-fetch their
                                // pages: S25 counts complete drains only.
                                observed.consistency = ConsistencyTracker(
                                    store: phaseStore,
                                    countsDrains: phaseStore.hasWrites && workload.pager != .apolloWatch
                                )
                            }
                            let executor = DrainRunner(
                                source: observed,
                                kind: workload.pager,
                                retryPolicy: retryPolicy,
                                timing: timing,
                                yieldEveryPages: workload.yieldEveryPages,
                                yieldPolicy: yieldPolicy,
                                progress: slots[slot],
                                intervals: intervals,
                                phase: control
                            )
                            let pager = PagerTask(
                                control: control,
                                executor: executor,
                                timeSeries: intervals != nil,
                                sleep: sleep,
                                latencySink: latencies.sink(forPager: slot)
                            )
                            pagers.addTask { await Self.runPager(pager, counted: counted) }
                        }
                        await pagers.waitForAll()
                    }
                    return .pagers(counted.take(), count: pagerSlots.count)
                }
            }
            if let writesStore = phaseStore, writesStore.configuration.writes?.per == .second {
                // Per-second writes land while no page is asked for too (S22, P16).
                group.addTask {
                    while !Task.isCancelled {
                        writesStore.applyDueWrites()
                        do { try await Task.sleep(nanoseconds: 1_000_000) } catch { break }
                    }
                    return .writesEnded
                }
            }
            if let deadline {
                group.addTask {
                    do {
                        try await MonotonicTime.sleep(until: deadline)
                        return .deadline(reached: true)
                    } catch {
                        return .deadline(reached: false)
                    }
                }
            }
            if let interruption {
                group.addTask {
                    await interruption.wait()
                    return .interrupted
                }
            }
            // The pagers' counts, added as each returns (their latencies are in `latencies`).
            var merged = TaskMetrics()
            var returned = 0
            var interrupted = false
            while let child = await group.next() {
                switch child {
                case .pagers(let metrics, let count):
                    merged.add(metrics)
                    returned += count
                    // Every pager is done: end the deadline timer too.
                    if returned == concurrency { group.cancelAll() }
                case .deadline(let reached):
                    guard reached, let deadline, returned < concurrency else { continue }
                    if cancelAtEnd {
                        // Latency from the deadline, as the pagers that saw it first record it.
                        control.requestCancel(at: deadline)
                        group.cancelAll()
                    } else {
                        control.stop()
                    }
                case .interrupted:
                    // Returns at once also when the group is cancelled: only a real request counts.
                    guard interruption?.isRequested == true, returned < concurrency else { continue }
                    interrupted = true
                    control.requestCancel(at: MonotonicTime.nanoseconds())
                    group.cancelAll()
                case .writesEnded:
                    continue
                }
            }
            // Pagers that saw the interruption at a checkpoint may all have returned before
            // the waiter above ran.
            if control.interrupted.load(ordering: .relaxed) { interrupted = true }
            let instructions = try? instructionCounter?.stop()
            // Every pager folded its last latencies before it returned.
            latencies.addHistograms(to: &merged)
            if isOpenLoop, merged.drainLatencyCorrected == nil { merged.drainLatencyCorrected = LatencyRecorder() }
            if cancels, merged.cancellationLatency == nil { merged.cancellationLatency = LatencyRecorder() }
            return (merged, returned, interrupted, instructions)
        }
        return PhaseOutcome(
            metrics: metrics,
            pagersReturned: returned,
            nanoseconds: MonotonicTime.elapsed(from: start, to: MonotonicTime.nanoseconds()),
            interrupted: interrupted,
            probes: (control.probesArmed.load(ordering: .relaxed), control.probesCancelled.load(ordering: .relaxed)),
            instructions: instructions
        )
    }

    /// One pager of a phase: its drains, then what it counted (with its source's throttles
    /// and consistency checks) added to its group's. Its counts live on the heap, not in its
    /// frames, which the pager keeps for its life (``PagerTask/State``).
    @inline(never)
    private static func runPager(_ pager: PagerTask<Source>, counted: CountsSum) async {
        let state = pager.makeState()
        await pager.run(state)
        count(state, pager.executor, into: counted)
    }

    @inline(never)
    private static func count(_ state: PagerTask<Source>.State, _ executor: DrainRunner<Source>, into sum: CountsSum) {
        state.metrics.throttles += executor.source.failures.throttles
        if let tracker = executor.source.consistency, tracker.countsDrains {
            state.metrics.consistency = tracker.counts
        }
        sum.add(state.metrics)
    }

    /// The most pagers in one task group of a phase (``runPhase``): finding a finished child
    /// costs a group a walk of its children, so 100,000 pagers run as 1,563 groups of 64
    /// (about (2 × pagers)^(1/3): the walks of the phase's group and of its groups balance).
    static var pagersPerGroup: Int { 64 }

    /// The pager retry policy of a workload: what it retries is the policy's default, the page
    /// contract's one rule (``PagebenchPage/PageError/isRetryable(_:)``: throttled, transient).
    static func retryPolicy(_ settings: RetrySettings, seed: UInt64) -> RetryPolicy {
        guard settings.maxRetries > 0 else { return .none }
        return RetryPolicy(
            maxRetries: settings.maxRetries,
            initialBackoff: .nanoseconds(settings.initialBackoffNanoseconds),
            multiplier: settings.multiplier,
            maxBackoff: .nanoseconds(settings.maxBackoffNanoseconds),
            jitterFraction: settings.jitter,
            seed: seed
        )
    }
}
