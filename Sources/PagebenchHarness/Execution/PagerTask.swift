import PagebenchBase
import PagebenchMetrics
import PagebenchPage
import PagebenchPager
import PagebenchStore

/// One pager of a phase: claims drains until there are none, runs each (inline, or under
/// the cancellation probe), and returns everything it counted. Owns its ``TaskMetrics``
/// (counts only) and a ``LatencyBuffer``: nothing it records on the per-page path is
/// shared; its latencies go to the phase's shared histograms a batch at a time.
struct PagerTask<Source: PageSource>: Sendable where Source.Request == PageRequest, Source.Response == Page {
    let control: PhaseControl
    let executor: DrainRunner<Source>
    let timeSeries: Bool
    /// Waits out a probe's cancel delay (nanoseconds); throws when cancelled.
    let sleep: @Sendable (UInt64) async throws -> Void
    /// A staged phase's pool slot (H4): drains start only while it is admitted, and count in
    /// the stage they start in. Nil outside staged phases.
    var slot: PoolSlot? = nil
    /// The shared histograms this pager's latencies go to; nil in a staged phase, where
    /// ``slot`` names its stage's before each drain.
    var latencySink: LatencySink? = nil

    /// A probed drain's cancel instant is drawn in `[0, expected drain time)`; before a
    /// pager has finished a drain it expects this long.
    static var initialDrainEstimateNanoseconds: Double { 1_000_000 }

    /// Drains whose pages are expected to take less than this each are cancelled by page
    /// count rather than by a timer: a timer instant (the shared timer ticks every 250 µs,
    /// and a busy machine wakes sleepers late) lands inside a request only when requests
    /// wait for longer than that (service times, remote targets); CPU-bound pages of a few
    /// microseconds would end before it.
    ///
    /// A page's time here leaves out the time its drain waited, yielded at a checkpoint, for
    /// its turn to run again (``DrainResult/parkedNanoseconds``). In a crowd of CPU-bound
    /// pagers that wait is nearly all of a drain's time (10,000 pagers on 2 cores: a drain
    /// of 1,001 pages of microseconds lasted 5 s); counted in, it made such pages look like
    /// 5 ms ones, and their probes timed: the timer then fired while the drain waited in
    /// the run queue, and the probe measured the queue's round (p99 65 ms, issue 38), not
    /// how fast a drain stops once its cancellation can be seen. (The end of a phase in a
    /// crowd still waits for that round: the end-of-phase cancellation latency shows it.)
    static var timedProbeMinimumPageNanoseconds: Double { 2_000_000 }

    /// What a pager expects of its drains, for placing cancel instants inside them (H2).
    struct DrainEstimate {
        /// A drain's length, from its start to its end (where a timer's cancel instant goes).
        var nanoseconds = PagerTask.initialDrainEstimateNanoseconds
        /// The part of it the drain was not parked at a checkpoint (pages asked for and
        /// answered, requests in flight, backoffs): what decides between timer and page count.
        var activeNanoseconds = PagerTask.initialDrainEstimateNanoseconds
        var pages = 1.0
        var finished = 0.0
        /// Timed probes in a row whose drain ended before the timer fired: on a starved machine
        /// timers wake too late, and after two such misses this pager cancels by page count
        /// for the rest of the phase.
        var timerMisses = 0

        /// Whether the next probe cancels by page count rather than by a timer.
        func cancelsByPages(kind: PagerKind) -> Bool {
            guard kind != .apolloLoadAll else { return false }  // no page boundary to count
            return timerMisses >= 2 || activeNanoseconds / max(1, pages) < PagerTask.timedProbeMinimumPageNanoseconds
        }

        /// A timed probe ended: `cancelled` says whether the timer fired inside the drain.
        mutating func timedProbe(cancelled: Bool) {
            timerMisses = cancelled ? 0 : timerMisses + 1
        }

