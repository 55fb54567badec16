import Foundation
import PagebenchBase
import PagebenchHTTPClient
import PagebenchHarness
import PagebenchMetrics
import PagebenchReport
import PagebenchScaleOut
import PagebenchStore
import PagebenchTargets

#if canImport(Glibc)
import Glibc
#endif

/// One run of ``RunRequest``: what `run`, `knee` and `baseline update` share. It chooses the
/// source (in-process store, a served store, a real target; their first-page or `/health`
/// check), names and tags the rows (`SCENARIO@http`, `SCENARIO@NAME`), runs the phases here,
/// over shards or local workers, writes the CSV (or the shard file), and judges the SLOs.
///
/// Interruption (H6): what was measured is written, the cut-short phase marked partial, and
/// ``run(into:)`` throws ``CommandError`` with 128 + the signal. A failure found after the rows
/// were written (a broken SLO, a phase the target did not answer) is thrown after writing.
package struct RunSession: Sendable {
    package let request: RunRequest
    /// Stops the run early when requested (`run` requests it on SIGINT or SIGTERM).
    package var interruption: Interruption?
    /// `--workers`: the executable workers run (default: this one).
    package var workerExecutable: String?
    /// `--workers`: called with each worker's index and process id.
    package var workerLaunched: @Sendable (Int, Int32) -> Void = { _, _ in }

    package init(_ request: RunRequest, interruption: Interruption? = nil) {
        self.request = request
        self.interruption = interruption
    }

    var quiet: Bool { request.quiet }

    /// Runs the request, writes its files, prints the notes and summary table to `out`
    /// (nothing when ``RunRequest/quiet``), and returns what was measured.
    ///
    /// - Throws: ``CommandError``; its ``CommandError/exitStatus`` is the documented exit code.
    @discardableResult
    package func run(into out: inout some TextOutputStream) async throws(CommandError) -> SweepRunner.Output {
        var scenarios = request.scenarios
        let objectives = request.objectives
        if request.workers != nil || request.shard != nil { try Self.checkShardable(scenarios) }
        try ExactAllocations.check(asked: request.exactAllocations)
        // Every output path is checked before anything is measured, not after an hour.
        let shardFile = request.shard.map { LocalWorkers.shardPath(directory: request.shardDirectory, shard: $0) }
        do {
            if let shardFile {
                try ResultWriter.checkWritable(
                    output: nil,
                    history: nil,
                    timeSeries: request.timeSeries,
                    shardFile: shardFile
                )
            } else {
                try ResultWriter.checkWritable(
                    output: request.output ?? ResultWriter.defaultOutput,
                    history: request.history,
                    timeSeries: request.workers == nil ? request.timeSeries : nil
                )
            }
        } catch {
            throw CommandError(error)
        }
        let realTarget = try loadRealTarget(&scenarios)
        try Self.checkWrites(
            scenarios,
            workers: request.workers != nil,
            shard: request.shard != nil,
            target: request.servedStore != nil || realTarget != nil
        )
        // Counted first, in a process of its own under callgrind: a machine without valgrind
        // fails before anything is measured, and the measured run is not slowed by it.
        let instructions = request.countInstructions ? try await countInstructions(scenarios) : nil
        if let workers = request.workers {
            if let realTarget {
                // Fail once, here, rather than in every worker: the same checks they make.
                let source = try await connectRealTarget(realTarget, scenarios: scenarios)
                await source.shutdown()
            }
            if let target = request.servedStore {
                // Fail once, here, rather than in every worker: the same checks they make.
                let source = try await connectTarget(target, scenarios: scenarios)
                try? await source.shutdown()
            }
            let merged = try await runWorkers(workers, scenarios: scenarios, objectives: objectives, into: &out)
            try Self.checkInterrupted(interruption, rows: merged.rows)
            if let target = realTarget?.name ?? request.servedStore {
                try Self.checkTargetAnswered(merged.rows, target: target)
            }
            try checkObjectives(merged.rows, objectives, into: &out)
            return merged
        }
        let shard = request.shard
        let start = try parsedStartAt()
        var context = RunContext.current(pagebenchVersion: PagebenchVersion.string)
        context.allocationCounting = ExactAllocations.counting
        var options = SweepRunner.Options(context: context)
        // The run is all this process does: a pager with a spare core may keep its thread.
        options.dedicatedPool = true
        options.shard = shard ?? .whole
        if let start { options.waitForStart = { try await start.wait() } }
        options.timeSeries = request.timeSeries != nil
        options.interruption = interruption
        options.instructionCounter = try InstructionCounting.counter(dumps: request.instructionDumps)
        // Against a target that stopped answering, later phases would only measure failures.
        options.stopAfter = { $0.targetStoppedAnswering }
        options.serviceTimerResolution =
            request.serviceTimerMicroseconds == 0 ? nil : .microseconds(request.serviceTimerMicroseconds)
        var remote: HTTPStoreSource?
        var realSource: TargetSource?
        if let realTarget {
            let source = try await connectRealTarget(realTarget, scenarios: scenarios)
            realSource = source
            options.remoteSource = RemotePageSource(name: realTarget.endpoint, counters: { Self.remoteCounts(source) })
            {
                try await source.page($0)
            }
            // A row measured against a real API must never be matched with an in-process one,
            // and says what was sent to it (issue 35).
            scenarios = Self.named(scenarios, for: realTarget)
        }
        if let target = request.servedStore {
            let source = try await connectTarget(target, scenarios: scenarios)
            remote = source
            options.remoteSource = RemotePageSource(
                name: target,
                counters: { RemoteCounts(responses: source.statusCounts.keyedCounts) }
            ) { try await source.page($0) }
            // A row measured over HTTP must never be matched with an in-process one.
            for index in scenarios.indices { scenarios[index].name += "@http" }
        }
        var observers: [any PhaseObserver] = []
        if let observer = request.observer {
            observers.append(observer)
        } else if !quiet {
            let printer = ProgressPrinter(isTerminal: isatty(STDERR_FILENO) == 1) { text in
                StandardError.write(text)
            }
            observers.append(printer)
            options.progressInterval = printer.preferredInterval
        }
        // Live metrics and the time-series file listen to the sweep as it goes: each interval's
        // row and latencies as it ends, each phase's result as it ends (never the pages).
        let ownsLive = request.liveMetrics == nil
        var live = request.liveMetrics
        do throws(CommandError) {
            if live == nil {
                live = try await LiveMetricsSession.start(
                    request,
                    target: realTarget?.name ?? (request.servedStore == nil ? "in-process" : "serve"),
                    context: context
                )
            }
        } catch {
            try? await remote?.shutdown()
            await realSource?.shutdown()
            throw error
        }
        // Not the time series' per-page latency batches: they add 12 % to the instructions of
        // a limit-10 page (callgrind, results/live-metrics-scrape.md). The live page latency
        // is read from the phase's shared histograms at progress ticks instead.
        if let live { observers.append(live.metrics) }
        var stream: TimeSeriesStream?
        if let path = request.timeSeries {
            do {
                stream = try TimeSeriesStream(path: path)
            } catch {
                if ownsLive { await live?.finish(lingerSeconds: 0, interruption: nil) }
                try? await remote?.shutdown()
                await realSource?.shutdown()
                throw CommandError(error)
            }
            observers.append(stream!)
        }
        if observers.count == 1 {
            options.observer = observers[0]
        } else if !observers.isEmpty {
            options.observer = PhaseObservers(observers)
        }
        let harness = SweepRunner(scenarios: scenarios, options: options)
        var responses: HTTPStatusCounts?
        var result: SweepRunner.Output
        let sweep = { () async -> Result<SweepRunner.Output, any Error> in
            do { return .success(try await harness.run()) } catch { return .failure(error) }
        }
        let outcome = if let live { await live.pushing(sweep) } else { await sweep() }
        let streamFailure: HarnessError?
        do throws(HarnessError) {
            try stream?.finish()
            streamFailure = nil
        } catch {
            streamFailure = error
        }
        switch outcome {
        case .success(let output):
            result = output
        case .failure(let error):
            if ownsLive { await live?.finish(lingerSeconds: 0, interruption: nil) }
            try? await remote?.shutdown()
            await realSource?.shutdown()
            throw CommandError(wrapping: error)
        }
        for warning in result.results.compactMap(\.probeWarning) {
            StandardError.write("pagebench: warning: \(warning)\n")
        }
        // Rows name what they paged, so that they are never matched with in-process rows.
        Self.tag(&result.rows, realTarget: realTarget, servedStore: request.servedStore)
        if let instructions { Self.apply(instructions: instructions, to: &result.rows) }
        if let realSource {
            await realSource.shutdown()
            responses = realSource.statusCounts
            if !quiet { out.write(Self.targetSummary(realSource, rows: result.rows)) }
        }
        if let remote {
            let counts = remote.statusCounts
            responses = counts
            try? await remote.shutdown()
            if !quiet {
                out.write(
                    "HTTP responses from \(remote.target): "
                        + Self.responsesSummary(counts, rows: result.rows, checks: 1, check: "the /health check") + "\n"
                )
            }
        }
        let servedStore = request.servedStore
        let checkAnswered = { (rows: [ResultRow]) throws(CommandError) in
            if let realSource {
                let detail = realSource.errorCountsByKind.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(
                    separator: " "
                )
                try Self.checkTargetAnswered(
                    rows,
                    target: realSource.target.name,
                    detail: detail.isEmpty ? nil : detail,
                    lastError: realSource.lastError
                )
            } else if let servedStore {
                try Self.checkTargetAnswered(rows, target: servedStore)
            }
        }
        if let shard {
            let path = try writeShard(
                result,
                shard: shard,
                startAt: start,
                httpResponses: responses,
                interrupted: interruption?.isRequested == true
            )
            // A signal during the linger only ends it: the run was whole.
            let measuredInterruption = interruption?.isRequested == true ? interruption : nil
            if ownsLive { await live?.finish(lingerSeconds: request.metricsLingerSeconds, interruption: interruption) }
            if let streamFailure { throw CommandError(streamFailure) }
            if !quiet {
                out.write("\n" + SummaryTable.render(result.rows))
                out.write("\nwrote shard \(shard) (\(result.rows.count) phases) to \(path)\n")
            }
            try Self.checkInterrupted(measuredInterruption, rows: result.rows, wroteEmpty: true)
            try checkAnswered(result.rows)
            return result
        }
        if interruption?.isRequested == true, result.rows.isEmpty { try Self.checkInterrupted(interruption, rows: []) }
        let output = request.output ?? ResultWriter.defaultOutput
        objectives?.mark(&result.rows)
        do {
            // The time series was written as its intervals ended (TimeSeriesStream).
            try ResultWriter.write(result, to: output, history: request.history, timeSeries: nil)
        } catch {
            if ownsLive { await live?.finish(lingerSeconds: 0, interruption: nil) }
            throw CommandError(error)
        }
        // A signal during the linger only ends it: the run was whole.
        let measuredInterruption = interruption?.isRequested == true ? interruption : nil
        if ownsLive { await live?.finish(lingerSeconds: request.metricsLingerSeconds, interruption: interruption) }
        if let streamFailure { throw CommandError(streamFailure) }
        if !quiet {
            out.write("\n" + (objectives?.summaryTable(result.rows) ?? SummaryTable.render(result.rows)))
            var files = [output]
            if let history = request.history { files.append(history + " (appended)") }
            if let timeSeries = request.timeSeries { files.append(timeSeries) }
            out.write("\nwrote \(result.rows.count) rows to \(files.joined(separator: ", "))\n")
        }
        try Self.checkInterrupted(measuredInterruption, rows: result.rows)
        try checkAnswered(result.rows)
        try checkObjectives(result.rows, objectives, into: &out)
        return result
    }

    /// Sets what each row paged (`target_kind`, `target_hash`): rows of a real target or a
    /// served store are never matched with in-process ones. A real target's row says what
    /// was sent to that API (issue 35): its limit only where a request carries it, the filter
    /// it was asked to apply (none where no template sends `${filter}`: empty), the read only
    /// where the request names a partition or segment, its response bytes rather than bytes
    /// evaluated, and scanned items only where the API reports them.
    static func tag(_ rows: inout [ResultRow], realTarget: Target?, servedStore: String?) {
        for index in rows.indices {
            if let realTarget {
                rows[index].targetKind = realTarget.kind.rawValue
                rows[index].targetHash = realTarget.targetHash
                describe(&rows[index], sentTo: realTarget)
            } else if servedStore != nil {
                rows[index].targetKind = "serve"
            }
        }
    }

    /// The workload columns of a real target's row as sent to it (``tag(_:realTarget:servedStore:)``).
    static func describe(_ row: inout ResultRow, sentTo target: Target) {
        let placeholders = target.placeholders
        if !target.sendsLimit { row.limit = nil }
        row.filter = target.sentFilter(workloadFilter: row.filter == "none" || row.filter.isEmpty ? nil : row.filter)
        if row.read.hasPrefix("partition"), !placeholders.contains(.partition) { row.read = "" }
        if row.read.hasPrefix("segment"), !placeholders.contains(.segment) { row.read = "" }
        row.applyRealTarget(reportsScannedCount: target.reportsScannedCount)
    }

    /// `scenarios` as rows of `target` name them: the built-in default scenario (no scenario
    /// file: it describes the synthetic store, not the API) by the target's name alone, a
    /// scenario file's as `SCENARIO@TARGET`; every label leads with the target's name
    /// (`orders-open limit=10`), followed by what set the scenario apart from the others of
    /// the run, if anything did.
    static func named(_ scenarios: [Scenario], for target: Target) -> [Scenario] {
        scenarios.map { scenario in
            var named = scenario
            let builtIn = scenario.isBuiltInDefault
            named.name = builtIn ? target.name : scenario.name + "@" + target.name
            let own = scenario.label ?? scenario.name
            named.label = own == scenario.name ? target.name : target.name + " " + own
            return named
        }
    }

    /// After the results are written: the SLO failure (exit 99) naming every bound a row broke;
    /// without one, the notes of SLOs that applied to no row and the line that they held.
    func checkObjectives(
        _ rows: [ResultRow],
        _ objectives: RunObjectives?,
        into out: inout some TextOutputStream
    ) throws(CommandError) {
        guard let objectives, !objectives.isEmpty else { return }
        if !quiet {
            for note in objectives.notApplicable(in: rows) { out.write(note + "\n") }
        }
        let violations = objectives.violations(in: rows)
        guard violations.isEmpty else {
            throw .sloBroken(
                "\(violations.count) SLO violation\(violations.count == 1 ? "" : "s") (results were written):\n  "
                    + violations.joined(separator: "\n  ")
            )
        }
        if !quiet {
            let applied = objectives.applied(in: rows)
            out.write(
                applied.isEmpty
                    ? "no SLO applied to any row\n"
                    : "every SLO held on every row: \(applied.map(\.description).joined(separator: ", "))\n"
            )
        }
    }

    /// After an interruption (H6), once what was measured is written: the exit status
    /// 128 + the signal (130 for SIGINT, 143 for SIGTERM), saying what was kept.
    static func checkInterrupted(
        _ interruption: Interruption?,
        rows: [ResultRow],
        wroteEmpty: Bool = false
    ) throws(CommandError) {
        guard let signal = interruption?.signal else { return }
        let partial = rows.filter { $0.partial == 1 }.count
        let kept =
            rows.isEmpty
            ? (wroteEmpty
                ? "no phase had begun measuring (an empty shard was written)"
                : "no phase had begun measuring; nothing was written")
            : "kept \(rows.count) row\(rows.count == 1 ? "" : "s")"
                + (partial > 0 ? ", \(partial) marked partial (cut short)" : ", none cut short")
        throw .interrupted(signal: signal, "interrupted by \(SignalName.of(signal)): \(kept)")
    }
}
