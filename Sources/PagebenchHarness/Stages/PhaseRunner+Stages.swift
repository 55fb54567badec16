import Foundation
import PagebenchBase
import PagebenchMetrics
import PagebenchProcessStats

/// Staged phases (docs/contract.md H4): the workload's stage plan instead of a fixed concurrency.
extension PhaseRunner {
    /// Runs one repetition of the workload's stage plan and returns one result per stage it
    /// reached, in order; a workload without stages runs its first concurrency value instead.
    ///
    /// Pager stages run a pool of the plan's peak pagers (this shard's share) in task groups
    /// of ``pagersPerGroup``; ``StageClock`` admits `round(plan(t))` of them, and a pager a ramp-down removes
    /// finishes its drain or has it cancelled (`rampDown`). Rate stages run `concurrency`
    /// slots and offer drains at the plan's rate (``StagePlan/arrivalOffsetNanoseconds(arrivals:)``).
    /// A closed-loop drain belongs to the stage it started in, an open-loop drain to the stage
    /// of its intended start. An interruption (H6) ends the stage in progress, marked partial;
    /// later stages get no result.
    ///
    /// - Parameter clock: the clock the plan runs on (tests pass a manual one). Drain and page
    ///   latencies are timed on the monotonic clock whatever it is.
    public func runStages<C: Clock>(repetition: Int, options: Options = Options(), clock: C) async -> [PhaseResult]
    where C.Duration == Duration {
        let workload = scenario.workload
        guard let plan = workload.stages else {
            return [await run(concurrency: workload.concurrency[0], repetition: repetition, options: options)]
        }
        let concurrency = workload.concurrency[0]
        let timing = options.pageTiming ?? workload.pageTiming
        let shard = options.shard
        let poolSize = shard.pagers(ofConcurrency: concurrency)
        guard poolSize > 0 else {
            // A shard without pagers measures nothing, but has every stage, so that it merges.
            return plan.stages.indices.map { index in
                var result = PhaseResult.nothingMeasured(
                    scenario: scenario,
                    concurrency: concurrency,
                    repetition: repetition,
                    pageTiming: timing,
                    shard: shard,
                    pagers: 0
                )
                result.stage = PhaseResult.Stage(
                    index: index,
                    startNanoseconds: plan.stageStartsNanoseconds[index],
                    plan: plan.stages[index],
                    target: plan.target
                )
                return result
            }
        }
        let slots = (0..<poolSize).map { _ in PagerTaskProgress() }
        let sampler = MemorySampler()
        let intervals = options.timeSeries ? IntervalLatencies() : nil
        let status = PhaseStatus()
        var cancels = workload.cancelFraction > 0 || workload.cancelAtEnd || options.interruption != nil
        if plan.target == .pagers, workload.rampDown == .cancel { cancels = true }
        let pool = PagerPool(
            size: poolSize,
            stages: plan.stages.count,
            openLoop: plan.target == .rate,
            cancels: cancels
        )

        return await withTaskGroup(of: Void.self) { background in
            background.addTask { await sampler.run(every: options.samplingInterval) }
            if let interval = options.progressInterval, let observer = options.observer {
                background.addTask {
                    await progressLoop(
                        every: interval,
                        observer: observer,
                        slots: slots,
                        status: status,
                        concurrency: concurrency,
                        repetition: repetition,
                        drainTarget: nil
                    )
                }
            }
            status.begin(warmup: false, totals: totals(slots))
            var sample: (@Sendable (inout TimeSeriesCursor, Int) -> (TimeSeriesRow, LatencyRecorder))?
            if let intervals {
                sample = { cursor, now in
                    timeSeriesRow(
                        &cursor,
                        now: UInt64(now),
                        elapsedNanoseconds: UInt64(now),
                        slots: slots,
                        intervals: intervals,
                        sampler: sampler,
                        concurrency: concurrency,
                        repetition: repetition,
                        isWarmup: false
                    )
                }
            }
            let stageClock = StageClock(
                clock: clock,
                plan: plan,
                pool: pool,
                shard: shard,
                sampler: sampler,
                sample: sample,
                observer: options.observer,
                totals: { totals(slots) },
                remoteCounters: options.remoteCounters
            )
            let remoteBefore = options.remoteCounters?()
            let phase = await runStagedPhase(
                plan: plan,
                pool: pool,
                stageClock: stageClock,
                slots: slots,
                intervals: intervals,
                timing: timing,
                options: options
            )
            let remoteAfter = options.remoteCounters?()
            background.cancelAll()
            for await _ in background {}

            let metrics = pool.totals()
            var spans = phase.clock.spans
            if let before = remoteBefore, let after = remoteAfter, let last = spans.indices.last {
                // The requests answered after the last stage closed (the drains in flight at the
                // plan's end, cut off or ending) are its row's, as a fixed phase's row holds those
                // of its end (H14): before, they were "answered between phases".
                var earlier = RemoteCounts()
                for span in spans.dropLast() { span.remote.map { earlier.add($0) } }
                spans[last].remote = after.since(before).since(earlier)
            }
            return spans.enumerated().map { position, span in
                var result = PhaseResult(
                    scenario: scenario,
                    concurrency: concurrency,
                    repetition: repetition,
                    pageTiming: timing,
                    metrics: metrics[span.index],
                    pagersReturned: phase.pagersReturned,
                    measuredSeconds: Double(span.endNanoseconds - span.startNanoseconds) / 1e9,
                    cpu: span.cpu,
                    allocations: span.allocations,
                    peakAllocatedBytes: span.peakAllocatedBytes,
                    peakRSSBytes: span.peakRSSBytes,
                    timeSeries: phase.clock.series.filter { $0.stage == span.index + 1 },
                    startedAt: span.startedAt,
                    shard: shard,
                    pagers: poolSize
                )
                result.stage = PhaseResult.Stage(
                    index: span.index,
                    startNanoseconds: span.startNanoseconds,
                    plan: plan.stages[span.index],
                    target: plan.target
                )
                result.remoteCounts = span.remote
                result.completedInStage = span.completed
                let isLast = position == spans.count - 1
                result.partial = isLast && phase.interrupted
                if isLast {
                    // The probe's counts are the phase's; its warning is given once.
                    result.probesArmed = phase.probes.armed
                    result.probesCancelled = phase.probes.cancelled
                }
                return result
            }
        }
    }