        /// A drain ran to its end in `drain` nanoseconds, `parked` of them yielded at its
        /// checkpoints: move towards its length (a running mean over the last ~16).
        mutating func finished(nanoseconds drain: UInt64, parked: UInt64, pages drainPages: Int) {
            finished += 1
            let weight = 1 / min(finished, 16)
            nanoseconds += (Double(drain) - nanoseconds) * weight
            activeNanoseconds += (Double(drain - min(parked, drain)) - activeNanoseconds) * weight
            pages += (Double(drainPages) - pages) * weight
        }

        /// A probe cancelled a drain at `point` (0…1) of the estimate: it was still running
        /// there. While no drain has finished to say how long drains are (cancelFraction 1),
        /// a late cancel point means the estimate is probably short, and it doubles, until
        /// drains end before late cancel points; once drains finish, their lengths lead.
        mutating func outlived(point: Double, byPages: Bool) {
            guard finished == 0, point > 2.0 / 3.0 else { return }
            if byPages {
                pages *= 2
            } else {
                nanoseconds *= 2
                activeNanoseconds *= 2
            }
        }
    }

    /// What one pager keeps from drain to drain: its counts, its pacing and what it expects
    /// of its drains, on the heap, once a pager. Held in ``run(_:)``'s async frame (which
    /// every suspended pager keeps for its life), the 912-byte counts and the copies Swift
    /// makes of them across the loop's suspension points made that frame 11,152 bytes, most of
    /// a pager's memory (issue 38, results/crowd.md); a reference costs 8. Owned by its
    /// pager's task alone: not `Sendable`.
    final class State {
        var metrics: TaskMetrics
        var pacing: Pacing
        var estimate = DrainEstimate()
        /// Open loop (H8): when this pager's last drain ended (nil before its first).
        var freeSince: UInt64? {
            get { lastEnded == 0 ? nil : lastEnded }
            set { lastEnded = newValue ?? 0 }
        }
        /// ``freeSince``, 0 for none: an optional's flag byte took the object past 1,280
        /// bytes, the allocator's size class, into the next (1,536).
        private var lastEnded: UInt64 = 0
        /// The page counts before the drain under way: what a cut-off moves apart (H14).
        var countsBefore = PageCounts()

        init(metrics: consuming TaskMetrics, pacing: consuming Pacing) {
            self.metrics = metrics
            self.pacing = pacing
        }
    }

    /// A pager's state, its counts starting at `metrics` (prepared by the caller, outside
    /// the measured time).
    @inline(never)
    func makeState() -> State {
        // Not a default argument: that is evaluated in the caller, whose async frame then
        // held a 912-byte `TaskMetrics` for the pager's life.
        makeState(metrics: TaskMetrics())
    }

    @inline(never)
    func makeState(metrics: consuming TaskMetrics) -> State {
        State(metrics: metrics, pacing: Pacing(timeSeries: timeSeries, latencySink: latencySink))
    }

    /// Runs drains until the phase has no more, recording into `state`.
    ///
    /// Its frame holds the claim, the plan and a reference to the pager's ``State``; what a
    /// drain's start and end do to the counts is synchronous and never inlined here (its
    /// temporaries then live on the thread's stack, not in the frame every suspended pager
    /// holds).
    @inline(never)  // Its own async frame: see ``DrainRunner/run(_:into:pacing:)``.
    func run(_ state: State) async {
        while let claim = nextClaim(state) {
            if let intended = claim.intendedStart, MonotonicTime.nanoseconds() < intended {
                // Waiting for its next drain: what it counted is not left unpublished meanwhile.
                if state.pacing.countsUnpublished { publishCounts(state, at: MonotonicTime.nanoseconds()) }
                do { try await MonotonicTime.sleep(until: intended) } catch { break }
                // Woken after the phase ended (a crowd's timers wake late): no drain starts.
                if control.endVerdict(now: MonotonicTime.nanoseconds()) == .cancel { break }
            }
            let plan = control.planner.plan(claim.index, warmup: control.isWarmup)
            let started = began(claim, state)
            var result: DrainResult
            var probeLatency: UInt64?
            if plan.isCancelled {
                (result, probeLatency) = await probed(plan, state)
            } else {
                result = await executor.run(plan, into: &state.metrics, pacing: &state.pacing)
            }
            ended(&result, plan: plan, claim: claim, started: started, probeLatency: probeLatency, state)
        }
        finish(state)
    }

