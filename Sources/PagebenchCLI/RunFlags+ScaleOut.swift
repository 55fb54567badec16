import ArgumentParser
import PagebenchEngine
import PagebenchHarness
import PagebenchScaleOut

/// `pagebench run --shard I/N`, `--start-at` and `--workers N` (docs/scaling-out.md): their
/// flags; ``PagebenchEngine/RunSession`` runs them.
extension RunFlags {
    /// The default `--shard-output`.
    package static let defaultShardDirectory = RunRequest.defaultShardDirectory

    /// The most local worker processes `--workers` starts.
    package static let maximumWorkers = 256

    /// Checks the scale-out flags on their own and against each other (exit 64).
    func validateScaleOut() throws {
        if let workers {
            guard workers >= 1, workers <= Self.maximumWorkers else {
                throw ValidationError("--workers must be between 1 and \(Self.maximumWorkers), got \(workers)")
            }
            guard shard == nil else {
                throw ValidationError(
                    "--workers and --shard exclude each other: --workers N starts the shards 0/N … N-1/N itself"
                )
            }
            guard timeseries == nil else {
                throw ValidationError(
                    "--timeseries is not supported with --workers; run the shards yourself with --shard I/N and a "
                        + "--timeseries file each"
                )
            }
        }
        if shard != nil {
            for (flag, value) in [("--output", output), ("--history", history)] where value != nil {
                throw ValidationError(
                    "\(flag) does not apply to --shard: a shard writes its shard file to --shard-output; merge the "
                        + "shards of all workers with `pagebench merge` to get the CSV"
                )
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
    func parsedShard() throws(CommandError) -> Shard? {
        guard let shard else { return nil }
        do {
            return try Shard(parsing: shard)
        } catch {
            throw CommandError(error)
        }
    }
}