    private struct StagedOutcome {
        var clock: StageTimeline
        var pagersReturned: Int
        var interrupted: Bool
        var probes: (armed: Int, cancelled: Int)
    }

    private enum StagedChild: Sendable {
        /// A group of the pool's pagers returned.
        case pagers(count: Int)
        case clock(StageTimeline)
        case interrupted
    }

    /// The staged phase itself: the pool's pager tasks, the stage clock (which is also the
    /// deadline) and the interruption waiter in one task group.
    private func runStagedPhase<C: Clock>(
        plan: StagePlan,
        pool: PagerPool,
        stageClock: StageClock<C>,
        slots: [PagerTaskProgress],
        intervals: IntervalLatencies?,
        timing: Bool,
        options: Options
    ) async -> StagedOutcome where C.Duration == Duration {
        let workload = scenario.workload
        let retryPolicy = Self.retryPolicy(workload.retry, seed: planner.seed)
        let sleep = options.probeSleep ?? { try await Task.sleep(nanoseconds: $0) }
        let cancelOnRemoval = plan.target == .pagers && workload.rampDown == .cancel
        let start = MonotonicTime.nanoseconds()
        let clockStart = stageClock.clock.now
        let control = PhaseControl(
            planner: planner,
            isWarmup: false,
            start: start,
            drainLimit: nil,
            durationNanoseconds: Double(plan.durationNanoseconds),
            shard: options.shard,
            concurrency: workload.concurrency[0],
            pagers: slots.count
        )
        let interruption = options.interruption

        return await withTaskGroup(of: StagedChild.self) { group in
            // The pool's pagers in groups of `pagersPerGroup`, each a child task of this group
            // with a group of its own, as a phase's (``runPhase``): a task group finds a
            // finished child by walking its children, so one group of the whole pool made its
            // end quadratic in the pool's size.
            for first in stride(from: 0, to: slots.count, by: Self.pagersPerGroup) {
                let groupSlots = first..<min(first + Self.pagersPerGroup, slots.count)
                group.addTask {
                    await withTaskGroup(of: Void.self) { pagers in
                        for index in groupSlots {
                            let failures = FailureLog()
                            let executor = DrainRunner(
                                source: ObservedSource(base: source, failures: failures),
                                kind: workload.pager,
                                retryPolicy: retryPolicy,
                                timing: timing,
                                yieldEveryPages: workload.yieldEveryPages,
                                // The pool grows and shrinks with the plan: yield every millisecond, so the
                                // stage clock, sampler and progress run whatever the count of the moment.
                                yieldPolicy: .everyMillisecond,
                                progress: slots[index],
                                intervals: intervals
                            )
                            let slot = PoolSlot(index: index, pool: pool, failures: failures)
                            let pager = PagerTask(
                                control: control,
                                executor: executor,
                                timeSeries: intervals != nil,
                                sleep: sleep,
                                slot: slot
                            )
                            pagers.addTask {
                                // The pager's counts from admission to admission, on the heap, not
                                // in this closure's frame (kept by the pager for its life).
                                let carried = Handoff<TaskMetrics>.empty()
                                // Parked until admitted; each admission runs drains until the slot is removed.
                                while await pool.waitUntilAdmitted(index) {
                                    slot.removalRequestedAt.store(0, ordering: .relaxed)
                                    await Self.activation(
                                        pager,
                                        carrying: carried,
                                        slot: slot,
                                        cancelOnRemoval: cancelOnRemoval
                                    )
                                    // The phase handed out its last drain (the arrivals ran out, or its end
                                    // let drains finish): nothing to wait for.
                                    if control.isExhausted { break }
                                }
                            }
                        }
                        for await _ in pagers {}
                        return .pagers(count: groupSlots.count)
                    }
                }
            }
            group.addTask { .clock(await stageClock.run(from: clockStart)) }
            if let interruption {
                group.addTask {
                    await interruption.wait()
                    return .interrupted
                }
            }
            var timeline: StageTimeline?
            var returned = 0
            var interrupted = false
            func finished() -> Bool { timeline != nil && returned == slots.count }
            while let child = await group.next() {
                switch child {
                case .pagers(let count):
                    returned += count
                case .clock(let outcome):
                    timeline = outcome
                    guard outcome.reachedEnd else { break }
                    // The plan's end is the phase's deadline.
                    if workload.cancelAtEnd {
                        control.cancelRequestedAt.store(MonotonicTime.nanoseconds(), ordering: .releasing)
                        pool.end()
                        group.cancelAll()
                    } else {
                        control.stop()
                        pool.end()
                    }
                case .interrupted:
                    // Returns at once also when the group is cancelled: only a real request counts.
                    guard interruption?.isRequested == true, !finished() else { continue }
                    interrupted = true
                    control.cancelRequestedAt.store(MonotonicTime.nanoseconds(), ordering: .releasing)
                    pool.end()
                    group.cancelAll()
                }
                // Every pager is back and the clock is done: end the interruption waiter too.
                if finished() { group.cancelAll() }
            }
            return StagedOutcome(
                clock: timeline ?? StageTimeline(reachedEnd: false, spans: [], series: []),
                pagersReturned: returned,
                interrupted: interrupted,
                probes: (control.probesArmed.load(ordering: .relaxed), control.probesCancelled.load(ordering: .relaxed))
            )
        }
    }