    /// One admission of a staged pager (``slot``): runs drains from the counts `carried`
    /// holds, then counts them in their stage (``PoolSlot/flush(_:)``) and hands them back.
    /// `carried` crosses into the child task that a ramp-down can cancel.
    @inline(never)
    func run(carrying carried: Handoff<TaskMetrics>) async {
        let state = makeState(carrying: carried)
        await run(state)
        handOver(state, to: carried)
    }

    @inline(never)
    private func makeState(carrying carried: Handoff<TaskMetrics>) -> State {
        makeState(metrics: carried.take() ?? TaskMetrics())
    }

    @inline(never)
    private func handOver(_ state: State, to carried: Handoff<TaskMetrics>) {
        slot?.flush(&state.metrics)
        carried.put(state.metrics)
    }

    /// The next drain this pager runs, if any: the phase's claim, counted in the stage it
    /// starts in.
    @inline(never)
    private func nextClaim(_ state: State) -> PhaseControl.Claim? {
        guard !Task.isCancelled, slot?.isAdmitted != false, let claim = control.claim(pagerFreeSince: state.freeSince)
        else { return nil }
        slot?.enter(stage: claim.stage, metrics: &state.metrics, latencies: &state.pacing.latencies)
        return claim
    }

    /// A drain begins: its start against the intended one (open loop, H8) and the counts a
    /// cut-off would take back. Returns the start instant.
    @inline(never)
    private func began(_ claim: PhaseControl.Claim, _ state: State) -> UInt64 {
        let started = MonotonicTime.nanoseconds()
        if let intended = claim.intendedStart {
            switch OpenLoopStart(intended: intended, slotWasFree: claim.slotWasFree, started: started) {
            case .onTime: break
            case .missed: state.metrics.missedStarts += 1
            case .late: state.metrics.lateStarts += 1
            }
        }
        state.countsBefore = state.metrics.counts
        return started
    }

    /// A probed drain (H2), by page count or by a timer as the pager's estimate says; returns
    /// how it ended and its cancellation latency (nil: it ended before the probe fired).
    @inline(never)
    private func probed(_ plan: DrainPlan, _ state: State) async -> (DrainResult, UInt64?) {
        let byPages = state.estimate.cancelsByPages(kind: executor.kind)
        let counts = Handoff<TaskMetrics>.empty()
        let probed = await probe(
            plan,
            cancelAfterNanoseconds: UInt64(plan.cancelPoint * state.estimate.nanoseconds),
            orPages: byPages ? max(1, Int(plan.cancelPoint * state.estimate.pages)) : nil,
            latencies: state.pacing.latencies.sink,
            counts: counts
        )
        control.probesArmed.add(1, ordering: .relaxed)
        if !byPages { state.estimate.timedProbe(cancelled: probed.cancelLatency != nil) }
        if probed.cancelLatency != nil {
            control.probesCancelled.add(1, ordering: .relaxed)
            state.estimate.outlived(point: plan.cancelPoint, byPages: byPages)
        }
        Self.add(counts, to: state)
        return (probed.result, probed.cancelLatency)
    }

    /// Adds a probed drain's page counts, which its task handed back, to the pager's.
    @inline(never)
    private static func add(_ counts: Handoff<TaskMetrics>, to state: State) {
        if let probed = counts.take() { state.metrics.addPageCounts(probed) }
    }

    /// A drain ended: cut off if the phase's end came first, counted, published.
    @inline(never)
    private func ended(
        _ result: inout DrainResult,
        plan: DrainPlan,
        claim: PhaseControl.Claim,
        started: UInt64,
        probeLatency: UInt64?,
        _ state: State
    ) {
        let ended = MonotonicTime.nanoseconds()
        if !plan.isCancelled, result.ending == .finished, control.endVerdict(now: ended) == .cancel {
            // Still running when the phase's time was up (or the run was interrupted), and
            // ended before a checkpoint saw it: cut off, like the drains a checkpoint cancels (H14).
            result.ending = .cancelled
        }
        record(
            result,
            claim: claim,
            started: started,
            ended: ended,
            probeLatency: probeLatency,
            countsBefore: state.countsBefore,
            metrics: &state.metrics,
            latencies: &state.pacing.latencies,
            estimate: &state.estimate
        )
        executor.progress.publishDrain(finished: result.ending == .finished)
        if ended &- state.pacing.countsPublishedAt >= Pacing.countsPublishNanoseconds {
            publishCounts(state, at: ended)
        } else {
            state.pacing.countsUnpublished = true
        }
        state.freeSince = ended
    }

