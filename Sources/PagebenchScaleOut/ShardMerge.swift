import Foundation
import PagebenchBase
import PagebenchHarness
import PagebenchMetrics

/// Combines the result shards of one run into the rows one process would have written
/// (`pagebench merge`), exactly:
///
/// - counters are summed (`pages_per_drain_max` is the largest);
/// - latency histograms are added bucket by bucket, and every percentile is read from the
///   merged histogram: never an average of the shards' percentiles;
/// - the phase's wall time is from the earliest start to the latest end of the shards that
///   ran pagers (start instants are wall-clock UTC, lengths monotonic), and every rate is a
///   merged count over it. With a common `--start-at` this is the longest shard plus the
///   start skew, so rates are never overstated;
/// - resources are sums over the worker processes: CPU seconds, allocations, and peak
///   allocated bytes and peak RSS (each process's own peak, so the sum bounds the
///   simultaneous total from above);
/// - context columns come from shard 0, except `timestamp_utc` (the earliest start), `host`
///   (the distinct hosts joined with `+`) and `cores` (summed over distinct hosts).
///
/// Shards must be of one run: the same shard count, every index `0..<count` exactly once,
/// the same `--start-at`, the same phases (scenario, configuration hash, seed, concurrency,
/// repetition) in the same order, the same pagebench version, commit and build, and each
/// shard's pagers and drains must be its share (``Shard``).
package enum ShardMerge {
    /// One shard file and where it came from (named in errors).
    package struct Input: Sendable {
        package var path: String
        package var file: ShardFile

        package init(path: String, file: ShardFile) {
            self.path = path
            self.file = file
        }
    }

    /// Reads every shard file named by `paths`: files as they are, and the `shard-*.json`
    /// files of directories.
    ///
    /// - Throws: ``HarnessError``: `inputUnavailable` for a missing path or a directory
    ///   without shards, `invalidShard` for a malformed file.
    package static func read(paths: [String]) throws(HarnessError) -> [Input] {
        var files: [String] = []
        for path in paths {
            let listed: [String]
            do {
                guard try FileSystem.isDirectory(path) else {
                    files.append(path)
                    continue
                }
                listed = try FileSystem.directoryEntries(path)
            } catch {
                throw HarnessError(
                    .inputUnavailable,
                    file: path,
                    error.kind == .missing ? "no such shard file or directory; check the path" : error.reason
                )
            }
            let entries = listed.filter { $0.hasPrefix("shard-") && $0.hasSuffix(".json") }.sorted()
            guard !entries.isEmpty else {
                throw HarnessError(
                    .inputUnavailable,
                    file: path,
                    "the directory holds no shard-*.json files; is it the --shard-output directory?"
                )
            }
            files += entries.map { (path.hasSuffix("/") ? path : path + "/") + $0 }
        }
        var inputs: [Input] = []
        for file in files { inputs.append(Input(path: file, file: try ShardFile.read(path: file))) }
        return inputs
    }

    /// Validates that `inputs` are all the shards of one run and merges them: one row per
    /// phase, in the shards' phase order.
    ///
    /// - Throws: ``HarnessError`` (`invalidShard`) naming the files and what differs.
    package static func merge(_ inputs: [Input]) throws(HarnessError) -> [ResultRow] {
        let ordered = try validate(inputs)
        var rows: [ResultRow] = []
        for phase in ordered[0].file.phases.indices {
            rows.append(mergedRow(ordered.map { $0.file.phases[phase] }))
        }
        return rows
    }

    /// The inputs ordered by shard index, after every check of ``merge(_:)``.
    static func validate(_ inputs: [Input]) throws(HarnessError) -> [Input] {
        func fail(_ message: String) -> HarnessError { HarnessError(.invalidShard, message) }
        guard let first = inputs.first else { throw fail("no shard files given; name the files or their directory") }
        let count = first.file.shard.count
        var byIndex: [Int: Input] = [:]
        for input in inputs {
            guard input.file.shard.count == count else {
                throw fail(
                    "\(first.path) is shard \(first.file.shard) but \(input.path) is shard \(input.file.shard): "
                        + "shards of runs split differently cannot be merged"
                )
            }
            if let earlier = byIndex[input.file.shard.index] {
                throw fail(
                    "shard \(input.file.shard) appears twice: \(earlier.path) and \(input.path); give each shard once"
                )
            }
            byIndex[input.file.shard.index] = input
        }
        let missing = (0..<count).filter { byIndex[$0] == nil }
        guard missing.isEmpty else {
            throw fail(
                "missing shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(count)" }.joined(separator: ", ")) "
                    + "(have \(byIndex.keys.sorted().map { "\($0)/\(count)" }.joined(separator: ", "))); an exact merge "
                    + "needs the shard file of every worker"
            )
        }
        var ordered = (0..<count).map { byIndex[$0]! }
        // Interrupted workers (H6) stop at different points: the phases every shard reached
        // merge (the cut-short one partial); a phase only some shards began is incomplete.
        let reached = ordered.map(\.file.phases.count).min() ?? 0
        if ordered.contains(where: \.file.interrupted) {
            for index in ordered.indices {
                ordered[index].file.phases = Array(ordered[index].file.phases.prefix(reached))
            }
        }
        let reference = ordered[0]
        for input in ordered.dropFirst() {
            guard input.file.startAt == reference.file.startAt else {
                throw fail(
                    "\(reference.path) was started at \(reference.file.startAt ?? "(no --start-at)") but \(input.path) at "
                        + "\(input.file.startAt ?? "(no --start-at)"): shards of different runs"
                )
            }
            guard input.file.phases.count == reference.file.phases.count else {
                throw fail(
                    "\(reference.path) has \(reference.file.phases.count) phases but \(input.path) has "
                        + "\(input.file.phases.count): shards of different runs, or a worker that stopped early"
                )
            }
            for (mine, theirs) in zip(input.file.phases, reference.file.phases) {
                guard mine.identity == theirs.identity else {
                    throw fail(
                        "\(input.path) has phase \(mine.identity) where \(reference.path) has \(theirs.identity): "
                            + "shards of different runs (scenario, configuration, seed, concurrency and repetition must match)"
                    )
                }
                for (name, value, expected) in [
                    ("pagebench_version", mine.row.pagebenchVersion, theirs.row.pagebenchVersion),
                    ("git_commit", mine.row.gitCommit, theirs.row.gitCommit),
                    ("build_configuration", mine.row.buildConfiguration, theirs.row.buildConfiguration),
                ] where value != expected {
                    throw fail(
                        "\(input.path) was written by \(name) \(value) but \(reference.path) by \(expected): "
                            + "run every worker from the same build"
                    )
                }
            }
        }
        for input in ordered {
            let shard = input.file.shard
            for phase in input.file.phases {
                let pagers = shard.pagers(ofConcurrency: phase.concurrency)
                guard phase.pagers == pagers else {
                    throw fail(
                        "\(input.path): phase \(phase.identity) ran \(phase.pagers) pagers, but shard \(shard)'s share of "
                            + "\(phase.concurrency) is \(pagers)"
                    )
                }
                if let total = phase.row.plannedDrains {
                    let share = shard.drainCount(of: total, concurrency: phase.concurrency)
                    guard phase.drains == share else {
                        throw fail(
                            "\(input.path): phase \(phase.identity) was given \(phase.drains.map(String.init) ?? "no") drains, "
                                + "but shard \(shard)'s share of \(total) is \(share)"
                        )
                    }
                }
            }
        }
        for phase in reference.file.phases.indices {
            let all = ordered.map { $0.file.phases[phase].metrics }
            for (name, limits) in [
                ("page", all.map { $0.pageLatency.highestTrackableNanoseconds }),
                ("drain", all.map { $0.drainLatency.highestTrackableNanoseconds }),
                ("drainCorrected", all.compactMap { $0.drainLatencyCorrected?.highestTrackableNanoseconds }),
                ("cancellation", all.compactMap { $0.cancellationLatency?.highestTrackableNanoseconds }),
            ] where Set(limits).count > 1 {
                throw fail(
                    "phase \(reference.file.phases[phase].identity): the '\(name)' histograms have different clamp "
                        + "limits (\(Set(limits).sorted().map { "highest=\($0)" }.joined(separator: ", "))) and cannot be added"
                )
            }
        }
        return ordered
    }

    /// The merged row of one phase's shards (in shard order), already validated.
    static func mergedRow(_ phases: [ShardPhase]) -> ResultRow {
        let metrics = TaskMetrics.merged(phases.map(\.metrics))
        let running = phases.filter { $0.pagers > 0 }
        let start = running.map(\.startedAtUnixNanoseconds).min() ?? 0
        let end = running.map(\.endedAtUnixNanoseconds).max() ?? 0
        let wallSeconds = Double(end >= start ? end - start : 0) / 1e9

        var row = phases[0].row
        row.timestampUTC = RunContext.timestamp(Date(timeIntervalSince1970: Double(start) / 1e9))
        var coresByHost: [String: Int] = [:]
        for phase in phases { coresByHost[phase.row.host] = max(coresByHost[phase.row.host] ?? 0, phase.row.cores) }
        row.host = coresByHost.keys.sorted().joined(separator: "+")
        row.cores = coresByHost.values.reduce(0, +)
        row.apply(metrics, measuredSeconds: wallSeconds)
        // A real target's row says what the API reported, as each shard's did.
        if row.pagedRealTarget { row.applyRealTarget(reportsScannedCount: phases[0].row.scannedItems != nil) }
        if row.stage != nil, wallSeconds > 0 {
            // A stage's rates count what completed while it ran (H7), not the drains that
            // started in it: each shard's rate times its stage's length is what it completed.
            func completed(_ rate: KeyPath<ResultRow, Double?>) -> Double {
                phases.reduce(0) { $0 + ($1.row[keyPath: rate] ?? 0) * $1.row.durationSeconds }
            }
            func completed(_ rate: KeyPath<ResultRow, Double>) -> Double {
                phases.reduce(0) { $0 + $1.row[keyPath: rate] * $1.row.durationSeconds }
            }
            row.pagesPerSecond = completed(\.pagesPerSecond) / wallSeconds
            row.itemsPerSecond = completed(\.itemsPerSecond) / wallSeconds
            if row.scannedBytesPerSecond != nil {
                row.scannedBytesPerSecond = completed(\.scannedBytesPerSecond) / wallSeconds
            }
            row.drainsPerSecond = completed(\.drainsPerSecond) / wallSeconds
        }
        row.applyResources(
            cpu: CPUTime(
                userSeconds: phases.reduce(0) { $0 + $1.row.cpuUserSeconds },
                systemSeconds: phases.reduce(0) { $0 + $1.row.cpuSystemSeconds }
            ),
            allocationRequests: phases.reduce(0) { $0 + $1.row.allocations },
            peakAllocatedBytes: phases.reduce(0) { $0 + $1.row.peakAllocatedBytes },
            peakRSSBytes: phases.reduce(0) { $0 + $1.row.peakRSSBytes }
        )
        row.measurementOverheadRatio = nil
        row.harnessOverheadRatio = nil
        // A phase any shard cut short is partial (H6).
        row.partial = phases.map(\.row.partial).max() ?? 0
        if !row.targetKind.isEmpty {
            // What the target answered, summed over the shards (each counted its own requests).
            var remote = RemoteCounts()
            for phase in phases {
                remote.add(
                    RemoteCounts(
                        responses: RemoteCounts.responses(fromText: phase.row.httpResponses) ?? [:],
                        targetErrors: phase.row.targetErrors.byKind,
                        consumedCapacityUnits: phase.row.consumedCapacityUnits
                    )
                )
            }
            row.apply(remote)
            let warmups = phases.compactMap(\.row.warmupRequests)
            row.warmupRequests = warmups.isEmpty ? nil : warmups.reduce(0, +)
        }
        return row
    }
}
