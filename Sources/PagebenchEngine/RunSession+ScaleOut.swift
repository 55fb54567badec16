import Foundation
import PagebenchHTTPClient
import PagebenchHarness
import PagebenchMetrics
import PagebenchScaleOut
import PagebenchWire

/// `run --shard I/N`, `--start-at` and `--workers N` (docs/scaling-out.md).
extension RunSession {
    /// How far ahead `--workers` schedules the common start when no `--start-at` is given:
    /// time for every worker process to start, load its scenarios and build its store.
    package static let workerStartDelaySeconds = 2.0

    /// `--start-at`, parsed and checked against the clock now; prints the warning of a start
    /// time that passed within the grace period.
    func parsedStartAt() throws(CommandError) -> StartTime? {
        guard let startAt = request.startAt else { return nil }
        do {
            let start = try StartTime(parsing: startAt)
            if let warning = try start.check() {
                StandardError.write("pagebench: warning: \(warning)\n")
            }
            return start
        } catch {
            throw CommandError(error)
        }
    }

    /// Sharded runs merge exactly only what a shard file carries: not the overhead ratio,
    /// which compares two phases of one process.
    static func checkShardable(_ scenarios: [Scenario]) throws(CommandError) {
        if let scenario = scenarios.first(where: { $0.workload.measureOverhead }) {
            throw .usage(
                "scenario '\(scenario.name)' measures overhead (measureOverhead / --measure-overhead), which a sharded "
                    + "run cannot merge; measure overhead in one process"
            )
        }
    }

    /// Writes (S22) run in-process only: the harness counts duplicates and skips (S25) from
    /// the in-process store's versioned overlay. Workers and shards would each write their
    /// own copy of the store (one store's writes would be several different stores'), and a
    /// served or real target's writes are not the harness's to see; refused, not measured
    /// wrongly.
    static func checkWrites(_ scenarios: [Scenario], workers: Bool, shard: Bool, target: Bool) throws(CommandError) {
        guard let scenario = scenarios.first(where: { $0.store.writes != nil }) else { return }
        let why: String
        if workers || shard {
            why =
                "\(workers ? "--workers" : "--shard") would give every worker process its own copy of the store, each with its own writes"
        } else if target {
            why =
                "a target's writes are its own: the harness counts duplicates and skips (S25) from the in-process store's overlay"
        } else {
            return
        }
        throw .usage(
            "scenario '\(scenario.name)' has writes (S22), which run in one process on the in-process store only: \(why); "
                + "run it without that flag"
        )
    }

    /// Writes this process's shard file and returns its path (its `--timeseries` rows were
    /// written as their intervals ended: ``PagebenchHarness/TimeSeriesStream``).
    func writeShard(
        _ result: SweepRunner.Output,
        shard: Shard,
        startAt: StartTime?,
        httpResponses: HTTPStatusCounts?,
        interrupted: Bool
    ) throws(CommandError) -> String {
        let path = LocalWorkers.shardPath(directory: request.shardDirectory, shard: shard)
        do {
            try ShardFile(
                shard: shard,
                startAt: startAt,
                output: result,
                httpResponses: httpResponses?.keyedCounts,
                interrupted: interrupted
            ).write(to: path)
        } catch {
            throw CommandError(wrapping: error)
        }
        return path
    }

    /// `--workers N` (``PagebenchScaleOut/LocalWorkers``): checks, progress lines and the
    /// merged CSV around the workers' run.
    func runWorkers(
        _ count: Int,
        scenarios: [Scenario],
        objectives: RunObjectives?,
        into out: inout some TextOutputStream
    ) async throws(CommandError) -> SweepRunner.Output {
        guard let executable = workerExecutable ?? WorkerPool.currentExecutable else {
            throw .internalFailure("cannot find this executable (/proc/self/exe) to start workers")
        }
        let start = try parsedStartAt() ?? StartTime(date: Date().addingTimeInterval(Self.workerStartDelaySeconds))
        let workers = LocalWorkers(
            executable: executable,
            count: count,
            directory: request.shardDirectory,
            start: start,
            runOptions: request.passedOnOptions + request.passedOnMetricsOptions
        )
        if !quiet {
            var notes =
                "starting \(count) worker\(count == 1 ? "" : "s") at \(start); shards go to \(workers.directory)/\n"
            let phases = scenarios.reduce(0) { $0 + $1.workload.concurrency.count * $1.workload.repetitions }
            if phases > 1 {
                notes +=
                    "note: \(phases) phases; only the first starts together, each later one when that worker "
                    + "finishes the previous (docs/scaling-out.md)\n"
            }
            StandardError.write(notes)
        }
        let merged: LocalWorkers.Merged
        do {
            merged = try await workers.run(scenarios, interruption: interruption, launched: workerLaunched)
        } catch {
            throw CommandError(error)
        }
        if let note = merged.note { StandardError.write("pagebench: \(note)\n") }
        if merged.rows.isEmpty { try Self.checkInterrupted(interruption, rows: []) }
        var responses = HTTPStatusCounts()
        for counts in merged.httpResponses { responses.add(HTTPStatusCounts(keyedCounts: counts)) }
        var rows = merged.rows
        objectives?.mark(&rows)
        let output = SweepRunner.Output(rows: rows, results: [], timeSeries: [])
        let csv = request.output ?? ResultWriter.defaultOutput
        do {
            try ResultWriter.write(output, to: csv, history: request.history, timeSeries: nil)
        } catch {
            throw CommandError(error)
        }
        if !quiet {
            if let target = request.servedStore {
                out.write(
                    "HTTP responses from \(target), all workers: "
                        + Self.responsesSummary(
                            responses,
                            rows: rows,
                            checks: merged.httpResponses.count,
                            check: "the /health check"
                        ) + "\n"
                )
            }
            out.write("\n" + (objectives?.summaryTable(rows) ?? SummaryTable.render(rows)))
            var files = [csv]
            if let history = request.history { files.append(history + " (appended)") }
            out.write(
                "\nmerged \(count) shards from \(workers.directory)/: wrote \(merged.rows.count) rows to \(files.joined(separator: ", "))\n"
            )
        }
        return output
    }
}
