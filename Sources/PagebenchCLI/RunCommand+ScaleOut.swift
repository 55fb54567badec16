import ArgumentParser
import Foundation
import PagebenchHTTPClient
import PagebenchWire
import PagebenchHarness
import PagebenchMetrics
import PagebenchScaleOut

/// `pagebench run --shard I/N`, `--start-at` and `--workers N` (docs/scaling-out.md).
extension RunCommand {
    /// The default `--shard-output`.
    public static let defaultShardDirectory = "results/shards"

    /// How far ahead `--workers` schedules the common start when no `--start-at` is given:
    /// time for every worker process to start, load its scenarios and build its store.
    public static let workerStartDelaySeconds = 2.0

    /// The most local worker processes `--workers` starts.
    public static let maximumWorkers = 256

    /// Checks the scale-out flags on their own and against each other (exit 64).
    func validateScaleOut() throws {
        if let workers {
            guard workers >= 1, workers <= Self.maximumWorkers else {
                throw ValidationError("--workers must be between 1 and \(Self.maximumWorkers), got \(workers)")
            }
            guard shard == nil else {
                throw ValidationError(
                    "--workers and --shard exclude each other: --workers N starts the shards 0/N … N-1/N itself")
            }
            guard timeseries == nil else {
                throw ValidationError(
                    "--timeseries is not supported with --workers; run the shards yourself with --shard I/N and a "
                        + "--timeseries file each")
            }
        }
        if shard != nil {
            for (flag, value) in [("--output", output), ("--history", history)] where value != nil {
                throw ValidationError(
                    "\(flag) does not apply to --shard: a shard writes its shard file to --shard-output; merge the "
                        + "shards of all workers with `pagebench merge` to get the CSV")
            }
        }
        if shard != nil || workers != nil {
            guard !shardOutput.isEmpty else { throw ValidationError("--shard-output must name a directory") }
        }
        do throws(HarnessError) {
            if let shard { _ = try Shard(parsing: shard) }
            if let startAt { _ = try StartTime(parsing: startAt).check() }
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// `--shard`, parsed; nil without it.
    func parsedShard() throws(CommandFailure) -> Shard? {
        guard let shard else { return nil }
        do {
            return try Shard(parsing: shard)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// `--start-at`, parsed and checked against the clock now; prints the warning of a start
    /// time that passed within the grace period.
    func parsedStartAt() throws(CommandFailure) -> StartTime? {
        guard let startAt else { return nil }
        do {
            let start = try StartTime(parsing: startAt)
            if let warning = try start.check() {
                StandardError.write("pagebench: warning: \(warning)\n")
            }
            return start
        } catch {
            throw CommandFailure(error)
        }
    }

    /// Sharded runs merge exactly only what a shard file carries: not the overhead ratio,
    /// which compares two phases of one process.
    static func checkShardable(_ scenarios: [Scenario]) throws(CommandFailure) {
        if let scenario = scenarios.first(where: { $0.workload.measureOverhead }) {
            throw CommandFailure(
                ExitCodes.usage,
                "scenario '\(scenario.name)' measures overhead (measureOverhead / --measure-overhead), which a sharded "
                    + "run cannot merge; measure overhead in one process")
        }
    }

    /// Writes (S22) run in-process only: the harness counts duplicates and skips (S25) from
    /// the in-process store's versioned overlay. Workers and shards would each write their
    /// own copy of the store (one store's writes would be several different stores'), and a
    /// served or real target's writes are not the harness's to see; refused, not measured
    /// wrongly.
    static func checkWrites(_ scenarios: [Scenario], workers: Bool, shard: Bool, target: Bool) throws(CommandFailure) {
        guard let scenario = scenarios.first(where: { $0.store.writes != nil }) else { return }
        let why: String
        if workers || shard {
            why = "\(workers ? "--workers" : "--shard") would give every worker process its own copy of the store, each with its own writes"
        } else if target {
            why = "a target's writes are its own: the harness counts duplicates and skips (S25) from the in-process store's overlay"
        } else {
            return
        }
        throw CommandFailure(
            ExitCodes.usage,
            "scenario '\(scenario.name)' has writes (S22), which run in one process on the in-process store only: \(why); "
                + "run it without that flag")
    }

    /// Writes this process's shard file (and its time series, if asked) and returns its path.
    func writeShard(
        _ result: SweepRunner.Output, shard: Shard, startAt: StartTime?, httpResponses: HTTPStatusCounts?,
        interrupted: Bool
    ) throws(CommandFailure) -> String {
        let path = LocalWorkers.shardPath(directory: shardOutput, shard: shard)
        do {
            try ShardFile(
                shard: shard, startAt: startAt, output: result, httpResponses: httpResponses?.keyedCounts,
                interrupted: interrupted
            ).write(to: path)
            if let timeseries { try ResultWriter.writeTimeSeries(result.timeSeries, to: timeseries) }
        } catch {
            throw CommandFailure(error)
        }
        return path
    }

    /// The run options that are not part of a scenario, as arguments for another `pagebench
    /// run` of the same scenarios (a worker's, or the callgrind run of `--count-instructions`).
    var passedOnOptions: [String] {
        var options = ["--service-timer-microseconds", String(serviceTimerMicroseconds)]
        if let target { options += ["--target", target, "--http-client", httpClient.rawValue] }
        if let targetFile { options += ["--target-file", targetFile] }
        if let caFile { options += ["--ca-file", caFile] }
        if insecure { options += ["--insecure"] }
        // The process inherits MALLOC_CONF=tcache:false from this re-executed one; the flag
        // makes it check that.
        if exactAllocations { options += [ExactAllocations.flag] }
        return options
    }

    /// `--workers N` (``PagebenchScaleOut/LocalWorkers``): checks, progress lines and the
    /// merged CSV around the workers' run.
    func runWorkers(
        _ count: Int, scenarios: [Scenario], objectives: RunObjectives?, into out: inout some TextOutputStream, executable: String?,
        launched: @Sendable (Int, Int32) -> Void, interruption: Interruption?
    ) async throws(CommandFailure) -> SweepRunner.Output {
        guard let executable = executable ?? WorkerPool.currentExecutable else {
            throw CommandFailure(ExitCodes.software, "cannot find this executable (/proc/self/exe) to start workers")
        }
        let start = try parsedStartAt() ?? StartTime(date: Date().addingTimeInterval(Self.workerStartDelaySeconds))
        let workers = LocalWorkers(
            executable: executable, count: count, directory: shardOutput, start: start, runOptions: passedOnOptions)
        if !quiet {
            var notes = "starting \(count) worker\(count == 1 ? "" : "s") at \(start); shards go to \(workers.directory)/\n"
            let phases = scenarios.reduce(0) { $0 + $1.workload.concurrency.count * $1.workload.repetitions }
            if phases > 1 {
                notes += "note: \(phases) phases; only the first starts together, each later one when that worker "
                    + "finishes the previous (docs/scaling-out.md)\n"
            }
            StandardError.write(notes)
        }
        let merged: LocalWorkers.Merged
        do {
            merged = try await workers.run(scenarios, interruption: interruption, launched: launched)
        } catch {
            throw CommandFailure(error)
        }
        if let note = merged.note { StandardError.write("pagebench: \(note)\n") }
        if merged.rows.isEmpty { try Self.checkInterrupted(interruption, rows: []) }
        var responses = HTTPStatusCounts()
        for counts in merged.httpResponses { responses.add(HTTPStatusCounts(keyedCounts: counts)) }
        var rows = merged.rows
        objectives?.mark(&rows)
        let output = SweepRunner.Output(rows: rows, results: [], timeSeries: [])
        let csv = self.output ?? ResultWriter.defaultOutput
        do {
            try ResultWriter.write(output, to: csv, history: history, timeSeries: nil)
        } catch {
            throw CommandFailure(error)
        }
        if !quiet {
            if let target { out.write("HTTP responses from \(target), all workers: \(Self.responsesSummary(responses, rows: rows))\n") }
            out.write("\n" + (objectives?.summaryTable(rows) ?? SummaryTable.render(rows)))
            var files = [csv]
            if let history { files.append(history + " (appended)") }
            out.write("\nmerged \(count) shards from \(workers.directory)/: wrote \(merged.rows.count) rows to \(files.joined(separator: ", "))\n")
        }
        return output
    }
}
