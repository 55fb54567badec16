import Foundation
import PagebenchMetrics
import Testing

@testable import PagebenchReport

/// The committed fixture files under Tests/Fixtures/, used by the CLI tests and the docs.
///
/// They are generated from ``SyntheticResults``; this suite fails when they drift. Regenerate with
/// `PAGEBENCH_REGENERATE_FIXTURES=1 swift test --filter FixtureFilesTests`.
@Suite struct FixtureFilesTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Two scenarios × two concurrencies, 5 repetitions, 2 % noise. `slowdown` is a code
    /// change that makes pages cost more (wall clock and instructions), `busierMachine` a
    /// machine that makes them take longer (wall clock and CPU time only).
    static func scenarios(
        slowdown: Double = 1,
        busierMachine: Double = 1,
        pagesDelta: Int = 0,
        seed: UInt64
    ) -> [ResultRow] {
        var rows: [ResultRow] = []
        for (index, scenario) in ["even", "clustered"].enumerated() {
            for concurrency in [1, 4] {
                var results = SyntheticResults()
                results.scenario = scenario
                results.configHash = index == 0 ? "5e1ec7edc0ffee11" : "c1u57e7ed0000001"
                results.concurrency = concurrency
                results.noise = 0.02
                results.pagesPerSecond =
                    (index == 0 ? 10_000 : 6_000) * Double(concurrency).squareRoot() / slowdown / busierMachine
                results.pageLatencyP50Nanoseconds = 200_000 * slowdown * busierMachine
                results.cpuFactor = busierMachine
                results.instructionsPerPage = ((index == 0 ? 4_812.5 : 5_903.25) + Double(concurrency) * 11) * slowdown
                results.emptyPagesWasted = index == 0 ? 12 : 300
                results.pages = 1_200 + (index == 0 ? 0 : 300) + pagesDelta
                rows += results.rows(seed: seed &+ UInt64(index * 10 + concurrency))
            }
        }
        return rows
    }

    /// Three storage layouts over concurrency 1…8 (selectivity, empty pages and latency differ), for the report.
    static func configurations() -> [ResultRow] {
        var rows: [ResultRow] = []
        let layouts: [(String, String, Double, Int, Int, Double)] = [
            // name, hash, pages/s at 1, items, wasted empty pages, cancellation p50 ns
            ("even", "5e1ec7edc0ffee11", 9_000, 60_000, 10, 35_000),
            ("clustered", "c1u57e7ed0000001", 6_500, 30_000, 380, 60_000),
            ("sparse", "5pa45e0000000003", 4_000, 3_000, 900, 90_000),
        ]
        for (index, layout) in layouts.enumerated() {
            for concurrency in [1, 2, 4, 8] {
                var results = SyntheticResults()
                results.scenario = layout.0
                results.configHash = layout.1
                results.concurrency = concurrency
                results.repetitions = 3
                results.noise = 0.03
                results.pagesPerSecond = layout.2 * pow(Double(concurrency), 0.6)
                results.pageLatencyP50Nanoseconds = 150_000 * pow(Double(concurrency), 0.4) * (1 + Double(index) * 0.3)
                results.items = layout.3
                results.pages = 1_200 + layout.4
                results.emptyPagesWasted = layout.4
                results.cancellationLatencyP50Nanoseconds = layout.5 * Double(concurrency).squareRoot()
                rows += results.rows(seed: UInt64(index * 100 + concurrency))
            }
        }
        return rows
    }

    /// The same two identities measured at five commits, the fourth a little slower.
    static func history() -> [ResultRow] {
        var rows: [ResultRow] = []
        let commits = ["3f2a9c1", "8b7e004", "c0ffee5", "d15ea5e", "e4f1a22"]
        for (index, commit) in commits.enumerated() {
            for concurrency in [1, 4] {
                var results = SyntheticResults()
                results.gitCommit = commit + String(repeating: "0", count: 33)
                results.timestampUTC = "2026-11-\(10 + index)T03:00:00Z"
                results.concurrency = concurrency
                results.repetitions = 3
                results.noise = 0.02
                results.pagesPerSecond = 9_000 * Double(concurrency).squareRoot() * (index == 3 ? 0.85 : 1)
                rows += results.rows(seed: UInt64(index * 10 + concurrency))
            }
        }
        return rows
    }

    static var timeSeriesFiles: [String: [TimeSeriesRow]] {
        ["report/timeseries.csv": syntheticTimeSeries(seconds: 30)]
    }

    static var files: [String: [ResultRow]] {
        [
            "check/baseline.csv": scenarios(seed: 1),
            // The same build measured again: only noise.
            "check/current-same.csv": scenarios(seed: 1_000),
            // A deliberate 20 % slowdown: CI must turn red.
            "check/current-regression.csv": scenarios(slowdown: 1.2, seed: 2_000),
            // The same build on a busier machine (H10): 25 % slower by the clock, the same
            // instructions per page; passes unless wall-clock figures are gated.
            "check/current-busy-machine.csv": scenarios(busierMachine: 1.25, seed: 4_000),
            // One more page per drain set: a behaviour change.
            "check/current-behaviour-change.csv": scenarios(pagesDelta: 1, seed: 3_000),
            "report/configurations.csv": configurations(),
            "report/history.csv": history(),
        ]
    }

    /// `check/baseline-schema1.csv` is `check/baseline.csv` as schema version 1 wrote it
    /// (before `harness_overhead_ratio`): it must read as the same rows.
    @Test func schemaVersionOneBaselineReadsAsTheCurrentRows() throws {
        let old = try CSVFile.read(
            ResultRow.self,
            from: Self.directory.appendingPathComponent("check/baseline-schema1.csv").path
        )
        let current = try CSVFile.read(
            ResultRow.self,
            from: Self.directory.appendingPathComponent("check/baseline.csv").path
        )
        #expect(!old.isEmpty)
        // Version 1 had no instructions_per_page (added in 5) either.
        #expect(
            old
                == current.map { row in
                    var row = row
                    row.instructionsPerPage = nil
                    return row
                }
        )
        #expect(old.allSatisfy { $0.schemaVersion == ResultRow.currentSchemaVersion && $0.harnessOverheadRatio == nil })
    }

    @Test func committedFixturesMatchTheGenerator() throws {
        let regenerate = ProcessInfo.processInfo.environment["PAGEBENCH_REGENERATE_FIXTURES"] != nil
        let texts = try Self.files.mapValues { try ResultRow.csvText($0) }
            .merging(Self.timeSeriesFiles.mapValues { try TimeSeriesRow.csvText($0) }) { first, _ in first }
        for (name, text) in texts.sorted(by: { $0.key < $1.key }) {
            let url = Self.directory.appendingPathComponent(name)
            if regenerate {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(),
                    withIntermediateDirectories: true
                )
                try text.write(to: url, atomically: true, encoding: .utf8)
            }
            let committed = try String(contentsOf: url, encoding: .utf8)
            #expect(committed == text, "\(name) drifted; regenerate with PAGEBENCH_REGENERATE_FIXTURES=1")
        }
    }

    @Test func fixtureVerdictsAreTheDocumentedOnes() throws {
        let baseline = try CSVFile.readResults(Self.directory.appendingPathComponent("check/baseline.csv").path)
        func check(_ name: String) throws -> CheckReport {
            RegressionChecker().check(
                baseline: baseline,
                current: try CSVFile.readResults(Self.directory.appendingPathComponent(name).path),
                baselineFile: "baseline.csv",
                currentFile: name
            )
        }
        let same = try check("check/current-same.csv")
        #expect(!same.fails, "\(same.text)")
        let regression = try check("check/current-regression.csv")
        #expect(regression.hasRegression)
        #expect(regression.behaviourChangeCount == 0)
        // Every group's instructions per page regressed (gated) and so did its throughput (reported).
        #expect(
            regression.allVerdicts.filter { $0.verdict.metric == "instructions_per_page" }.allSatisfy {
                $0.verdict.verdict == .regression && $0.verdict.gated
            }
        )
        #expect(
            regression.allVerdicts.filter { $0.verdict.metric == "pages_per_s" }.allSatisfy {
                $0.verdict.verdict == .worse && !$0.verdict.gated
            }
        )
        // H10: the busier machine's shift is reported, not gated.
        let busy = try check("check/current-busy-machine.csv")
        #expect(!busy.fails, "\(busy.text)")
        #expect(busy.count(.worse, gated: false) > 0)
        let behaviour = try check("check/current-behaviour-change.csv")
        #expect(!behaviour.hasRegression)
        #expect(behaviour.fails)
        #expect(behaviour.comparisons.allSatisfy { $0.behaviourChanges.contains { $0.metric == "pages" } })
    }
}
