import ArgumentParser
import Foundation
import PagebenchTestSupport
import Testing

@testable import PagebenchCLI

/// `check`, `baseline update`, `compare` and `report` end to end: parse, validate, run, and the
/// exit status `pagebench` would return (docs/exit-codes.md).
@Suite struct ReportCommandsTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// Runs `pagebench arguments…` in process and returns the exit status `main()` would use.
    func exitStatus(_ arguments: [String]) async -> Int32 {
        do {
            var command = try PagebenchCommand.parseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            return PagebenchCommand.exitCode(for: error).rawValue
        }
    }

    func write(_ text: String, _ name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func deliberateRegressionTurnsCheckRed() async {
        let status = await exitStatus([
            "check", "--baseline", Self.fixture("check/baseline.csv"), "--current",
            Self.fixture("check/current-regression.csv"),
            "--format", "markdown",
        ])
        #expect(status == 1)
    }

    /// H10: a same-build run on a busier machine passes by default and fails only when
    /// wall-clock figures are gated.
    @Test func h10BusierMachinePassesUnlessWallClockIsGated() async {
        let arguments = [
            "check", "--baseline", Self.fixture("check/baseline.csv"), "--current",
            Self.fixture("check/current-busy-machine.csv"),
        ]
        #expect(await exitStatus(arguments) == 0)
        #expect(await exitStatus(arguments + ["--gate-wall-clock"]) == 1)
    }

    @Test func sameBuildPassesTheCheck() async {
        for format in ["text", "markdown", "json"] {
            let status = await exitStatus([
                "check", "--baseline", Self.fixture("check/baseline.csv"), "--current",
                Self.fixture("check/current-same.csv"),
                "--format", format,
            ])
            #expect(status == 0, "format \(format)")
        }
    }

    @Test func behaviourChangeFailsUnlessAllowed() async {
        let arguments = [
            "check", "--baseline", Self.fixture("check/baseline.csv"), "--current",
            Self.fixture("check/current-behaviour-change.csv"),
        ]
        #expect(await exitStatus(arguments) == 1)
        #expect(await exitStatus(arguments + ["--allow-behaviour-change"]) == 0)
    }

    @Test func badArgumentsExit64() async {
        let baseline = Self.fixture("check/baseline.csv")
        #expect(await exitStatus(["check", "--baseline", baseline]) == 64)  // --current missing
        #expect(await exitStatus(["check", "--baseline", baseline, "--current", baseline, "--format", "yaml"]) == 64)
        #expect(await exitStatus(["check", "--baseline", baseline, "--current", baseline, "--format", "csv"]) == 64)
        #expect(await exitStatus(["compare"]) == 64)
        #expect(await exitStatus(["compare", baseline, "--metrics", "pages_per_sec"]) == 64)
        #expect(await exitStatus(["report", baseline, "--output", ""]) == 64)
        #expect(await exitStatus(["report", baseline, "--output", "/tmp/x.html", "--slo", "pages_per_sec<5"]) == 64)
        #expect(await exitStatus(["baseline", "update", "--from", baseline, "--name", "../escape"]) == 64)
    }

    @Test func malformedCSVOrThresholdsExit65() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let baseline = Self.fixture("check/baseline.csv")
        var lines = try String(contentsOfFile: baseline, encoding: .utf8).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        lines[2] = lines[2].replacingOccurrences(of: ",loop,", with: ",loop,extra,")[...]
        let broken = try write(lines.joined(separator: "\n"), "broken.csv", in: directory)
        #expect(await exitStatus(["check", "--baseline", baseline, "--current", broken]) == 65)
        let thresholds = try write("{\"metrics\": {\"pages\": {\"relative\": 0.1}}}", "t.json", in: directory)
        #expect(
            await exitStatus(["check", "--baseline", baseline, "--current", baseline, "--thresholds", thresholds]) == 65
        )
        let headerOnly = try write(String(lines[0]) + "\n", "empty.csv", in: directory)
        #expect(await exitStatus(["compare", headerOnly]) == 65)
    }

    @Test func missingFileExits66() async {
        let baseline = Self.fixture("check/baseline.csv")
        #expect(await exitStatus(["check", "--baseline", "/nonexistent/b.csv", "--current", baseline]) == 66)
        #expect(
            await exitStatus([
                "check", "--baseline", baseline, "--current", baseline, "--thresholds", "/nonexistent/t.json",
            ]) == 66
        )
        #expect(await exitStatus(["report", "/nonexistent/r.csv", "--output", "/tmp/never.html"]) == 66)
    }

    @Test func baselineUpdateWritesAtomicallyAndCheckAcceptsIt() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let baselines = directory.appendingPathComponent("results/baselines").path
        let source = Self.fixture("check/current-same.csv")
        #expect(
            await exitStatus(["baseline", "update", "--name", "nightly", "--from", source, "--directory", baselines])
                == 0
        )
        let written = baselines + "/nightly.csv"
        #expect(try String(contentsOfFile: written, encoding: .utf8) == String(contentsOfFile: source, encoding: .utf8))
        #expect(await exitStatus(["check", "--baseline", written, "--current", source]) == 0)
        // A bad source leaves the old baseline untouched.
        let bad = try write("not,a,results,file\n1,2,3,4\n", "bad.csv", in: directory)
        #expect(
            await exitStatus(["baseline", "update", "--name", "nightly", "--from", bad, "--directory", baselines]) == 65
        )
        #expect(try String(contentsOfFile: written, encoding: .utf8) == String(contentsOfFile: source, encoding: .utf8))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: baselines)
        #expect(leftovers == ["nightly.csv"])
    }

    @Test func baselineUpdateFromAFreshRun() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let baselines = directory.appendingPathComponent("baselines").path
        let status = await exitStatus([
            "baseline", "update", "--name", "fresh", "--directory", baselines, "--",
            "--partitions", "2", "--items-per-partition", "200", "--concurrency", "1", "--drains", "2",
        ])
        #expect(status == 0)
        let written = baselines + "/fresh.csv"
        #expect(await exitStatus(["check", "--baseline", written, "--current", written]) == 0)
        #expect(
            await exitStatus(["baseline", "update", "--directory", baselines, "--", "--concurrency", "zero"]) == 64
        )
        #expect(
            await exitStatus(["baseline", "update", "--from", written, "--directory", baselines, "--", "--drains", "2"])
                == 64
        )
    }

    @Test func compareAndReportRun() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let baseline = Self.fixture("check/baseline.csv")
        let regression = Self.fixture("check/current-regression.csv")
        for format in ["text", "markdown", "csv"] {
            #expect(await exitStatus(["compare", baseline, regression, "--format", format]) == 0)
        }
        #expect(await exitStatus(["compare", baseline, "--all-metrics"]) == 0)
        let output = directory.appendingPathComponent("out/report.html").path
        #expect(await exitStatus(["report", baseline, regression, "--output", output, "--history", baseline]) == 0)
        let html = try String(contentsOfFile: output, encoding: .utf8)
        #expect(html.contains("id=\"plot-throughput\""))
    }
}

extension ReportCommandsTests {
    @Test func unmatchedGroupsFailOnlyWhenAskedAndNoMatchAtAllIsADataError() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let baseline = Self.fixture("check/baseline.csv")
        let text = try String(contentsOfFile: baseline, encoding: .utf8)
        var lines = text.split(separator: "\n").map(String.init)
        // Drop the last group's rows (clustered ×4, 5 repetitions): one group only in the baseline.
        lines.removeLast(5)
        let fewer = try write(lines.joined(separator: "\n") + "\n", "fewer.csv", in: directory)
        #expect(await exitStatus(["check", "--baseline", baseline, "--current", fewer]) == 0)
        #expect(await exitStatus(["check", "--baseline", baseline, "--current", fewer, "--fail-on-unmatched"]) == 1)
        // Every configuration hash changed: nothing to compare is not a pass.
        let renamed = try write(
            text.replacingOccurrences(of: "5e1ec7edc0ffee11", with: "1111111111111111")
                .replacingOccurrences(of: "c1u57e7ed0000001", with: "2222222222222222"),
            "renamed.csv",
            in: directory
        )
        #expect(await exitStatus(["check", "--baseline", baseline, "--current", renamed]) == 65)
    }
}
