import Foundation
import PagebenchBase
import PagebenchHarness
import PagebenchLiveMetrics
import PagebenchMetrics
import PagebenchReport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A knee search (H5): the highest open-loop arrival rate at which every SLO holds over a
/// whole step and the step starts at least the search's minimum of the drains it offers
/// (``PagebenchHarness/KneeSearch/Verdict``). ``KneeSearch`` decides the rates; each step is
/// one ``RunSession`` of the request ``KneeRequest/step`` makes for its rate (open-fixed at that
/// rate, one step long, one repetition, its row to a scratch CSV), so a step runs wherever a
/// run can: in-process, against a served store, or over workers. Every step's row goes to
/// ``KneeRequest/output``.
package struct KneeSession: Sendable {
    package let request: KneeRequest
    /// Stops the search early when requested (`knee` requests it on SIGINT or SIGTERM).
    package var interruption: Interruption?

    package init(_ request: KneeRequest, interruption: Interruption? = nil) {
        self.request = request
        self.interruption = interruption
    }

    /// Every SLO of a step: the scenario's `slo` list, then every `--slo`. Uncorrected latency
    /// is refused (H5): drain latency measured from when a drain started, and page latency.
    ///
    /// - Throws: ``CommandError``: 64 for no SLO at all, a bad `--slo` or an uncorrected latency
    ///   bound; 65 for a bad entry of the scenario's list (naming `file`).
    package static func objectives(
        scenario: Scenario?,
        file: String?,
        flags: [String]
    ) throws(CommandError) -> [ServiceLevelObjective] {
        let fromScenario =
            try scenario.map { (scenario) throws(CommandError) in try RunObjectives.check(scenario, file: file) } ?? []
        let fromFlags: [ServiceLevelObjective]
        do {
            fromFlags = try ServiceLevelObjective.parseAll(flags)
        } catch {
            throw CommandError(error)
        }
        guard !fromScenario.isEmpty || !fromFlags.isEmpty else {
            throw .usage(
                "give at least one --slo, e.g. --slo 'drain_latency_corrected_p99_ns<200ms', or an \"slo\" list in the scenario"
            )
        }
        for (objective, source) in fromScenario.map({ ($0, "the scenario's slo") }) + fromFlags.map({ ($0, "--slo") }) {
            try Self.refuseUncorrectedLatency(objective, source: source)
        }
        return fromScenario + fromFlags
    }

    /// H5: the knee is judged on corrected latency. Drain latency measured from when a drain
    /// started, and page latency (from when a page was requested; pagebench has no corrected
    /// page latency), never see the drains queued behind a saturated service (coordinated
    /// omission), so a search on them finds a knee that is too high.
    package static func refuseUncorrectedLatency(
        _ objective: ServiceLevelObjective,
        source: String
    ) throws(CommandError) {
        let column = objective.column
        let what: String
        if column.hasPrefix("drain_latency_p") || column == "drain_latency_max_ns" {
            what = "is measured from when a drain started, not from when it was meant to start"
        } else if column.hasPrefix("page_latency_") {
            what = "is measured from when each page was requested, and pagebench has no corrected page latency"
        } else {
            return
        }
        let corrected = column.replacingOccurrences(
            of: column.hasPrefix("page_") ? "page_latency_" : "drain_latency_",
            with: "drain_latency_corrected_"
        )
        throw .usage(
            "\(source) '\(objective.text)': \(column) \(what), so a queue of late drains never breaks it and the knee "
                + "comes out too high; bound the corrected drain latency instead: \(corrected)"
        )
    }

    /// One measured step: its rate, its row, and what broke.
    package struct Step: Sendable {
        package var rate: Double
        package var row: ResultRow
        package var held: Bool
        /// The SLOs it broke, as sentences.
        package var violations: [String]
        /// Its verdict: the SLOs and the throughput condition (nil for a step cut short).
        package var verdict: KneeSearch.Verdict?

        package init(rate: Double, row: ResultRow, held: Bool, violations: [String], verdict: KneeSearch.Verdict?) {
            self.rate = rate
            self.row = row
            self.held = held
            self.violations = violations
            self.verdict = verdict
        }
    }

    /// Runs the search; returns the result and every step's row.
    ///
    /// The interruption stops the search early (H6; `knee` requests it on SIGINT or
    /// SIGTERM): the step in progress is cut short (its row, if it began measuring, is
    /// written marked `partial` and not judged), the steps so far are written, the summary
    /// says what they found, and this throws exit status 128 + the signal.
    @discardableResult
    package func run(
        into out: inout some TextOutputStream
    ) async throws(CommandError) -> (result: KneeSearch.Result, steps: [Step]) {
        // One live-metrics server (and remote writer) for every step (`-- --metrics-listen`),
        // each step's phase labelled `stepN-…`; it lingers once, after the last.
        let live = SharedLiveMetrics()
        do {
            let outcome = try await search(into: &out, live: live)
            await live.finish(interruption: interruption, linger: true)
            return outcome
        } catch {
            await live.finish(interruption: interruption, linger: false)
            throw error
        }
    }

    private func search(
        into out: inout some TextOutputStream,
        live: SharedLiveMetrics
    ) async throws(CommandError) -> (result: KneeSearch.Result, steps: [Step]) {
        let stepDuration = request.stepDuration
        let quiet = request.quiet
        let output = request.output
        let scenario: Scenario?
        do {
            scenario = try request.scenarioFile.map { (path) throws(HarnessError) in try Scenario.load(path: path) }
        } catch {
            throw CommandError(error)
        }
        let objectives = try Self.objectives(
            scenario: scenario,
            file: request.scenarioFile,
            flags: request.sloExpressions
        )
        if let scenario, scenario.workload.stages != nil {
            // A knee step holds one rate for its whole length (H5); a stage plan ramps it (H4).
            throw .usage(
                "scenario '\(scenario.name)' has stages (H4), but a knee step holds one rate: remove workload.stages, "
                    + "or run the stages with `pagebench run --slo` to judge each stage"
            )
        }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var steps: [Step] = []
        var search = request.search
        if !quiet {
            let throughput =
                search.minAchievedFraction > 0
                ? " and \(NumberText.fixed(search.minAchievedFraction * 100, 0)) % of the rate achieved" : ""
            out.write(
                "knee search: \(objectives.map(\.description).joined(separator: ", "))\(throughput); steps of \(stepDuration) s "
                    + "on \(request.pagers) pagers, from \(request.startRate) drains/s\n"
            )
        }
        let result: KneeSearch.Result
        var cutShort: Step?
        loop: while true {
            if interruption?.isRequested == true {
                result = search.interrupted()
                break loop
            }
            switch search.next() {
            case .finished(let finished):
                result = finished
                break loop
            case .measure(let rate):
                let measured = try await runStep(rate: rate, number: steps.count + 1, directory: directory, live: live)
                guard case .whole(var row) = measured else {
                    if case .cutShort(let row?) = measured {
                        // Not a whole step, so no verdict (H5): it is kept, marked partial, and
                        // drawn nowhere (slo_held stays empty).
                        cutShort = Step(rate: rate, row: row, held: false, violations: [], verdict: nil)
                        steps.append(cutShort!)
                        if !quiet { out.write(Self.describeCutShort(cutShort!, number: steps.count)) }
                    }
                    result = search.interrupted()
                    break loop
                }
                let violations = ServiceLevelObjective.violations(of: objectives, in: [row])
                // Achieved: the drains the step started over its length, the row's
                // started_drains_per_s (issue 35: one definition in the CLI, the CSV and the
                // report). Completions alone would miss the drains in flight at the end, rate ×
                // drain latency of them, a share that grows as steps shorten; a saturated step
                // still starts only about its capacity (plus one drain per pager).
                let achieved =
                    row.startedDrainsPerSecond
                    ?? Double(row.drains + row.cancellations + row.errors.total)
                    / (row.targetDurationSeconds ?? stepDuration)
                let verdict = search.judge(rate: rate, achievedRate: achieved, sloHeld: violations.isEmpty)
                // A knee step's slo_held is its verdict: the SLOs and the throughput condition.
                row.sloHeld = verdict.held ? 1 : 0
                row.slos = ServiceLevelObjective.columnText(objectives)
                let step = Step(rate: rate, row: row, held: verdict.held, violations: violations, verdict: verdict)
                steps.append(step)
                search.record(verdict)
                if !quiet {
                    out.write(Self.describe(step, number: steps.count, objectives: objectives, first: steps.first?.row))
                }
            }
        }
        do {
            try ResultWriter.createParentDirectory(of: output)
            try CSVFile.write(steps.map(\.row), to: output)
        } catch {
            throw CommandError(wrapping: error)
        }
        out.write(Self.summary(result, steps: steps) + "\n")
        if !quiet { out.write("wrote \(steps.count) step rows to \(output)\n") }
        if let signal = interruption?.signal {
            let judged = steps.count - (cutShort == nil ? 0 : 1)
            throw .interrupted(
                signal: signal,
                "interrupted by \(SignalName.of(signal)): kept \(judged) judged step\(judged == 1 ? "" : "s")"
                    + (cutShort.map { ", and the step at \(Self.rate($0.rate)) drains/s cut short (partial)" } ?? "")
                    + " in \(output)"
            )
        }
        if result.ending == .neverHeld {
            throw .sloBroken(
                "the SLOs held at no rate tried, down to \(Self.rate(result.lowestBroken ?? request.startRate)) drains/s"
            )
        }
        return (result, steps)
    }

    /// What one step's run gave.
    enum StepOutcome {
        /// The step ran its whole duration.
        case whole(ResultRow)
        /// A signal cut it short: its row marked partial, or nil if it had not begun measuring.
        case cutShort(ResultRow?)
    }

    /// One step: a run at `rate` (``KneeRequest/step``), its row.
    private func runStep(
        rate: Double,
        number: Int,
        directory: String,
        live: SharedLiveMetrics
    ) async throws(CommandError) -> StepOutcome {
        let stepFile = "\(directory)/step-\(number).csv"
        var stepRequest = try request.step(rate, stepFile)
        stepRequest.liveMetrics = try await live.session(for: stepRequest, step: number)
        var discard = ""
        let output: SweepRunner.Output
        do {
            // The step is judged here (SLOs and throughput), not by the run.
            output = try await RunSession(stepRequest, interruption: interruption).run(into: &discard)
        } catch {
            guard interruption?.isRequested == true else { throw error }
            // The run wrote what it measured (H6) before it reported the signal.
            // A signal that came after the phase ended leaves a whole step.
            let rows = (try? CSVFile.read(ResultRow.self, from: stepFile)) ?? []
            if let row = rows.first, rows.count == 1, row.partial == 0 { return .whole(row) }
            return .cutShort(rows.first)
        }
        guard output.rows.count == 1, let row = output.rows.first else {
            throw .usage(
                "a knee step must be one phase, but the scenario and flags give \(output.rows.count); give one scenario"
            )
        }
        return .whole(row)
    }

    private static func temporaryDirectory() throws(CommandError) -> String {
        var template = Array((FileManager.default.temporaryDirectory.path + "/pagebench-knee-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw .cannotCreate("cannot create a temporary directory for the steps' files")
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    package static func rate(_ value: Double) -> String {
        value == value.rounded() && value < 1e15 ? String(Int(value)) : String(format: "%.2f", value)
    }

    /// One step's line; a step pagebench itself limited (``clientLimit(of:first:)``) says so.
    package static func describe(
        _ step: Step,
        number: Int,
        objectives: [ServiceLevelObjective],
        first: ResultRow? = nil
    ) -> String {
        let figures = objectives.map { objective -> String in
            switch objective.judge(step.row) {
            case .held(let value), .broke(let value, _): "\(objective.column)=\(objective.formatted(value))"
            case .missing: "\(objective.column)=-"
            }
        }
        var verdict = step.held ? "held" : "broke"
        var achieved = ""
        if let judged = step.verdict {
            if judged.sloHeld && !judged.sustained { verdict = "broke by throughput" }
            // Requests (pages) per second beside drains per second: SLOs and capacity are often per request (issue 26).
            achieved =
                "started \(rate(judged.achievedRate.rounded())) drains/s = \(NumberText.fixed(judged.achievedFraction, 3)) of the rate, "
                + "completed \(NumberText.compact(step.row.drainsPerSecond)) drains/s, \(NumberText.compact(step.row.pagesPerSecond)) requests/s"
                + (judged.sustained ? "" : ", under --min-achieved \(NumberText.fixed(judged.minAchievedFraction, 2))")
                + "; "
        }
        let limit = clientLimit(of: step.row, first: first).map { "; \($0)" } ?? ""
        return "step \(number): \(rate(step.rate)) drains/s: \(verdict) (\(figures.joined(separator: ", ")); "
            + "\(achieved)\(step.row.drains) drains, \(step.row.missedStarts ?? 0) missed starts, \(step.row.lateStarts ?? 0) late starts)"
            + limit + "\n"
    }

    package static func describeCutShort(_ step: Step, number: Int) -> String {
        "step \(number): \(rate(step.rate)) drains/s: cut short by a signal after "
            + "\(NumberText.fixed(step.row.durationSeconds, 1)) s (partial, not judged; \(step.row.drains) drains)\n"
    }

    /// The last line of a knee search; a rate that held is said in requests (pages) per second
    /// too, as its step achieved them: SLOs and capacity are often per request (issue 26).
    package static func summary(_ result: KneeSearch.Result, steps measured: [Step] = []) -> String {
        func rate(_ drains: Double) -> String {
            let achieved = measured.last { $0.rate == drains && $0.held }
            return Self.rate(drains)
                + (achieved.map { " drains/s (\(NumberText.compact($0.row.pagesPerSecond)) requests/s completed)" }
                    ?? " drains/s")
        }
        let broken = result.lowestBroken.map { "; lowest rate that broke: \(Self.rate($0)) drains/s" } ?? ""
        let steps = "\(result.steps.count) step\(result.steps.count == 1 ? "" : "s")"
        // Issue 35: a step that broke because pagebench was the limit measured the client,
        // not the API: the knee line says so instead of naming a knee of the API.
        let lowestBrokenStep = result.lowestBroken.flatMap { low in measured.last { $0.rate == low && !$0.held } }
        if let lowestBrokenStep, let limit = clientLimit(of: lowestBrokenStep.row, first: measured.first?.row) {
            let held = result.knee.map { "every SLO held up to \(rate($0)); " } ?? ""
            return
                "knee: not the API's: \(held)the step at \(Self.rate(lowestBrokenStep.rate)) drains/s was \(limit) (\(steps))"
        }
        switch result.ending {
        case .resolved:
            return "knee: \(rate(result.knee ?? 0)), the highest rate at which every SLO held\(broken) (\(steps))"
        case .heldAtMaxRate:
            return "knee: at least \(rate(result.knee ?? 0)): every SLO held up to --max-rate (\(steps))"
        case .neverHeld:
            return "knee: none: the SLOs broke at every rate tried\(broken) (\(steps))"
        case .stepLimit:
            let knee = result.knee.map { rate($0) } ?? "none"
            return "knee: \(knee) so far: --max-steps reached before the resolution\(broken) (\(steps))"
        case .interrupted:
            let knee = result.knee.map { "\(rate($0)), the highest rate at which every SLO held" } ?? "none held"
            return "knee so far: \(knee)\(broken); interrupted before the resolution (\(steps) judged)"
        }
    }
}

/// The live metrics `knee` shares between its steps: started with the first step's flags.
final class SharedLiveMetrics: Sendable {
    private struct State {
        var session: LiveMetricsSession?
        var lingerSeconds: Double = 0
    }

    private let state = Mutex(State())

    /// The session for step `step` (started for the first), its phases labelled `stepN-`.
    func session(for request: RunRequest, step: Int) async throws(CommandError) -> LiveMetricsSession? {
        var session = state.withLock { $0.session }
        if session == nil {
            session = try await LiveMetricsSession.start(
                request,
                target: request.servedStore == nil ? "in-process" : "serve",
                context: RunContext.current(pagebenchVersion: PagebenchVersion.string)
            )
            state.withLock { $0 = State(session: session, lingerSeconds: request.metricsLingerSeconds) }
        }
        session?.metrics.phasePrefix = "step\(step)-"
        return session
    }

    func finish(interruption: Interruption?, linger: Bool) async {
        let (session, seconds) = state.withLock { ($0.session, $0.lingerSeconds) }
        await session?.finish(lingerSeconds: linger ? seconds : 0, interruption: interruption)
    }
}