    /// The pager's last drain ended: its counts published, its latencies folded.
    @inline(never)
    private func finish(_ state: State) {
        publishCounts(state, at: MonotonicTime.nanoseconds())
        executor.flushIntervalSamples(&state.pacing)
        state.pacing.latencies.flush()
    }

    /// Publishes what this pager's ended drains counted (``PagerTaskProgress/counts``).
    @inline(never)
    private func publishCounts(_ state: State, at now: UInt64) {
        executor.progress.publish(LiveCounts(state.metrics, throttles: executor.source.failures.throttles))
        state.pacing.countsPublishedAt = now
        state.pacing.countsUnpublished = false
    }

    /// Counts how a drain ended and keeps its latencies. Synchronous and never inlined into
    /// ``run(_:)``: its temporaries then live on the thread's stack, not in the async
    /// frame every suspended pager holds (issue 38).
    @inline(never)
    private func record(
        _ result: DrainResult,
        claim: PhaseControl.Claim,
        started: UInt64,
        ended: UInt64,
        probeLatency: UInt64?,
        countsBefore: PageCounts,
        metrics: inout TaskMetrics,
        latencies: inout LatencyBuffer,
        estimate: inout DrainEstimate
    ) {
        switch result.ending {
        case .finished:
            let latency = MonotonicTime.elapsed(from: started, to: ended)
            metrics.recordDrain(pageCount: result.pages, latencyNanoseconds: nil)
            latencies.record(.drain, nanoseconds: latency)
            if let intended = claim.intendedStart {
                latencies.record(.drainCorrected, nanoseconds: MonotonicTime.elapsed(from: intended, to: ended))
            }
            estimate.finished(nanoseconds: latency, parked: result.parkedNanoseconds, pages: result.pages)
        case .failed(let kind):
            metrics.recordError(kind)
        case .cancelled:
            metrics.recordCancellation(pagesAfterCancel: result.pagesAfterCancel)
            if let probeLatency {
                latencies.record(.cancellation, nanoseconds: probeLatency)
            } else {
                // The final cancel-everything (or a ramp-down's cancel): latency from its
                // request to this task returning. The drain was cut off: its pages are
                // counted apart, not in the figures per drain (H14).
                metrics.recordCutOff(since: countsBefore)
                let requested =
                    slot?.cancelRequestedAt(phase: control) ?? control.cancelRequestedAt.load(ordering: .acquiring)
                latencies.record(
                    .cancellation,
                    nanoseconds: requested == 0 ? 0 : MonotonicTime.elapsed(from: requested, to: ended)
                )
            }
        }
    }

    private enum ProbeEvent: Sendable {
        /// The drain's child task ended; `returnedAt` is its last clock reading, taken just
        /// before it returns.
        case drained(DrainResult, returnedAt: UInt64, selfCancelledAt: UInt64)
        case cancelTimer(fired: Bool)
    }

