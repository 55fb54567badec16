import Foundation
import PagebenchBase
import PagebenchHarness
import PagebenchMetrics

/// `pagebench run --workers N` without the command line: the effective scenarios go to
/// `<directory>/scenarios/`, N worker processes run them as shards `i/N` from a common
/// start, and their shard files are merged.
package struct LocalWorkers: Sendable {
    /// The executable every worker runs (`pagebench`).
    package let executable: String
    /// The shards, `0/N` … `N-1/N`.
    package let shards: [Shard]
    /// Where scenario and shard files go, without a trailing slash.
    package let directory: String
    /// When the workers begin their first phase.
    package let start: StartTime
    /// Run options that are not part of a scenario, passed to every worker as they are.
    package let runOptions: [String]

    /// What the workers produced together.
    package struct Merged: Sendable {
        /// One merged row per phase.
        package var rows: [ResultRow]
        /// Each shard's HTTP responses by status (`--target` runs; empty otherwise).
        package var httpResponses: [[String: Int]]
        /// What the caller should tell the user about an interrupted run, if anything.
        package var note: String? = nil
    }

    package init(executable: String, count: Int, directory: String, start: StartTime, runOptions: [String]) {
        self.executable = executable
        shards = Shard.all(count: count)
        self.directory = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.start = start
        self.runOptions = runOptions
    }

    /// The path of `shard`'s file in `directory`.
    package static func shardPath(directory: String, shard: Shard) -> String {
        (directory.hasSuffix("/") ? directory : directory + "/") + ShardFile.fileName(for: shard)
    }

    /// Where each worker writes its shard file.
    package var shardPaths: [String] { shards.map { Self.shardPath(directory: directory, shard: $0) } }

    /// Writes the scenarios, removes the shard files of an earlier run, starts every
    /// worker, waits for them all and merges their shards.
    ///
    /// - Parameter launched: called with each worker's index and process id.
    /// - Throws: ``PagebenchHarness/HarnessError``: `outputFailed` when a scenario cannot
    ///   be written or an old shard removed, `workerFailed` when a worker did not finish
    ///   (the shards of those that did are kept and named), `invalidShard` when the shards
    ///   do not merge.
    package func run(
        _ scenarios: [Scenario],
        interruption: Interruption? = nil,
        launched: @Sendable (Int, Int32) -> Void
    ) async throws(HarnessError) -> Merged {
        let scenarioFiles = try writeScenarios(scenarios)
        try removeStaleShards()
        let pool = WorkerPool(executable: executable, arguments: arguments(scenarioFiles: scenarioFiles))
        let outcomes = try await pool.run(interruption: interruption, launched: launched)
        let paths = shardPaths
        if let signal = interruption?.signal {
            // An interrupted worker exits 128 + the signal after writing its shard (H6); one
            // signalled before it could trap the signal ends by it and measured nothing.
            let stopped: Set<WorkerPool.Termination> = [.exited(0), .exited(128 + signal), .signalled(signal)]
            if outcomes.allSatisfy({ stopped.contains($0.termination) }) {
                let written = paths.filter { FileManager.default.fileExists(atPath: $0) }
                guard written.count == paths.count else {
                    // Not every shard exists: no phase can be merged exactly; keep what was written.
                    let note =
                        "interrupted before every worker had written its shard; "
                        + (written.isEmpty ? "no shard was written" : "kept " + written.joined(separator: ", "))
                    return Merged(rows: [], httpResponses: [], note: note)
                }
                let inputs = try ShardMerge.read(paths: paths)
                return Merged(
                    rows: try ShardMerge.merge(inputs),
                    httpResponses: inputs.map { $0.file.httpResponses ?? [:] }
                )
            }
        }
        let failed = outcomes.filter { !$0.termination.succeeded }
        guard failed.isEmpty else {
            let kept = outcomes.filter {
                $0.termination.succeeded && FileManager.default.fileExists(atPath: paths[$0.index])
            }
            var message = failed.map {
                "worker \($0.index) (shard \(shards[$0.index]), pid \($0.processIdentifier)) \($0.termination)"
            }
            .joined(separator: "; ")
            message += "; the run failed"
            message +=
                kept.isEmpty
                ? " and no worker finished"
                : "; kept the shards that finished: " + kept.map { paths[$0.index] }.joined(separator: ", ")
            throw HarnessError(.workerFailed, message)
        }
        let inputs = try ShardMerge.read(paths: paths)
        return Merged(rows: try ShardMerge.merge(inputs), httpResponses: inputs.map { $0.file.httpResponses ?? [:] })
    }

    /// Writes each scenario (flags already applied) to `<directory>/scenarios/K-name.json`,
    /// so the workers run exactly what this process resolved. Returns the paths.
    package func writeScenarios(_ scenarios: [Scenario]) throws(HarnessError) -> [String] {
        try Self.writeScenarios(scenarios, to: directory, role: "workers'")
    }

    /// Writes each scenario to `<directory>/scenarios/K-name.json` and returns the paths;
    /// `role` names the process that will read them in the error message.
    package static func writeScenarios(
        _ scenarios: [Scenario],
        to directory: String,
        role: String
    ) throws(HarnessError)
        -> [String]
    {
        var paths: [String] = []
        for (number, scenario) in scenarios.enumerated() {
            let path = "\(directory)/scenarios/\(number + 1)-\(scenario.name).json"
            do {
                try FileSystem.createParentDirectory(of: path)
                try AtomicFile.write(try scenario.jsonText(), to: path)
            } catch {
                throw HarnessError(.outputFailed, file: path, "cannot write the \(role) scenario: \(error)")
            }
            paths.append(path)
        }
        return paths
    }

    /// Removes shard files an earlier run left: they must never be merged into this one.
    package func removeStaleShards() throws(HarnessError) {
        for path in shardPaths where FileManager.default.fileExists(atPath: path) {
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw HarnessError(.outputFailed, file: path, "cannot remove the old shard file: \(error)")
            }
        }
    }

    /// Each worker's arguments: `run SCENARIO… --shard i/N --start-at T --shard-output DIR --quiet` and the run options.
    package func arguments(scenarioFiles: [String]) -> [[String]] {
        shards.map { shard in
            ["run"] + scenarioFiles + [
                "--shard", shard.description, "--start-at", start.description, "--shard-output", directory, "--quiet",
            ] + runOptions
        }
    }
}
