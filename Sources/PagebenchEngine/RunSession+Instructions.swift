import Foundation
import PagebenchBase
import PagebenchHarness
import PagebenchMetrics
import PagebenchProcessStats
import PagebenchScaleOut

#if canImport(Glibc)
import Glibc
#endif

/// `pagebench run --count-instructions` (docs/gate.md): the scenarios run once
/// more, one repetition each, in a pagebench process under valgrind's callgrind that counts
/// every measured phase's instructions (``PagebenchProcessStats/InstructionCounter``); the
/// first repetition's row of each phase gets `instructions_per_page`.
///
/// The measured run itself is not under valgrind (which slows a process 20 to 100 times), so
/// its wall-clock figures are what they would be without the flag; the callgrind run comes
/// first, so a machine without valgrind fails before anything is measured.
extension RunSession {
    /// The flag that asks for the count.
    package static let countInstructionsFlag = "--count-instructions"

    /// The callgrind run's scenarios: the same configurations (so the same identities), with
    /// what that run must not do taken out: judging SLOs (its latencies are valgrind's), the
    /// timing-off rerun of `measureOverhead`; staged workloads are left out (a stage lasts a
    /// time, not a number of pages, and gets no count).
    package static func instructionScenarios(_ scenarios: [Scenario]) -> [Scenario] {
        scenarios.filter { $0.workload.stages == nil }.map { scenario in
            var scenario = scenario
            scenario.slo = []
            scenario.workload.measureOverhead = false
            scenario.workload.repetitions = 1
            return scenario
        }
    }

    /// Where `name` is: the first executable of that name on `PATH`.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The executable valgrind runs: a copy of `executable` without its debug sections, made
    /// with `objcopy --strip-debug` in `directory` when objcopy is there (binutils), else
    /// `executable` itself. Valgrind 3.19 gives up on the DWARF 5 of a Swift 6.3 debug build
    /// ("Possibly corrupted debuginfo file"); counting needs none of it.
    static func executableForValgrind(_ executable: String, in directory: String) async -> String {
        guard let objcopy = onPath("objcopy") else { return executable }
        let copy = "\(directory)/pagebench"
        let outcomes = try? await WorkerPool(executable: objcopy, arguments: [["--strip-debug", executable, copy]])
            .run()
        return outcomes?.first?.termination.succeeded == true ? copy : executable
    }

    /// Checks that instructions can be counted here, before anything runs.
    ///
    /// - Throws: ``CommandError`` (69) when this build has no callgrind client requests or
    ///   valgrind is not installed.
    static func checkInstructionCounting() throws(CommandError) -> String {
        guard InstructionCounter.isSupported else {
            throw .countingUnavailable(
                "\(countInstructionsFlag): this pagebench was built without <valgrind/callgrind.h>; install valgrind "
                    + "(Debian: apt-get install valgrind, which ships the header) and rebuild"
            )
        }
        guard let valgrind = onPath("valgrind") else {
            throw .countingUnavailable(
                "\(countInstructionsFlag): valgrind is not on PATH; install it (Debian: apt-get install valgrind)"
            )
        }
        return valgrind
    }