    /// Runs a drain in a child task and cancels it after `cancelAfterNanoseconds` (H2): the
    /// latency is from the cancel request (read just before `cancelAll()`) to the child
    /// task's last instant before it returns (read by that task itself, so the time this
    /// pager takes to notice the return is not counted). With `pages`, the drain cancels
    /// itself after that many pages instead, and the latency runs from that instant. The
    /// child task folds its latencies into `latencies` itself and hands its page counts
    /// back in `counts` (an event carrying them kept a 912-byte `TaskMetrics` in every
    /// frame of the probe for as long as the drain ran).
    @inline(never)  // Its own async frame: see ``DrainRunner/run(_:into:pacing:)``.
    private func probe(
        _ plan: DrainPlan,
        cancelAfterNanoseconds delay: UInt64,
        orPages pages: Int?,
        latencies sink: LatencySink?,
        counts: Handoff<TaskMetrics>
    ) async -> (result: DrainResult, cancelLatency: UInt64?) {
        let sleep = self.sleep
        return await withTaskGroup(of: ProbeEvent.self) { group in
            group.addTask { await runProbed(plan, cancelAfterPages: pages, latencies: sink, counts: counts) }
            if pages == nil {
                group.addTask {
                    do {
                        try await sleep(delay)
                        return .cancelTimer(fired: true)
                    } catch {
                        return .cancelTimer(fired: false)
                    }
                }
            }
            var cancelRequested: UInt64?
            var drained: DrainResult?
            while let event = await group.next() {
                switch event {
                case .cancelTimer(let fired):
                    if fired && drained == nil {
                        cancelRequested = MonotonicTime.nanoseconds()
                        group.cancelAll()
                    }
                case .drained(let result, let returned, let selfCancelled):
                    drained = result
                    if selfCancelled != 0, result.ending == .cancelled {
                        return (result, MonotonicTime.elapsed(from: selfCancelled, to: returned))
                    }
                    if let cancelRequested, result.ending == .cancelled {
                        return (result, MonotonicTime.elapsed(from: cancelRequested, to: returned))
                    }
                    group.cancelAll()
                }
            }
            // The drain ended before the probe fired (or the pager itself was cancelled).
            return (drained!, nil)
        }
    }

    /// The probed drain, in its own task: its counts and pacing on the heap (``State``),
    /// handed back in `counts` when it ends.
    @inline(never)
    private func runProbed(
        _ plan: DrainPlan,
        cancelAfterPages pages: Int?,
        latencies sink: LatencySink?,
        counts: Handoff<TaskMetrics>
    ) async -> ProbeEvent {
        let state = probeState(cancelAfterPages: pages, latencies: sink)
        let result = await executor.run(plan, into: &state.metrics, pacing: &state.pacing)
        return probeEnded(result, state, counts: counts)
    }

    @inline(never)
    private func probeState(cancelAfterPages pages: Int?, latencies sink: LatencySink?) -> State {
        // Its page latencies go to the time series as its pages end, like any drain's.
        let state = State(metrics: TaskMetrics(), pacing: Pacing(timeSeries: timeSeries, latencySink: sink))
        state.pacing.cancelAfterPages = pages
        return state
    }

    @inline(never)
    private func probeEnded(_ result: DrainResult, _ state: State, counts: Handoff<TaskMetrics>) -> ProbeEvent {
        executor.flushIntervalSamples(&state.pacing)
        state.pacing.latencies.flush()
        counts.put(state.metrics)
        return .drained(result, returnedAt: MonotonicTime.nanoseconds(), selfCancelledAt: state.pacing.selfCancelledAt)
    }
}

/// How an open-loop drain started against its intended start (H8).
enum OpenLoopStart: Equatable {
    /// Started within ``lateToleranceNanoseconds`` of its intended instant.
    case onTime
    /// Every slot was busy at the intended start (``PhaseControl/Claim/slotWasFree``):
    /// `missed_starts`.
    case missed
    /// A slot was free at the intended start, but the drain began more than
    /// ``lateToleranceNanoseconds`` after it: the load generator was late (its timer woke
    /// late, its thread was busy, its task had not started), not the target (`late_starts`).
    case late

    /// How late a drain with a free slot may start and still be on time: 1 ms, the order of
    /// a timer's wake-up on a loaded machine.
    static var lateToleranceNanoseconds: UInt64 { 1_000_000 }

    /// - Parameters:
    ///   - intended: the drain's intended start (monotonic nanoseconds).
    ///   - slotWasFree: whether a slot was free then.
    ///   - started: when the drain began.
    init(intended: UInt64, slotWasFree: Bool, started: UInt64) {
        if !slotWasFree {
            self = .missed
        } else if MonotonicTime.elapsed(from: intended, to: started) > Self.lateToleranceNanoseconds {
            self = .late
        } else {
            self = .onTime
        }
    }
}