    private enum ActivationEvent: Sendable {
        case ran
        case removal(PagerPoolState.Removal)
    }

    /// One admission of a pager: drains until its slot is removed (then its drain finishes)
    /// or, with `cancelOnRemoval`, until a ramp-down removes it, which cancels the drain in
    /// flight; that cancellation is timed from the removal (H2). Its counts go on from
    /// `carried`'s and are counted in their stage (``PagerTask/run(carrying:)``).
    @inline(never)
    private static func activation(
        _ pager: PagerTask<Source>,
        carrying carried: Handoff<TaskMetrics>,
        slot: PoolSlot,
        cancelOnRemoval: Bool
    ) async {
        guard cancelOnRemoval else { return await pager.run(carrying: carried) }
        await withTaskGroup(of: ActivationEvent.self) { group in
            group.addTask {
                await pager.run(carrying: carried)
                return .ran
            }
            group.addTask { .removal(await slot.pool.waitUntilRemoved(slot.index)) }
            var ran = false
            while let event = await group.next() {
                switch event {
                case .ran:
                    ran = true
                    group.cancelAll()
                case .removal(.removed) where !ran:
                    slot.removalRequestedAt.store(MonotonicTime.nanoseconds(), ordering: .releasing)
                    group.cancelAll()
                case .removal:
                    // The phase ended (its end decides about cancelling) or the pager is done.
                    break
                }
            }
        }
    }
}