    /// Runs `scenarios` once under callgrind and returns instructions per page by identity.
    ///
    /// - Throws: ``CommandError``: 69 (no valgrind), 71 (the callgrind run failed, or a phase
    ///   came back without a count), 73 (its files could not be written), 128 + the signal when
    ///   interrupted (nothing was measured yet).
    func countInstructions(_ scenarios: [Scenario]) async throws(CommandError) -> [ResultIdentity: Double] {
        let valgrind = try Self.checkInstructionCounting()
        let counted = Self.instructionScenarios(scenarios)
        guard !counted.isEmpty else { return [:] }
        guard let running = WorkerPool.currentExecutable else {
            throw .internalFailure("cannot find this executable (/proc/self/exe) to run under valgrind")
        }
        var template = Array("\(NSTemporaryDirectory())/pagebench-instructions-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw .cannotCreate(
                "\(Self.countInstructionsFlag): cannot create a temporary directory (\(FileSystem.errnoDescription()))"
            )
        }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files: [String]
        do {
            files = try LocalWorkers.writeScenarios(counted, to: directory, role: "callgrind run's")
        } catch {
            throw CommandError(error)
        }
        let executable = await Self.executableForValgrind(running, in: directory)
        let dumps = "\(directory)/callgrind.out"
        let rows = "\(directory)/rows.csv"
        // Valgrind's own messages go to a file, shown if the run fails; pagebench's go to stderr.
        let log = "\(directory)/valgrind.log"
        let valgrindArguments =
            [
                "--tool=callgrind", "--fair-sched=yes", "--instr-atstart=no", "--callgrind-out-file=\(dumps)",
                "--log-file=\(log)",
                executable, "run",
            ] + files + [
                "--repetitions", "1", "--quiet", "--output", rows, InstructionCounting.dumpsOption, dumps,
            ] + request.passedOnOptions
        // One CPU: the process's thread pools are one thread wide, so no count depends on
        // which thread woke which (``onOneCPU(_:_:)``).
        let (launcher, arguments) = Self.onOneCPU(valgrind, valgrindArguments)
        if !quiet {
            let phases = counted.reduce(0) { $0 + $1.workload.concurrency.count }
            StandardError.write(
                "counting instructions: \(phases) phase\(phases == 1 ? "" : "s") once more under callgrind "
                    + "(slower than the run itself)…\n"
            )
        }
        let outcomes: [WorkerPool.Outcome]
        do {
            outcomes = try await WorkerPool(
                executable: launcher,
                arguments: [arguments],
                environment: InstructionCounting.environment
            ).run(interruption: interruption)
        } catch {
            throw CommandError(error)
        }
        try Self.checkInterrupted(interruption, rows: [])
        if let outcome = outcomes.first, !outcome.termination.succeeded {
            let lines = ((try? FileSystem.readText(log)) ?? "").split(separator: "\n").suffix(12)
            throw .workerFailed(
                "\(Self.countInstructionsFlag): the callgrind run (\(valgrind) --tool=callgrind pagebench run …) "
                    + "\(outcome.termination); nothing was measured"
                    + (lines.isEmpty ? "" : "; valgrind's last words:\n  " + lines.joined(separator: "\n  "))
            )
        }
        var counts: [ResultIdentity: Double] = [:]
        do {
            for row in try CSVFile.readResults(rows) {
                guard let perPage = row.instructionsPerPage else {
                    throw CommandError.workerFailed(
                        "\(Self.countInstructionsFlag): callgrind counted no instructions for \(row.identity) "
                            + "(\(row.pages) pages); nothing was measured"
                    )
                }
                counts[row.identity] = perPage
            }
        } catch {
            throw CommandError(wrapping: error)
        }
        return counts
    }

    /// Puts the counts on the first repetition's row of each phase.
    package static func apply(instructions: [ResultIdentity: Double], to rows: inout [ResultRow]) {
        for index in rows.indices where rows[index].repetition == 1 {
            rows[index].instructionsPerPage = instructions[rows[index].identity]
        }
    }
}

extension RunSession {
    /// `executable arguments…` run on one CPU of this process's: through `taskset -c CPU`
    /// (util-linux) when it is there; as they are otherwise.
    ///
    /// libdispatch sizes its thread pools by the CPUs a process may use, so on one CPU the
    /// Swift runtime runs every task on one thread. Valgrind runs one thread at a time anyway;
    /// with several, how many wake-ups, hand-offs and spins a page costs depends on the timing
    /// of the moment: the Apollo-style pager of the CI set spanned 3.9 % over three runs of one
    /// build on both CPUs here, 0.13 % on one (results/aa-gate/one-cpu.txt).
    static func onOneCPU(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        guard let taskset = onPath("taskset") else { return (executable, arguments) }
        return (
            taskset,
            ["-c", String(firstAllowedCPU(status: (try? FileSystem.readText("/proc/self/status")) ?? "")), executable]
                + arguments
        )
    }

    /// The first CPU of `Cpus_allowed_list` (`0-1`, `2,5-7`) in `/proc/self/status` text; 0 when absent.
    static func firstAllowedCPU(status: String) -> Int {
        for line in status.split(separator: "\n") where line.hasPrefix("Cpus_allowed_list:") {
            let list = line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
            return Int(list.prefix { $0.isNumber }) ?? 0
        }
        return 0
    }
}

/// The side of `--count-instructions` inside the process valgrind runs.
package enum InstructionCounting {
    /// The environment of the callgrind run: jemalloc's time-based purging of unused pages off
    /// (`dirty_decay_ms:-1,muzzy_decay_ms:-1`, added to any `MALLOC_CONF` already set), so
    /// that how much is purged during a phase does not follow its wall-clock length, which
    /// valgrind stretches by a varying factor.
    static var environment: [String: String] {
        let existing = ProcessInfo.processInfo.environment["MALLOC_CONF"] ?? ""
        let decay = "dirty_decay_ms:-1,muzzy_decay_ms:-1"
        return ["MALLOC_CONF": existing.isEmpty ? decay : existing + "," + decay]
    }

    /// The hidden option that names callgrind's output file: the process counts its phases.
    package static let dumpsOption = "--instruction-dumps"

    /// The counter of a process started with ``dumpsOption``.
    ///
    /// - Throws: ``CommandError`` (64) when the process does not run under valgrind: the
    ///   option is `--count-instructions`' own, not for users.
    static func counter(dumps: String?) throws(CommandError) -> InstructionCounter? {
        guard let dumps else { return nil }
        guard InstructionCounter.isRunningOnValgrind else {
            throw .usage(
                "\(dumpsOption) is for the process `run --count-instructions` starts under valgrind; "
                    + "use --count-instructions"
            )
        }
        return InstructionCounter(outputFile: dumps)
    }
}
