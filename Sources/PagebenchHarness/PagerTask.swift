import PagebenchBase
import PagebenchMetrics
import PagebenchPager
import PagebenchStore

/// One pager of a phase: claims drains until there are none, runs each (inline, or under
/// the cancellation probe), and returns everything it counted. Owns its ``TaskMetrics``:
/// nothing it records on the per-page path is shared.
struct PagerTask<Source: PageSource>: Sendable where Source.Request == PageRequest, Source.Response == Page {
    let control: PhaseControl
    let executor: DrainRunner<Source>
    let timeSeries: Bool
    /// Waits out a probe's cancel delay (nanoseconds); throws when cancelled.
    let sleep: @Sendable (UInt64) async throws -> Void

    /// A probed drain's cancel instant is drawn in `[0, expected drain time)`; before a
    /// worker has finished a drain it expects this long.
    static var initialDrainEstimateNanoseconds: Double { 1_000_000 }

    /// Runs drains until the phase has no more, recording into `metrics` (prepared by the
    /// caller, outside the measured time) and returning them.
    func run(metrics initial: consuming TaskMetrics) async -> TaskMetrics {
        var metrics = initial
        var pacing = Pacing(timeSeries: timeSeries)
        var finishedDrains = 0.0
        var meanDrainNanoseconds = Self.initialDrainEstimateNanoseconds
        while !Task.isCancelled, let claim = control.claim() {
            if let intended = claim.intendedStart {
                if MonotonicTime.nanoseconds() > intended {
                    // Every slot was busy when this drain was meant to start.
                    metrics.missedStarts += 1
                } else {
                    do { try await MonotonicTime.sleep(until: intended) } catch { break }
                }
            }
            let plan = control.planner.plan(claim.index, warmup: control.isWarmup)
            let started = MonotonicTime.nanoseconds()
            let result: DrainResult
            var probeLatency: UInt64?
            if plan.isCancelled {
                let delay = UInt64(plan.cancelPoint * meanDrainNanoseconds)
                let probed = await probe(plan, cancelAfterNanoseconds: delay, pacing: &pacing)
                result = probed.result
                probeLatency = probed.cancelLatency
                metrics.addPageCounts(probed.metrics)
                for latency in probed.pageLatencies { metrics.pageLatency.record(nanoseconds: latency) }
                pacing.intervalSamples?.append(contentsOf: probed.pageLatencies)
            } else {
                result = await executor.run(plan, into: &metrics, pacing: &pacing)
            }
            let ended = MonotonicTime.nanoseconds()
            switch result.ending {
            case .finished:
                let latency = MonotonicTime.elapsed(from: started, to: ended)
                metrics.recordDrain(
                    pageCount: result.pages, latencyNanoseconds: latency,
                    correctedLatencyNanoseconds: claim.intendedStart.map { MonotonicTime.elapsed(from: $0, to: ended) })
                finishedDrains += 1
                meanDrainNanoseconds += (Double(latency) - meanDrainNanoseconds) / finishedDrains
            case .failed(let kind):
                metrics.recordError(kind)
            case .cancelled:
                if metrics.cancellationLatency == nil { metrics.cancellationLatency = PresizedRecorders.empty }
                if let probeLatency {
                    metrics.recordCancellation(latencyNanoseconds: probeLatency, pagesAfterCancel: result.pagesAfterCancel)
                } else {
                    // The final cancel-everything: latency from its request to this task returning.
                    let requested = control.cancelRequestedAt.load(ordering: .acquiring)
                    metrics.recordCancellation(
                        latencyNanoseconds: requested == 0 ? 0 : MonotonicTime.elapsed(from: requested, to: ended),
                        pagesAfterCancel: result.pagesAfterCancel)
                }
            }
            executor.progress.drains.add(1, ordering: .relaxed)
        }
        executor.publish(&pacing, force: true)
        return metrics
    }

    private enum ProbeEvent: Sendable {
        /// The drain's child task ended; `returnedAt` is its last clock reading, taken just
        /// before it returns.
        case drained(DrainResult, TaskMetrics, [UInt64], returnedAt: UInt64)
        case cancelTimer(fired: Bool)
    }

    /// Runs a drain in a child task and cancels it after `cancelAfterNanoseconds` (H2): the
    /// latency is from the cancel request (read just before `cancelAll()`) to the child
    /// task's last instant before it returns (read by that task itself, so the time this
    /// worker takes to notice the return is not counted).
    private func probe(_ plan: DrainPlan, cancelAfterNanoseconds delay: UInt64, pacing: inout Pacing)
        async -> (result: DrainResult, metrics: TaskMetrics, pageLatencies: [UInt64], cancelLatency: UInt64?)
    {
        let executor = self.executor
        let sleep = self.sleep
        return await withTaskGroup(of: ProbeEvent.self) { group in
            group.addTask {
                var metrics = PresizedRecorders.countsOnly
                var pacing = Pacing(timeSeries: false, logLatencies: true)
                let result = await executor.run(plan, into: &metrics, pacing: &pacing)
                executor.publish(&pacing, force: true)
                return .drained(result, metrics, pacing.latencyLog ?? [], returnedAt: MonotonicTime.nanoseconds())
            }
            group.addTask {
                do {
                    try await sleep(delay)
                    return .cancelTimer(fired: true)
                } catch {
                    return .cancelTimer(fired: false)
                }
            }
            var cancelRequested: UInt64?
            var drained: (DrainResult, TaskMetrics, [UInt64])?
            while let event = await group.next() {
                switch event {
                case .cancelTimer(let fired):
                    if fired && drained == nil {
                        cancelRequested = MonotonicTime.nanoseconds()
                        group.cancelAll()
                    }
                case .drained(let result, let metrics, let latencies, let returned):
                    drained = (result, metrics, latencies)
                    if let cancelRequested, result.ending == .cancelled {
                        return (result, metrics, latencies, MonotonicTime.elapsed(from: cancelRequested, to: returned))
                    }
                    group.cancelAll()
                }
            }
            // The drain ended before the probe fired (or the worker itself was cancelled).
            return (drained!.0, drained!.1, drained!.2, nil)
        }
    }
}
