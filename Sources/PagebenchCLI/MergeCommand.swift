import ArgumentParser
import Foundation
import PagebenchEngine
import PagebenchHTTPClient
import PagebenchHarness
import PagebenchMetrics
import PagebenchScaleOut
import PagebenchWire

/// `pagebench merge`: combines the result shards of one run (`run --shard I/N`) into the
/// CSV one process would have written: counters summed, histograms added, percentiles from
/// the merged histograms (docs/scaling-out.md).
package struct MergeCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the result shards of a run (pagebench run --shard I/N) into one results CSV.",
        discussion: """
            Give every shard file of the run, or the directories holding them (their shard-*.json files \
            are read). The shards must be of one run: same shard count, each index once, same \
            --start-at, same scenarios, configuration hashes, seeds and build. \
            Exit codes: 0 success, 64 invalid flags, 65 shards that are malformed, of different runs, \
            duplicated or missing, 66 a file or directory that does not exist, 73 output not writable.
            """
    )

    @Argument(help: ArgumentHelp("Shard files, or directories of shard-*.json files.", valueName: "shard"))
    package var paths: [String]

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Where to write the merged results CSV (atomically).", valueName: "file")
    )
    package var output: String = ResultWriter.defaultOutput

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Also append the merged rows to this history CSV.", valueName: "file")
    )
    package var history: String?

    @Flag(help: "No summary table; errors only.")
    package var quiet = false

    package init() {}

    package func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("give the shard files of the run, or their directory") }
        for path in [output] + [history].compactMap({ $0 }) where path.isEmpty || path.hasSuffix("/") {
            throw ValidationError("'\(path)' is not a file path; give a file name such as results/merged.csv")
        }
    }

    package func run() throws {
        var standardOutput = StandardOutput()
        do {
            try execute(into: &standardOutput)
            try standardOutput.finish()
        } catch {
            standardOutput.flush()
            throw error.report()
        }
    }

    /// Reads, checks and merges the shards, writes the CSV, prints the summary table to `out`.
    @discardableResult
    package func execute(into out: inout some TextOutputStream) throws(CommandError) -> [ResultRow] {
        let rows: [ResultRow]
        let inputs: [ShardMerge.Input]
        do {
            inputs = try ShardMerge.read(paths: paths)
            rows = try ShardMerge.merge(inputs)
            try ResultWriter.write(
                SweepRunner.Output(rows: rows, results: [], timeSeries: []),
                to: output,
                history: history,
                timeSeries: nil
            )
        } catch {
            throw CommandError(error)
        }
        if !quiet {
            out.write(SummaryTable.render(rows))
            var files = [output]
            if let history { files.append(history + " (appended)") }
            out.write("\nmerged \(inputs.count) shards: wrote \(rows.count) rows to \(files.joined(separator: ", "))\n")
            let remote = inputs.compactMap(\.file.httpResponses)
            if !remote.isEmpty {
                var responses = HTTPStatusCounts()
                for counts in remote { responses.add(HTTPStatusCounts(keyedCounts: counts)) }
                out.write(
                    "HTTP responses of the \(remote.count) --target shards: \(RunSession.responsesSummary(responses, rows: rows, checks: remote.count, check: "the first-page or /health check"))\n"
                )
            }
        }
        return rows
    }
}
