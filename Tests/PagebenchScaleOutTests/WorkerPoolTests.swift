import Foundation
import PagebenchHarness
import PagebenchScaleOut
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Worker processes: every worker is waited for and its end reported, whether it exits 0,
/// exits with a failure, or is killed by a signal.
@Suite struct WorkerPoolTests {
    @Test func eachWorkersEndIsReportedWithItsStatusOrSignal() async throws {
        let pool = WorkerPool(
            executable: "/bin/sh",
            arguments: [
                ["-c", "exit 0"],
                ["-c", "kill -KILL $$"],
                ["-c", "exit 3"],
            ])
        let launched = Mutex<[Int: Int32]>([:])
        let outcomes = try await pool.run { index, pid in launched.withLock { $0[index] = pid } }
        #expect(outcomes.map(\.index) == [0, 1, 2])
        #expect(outcomes.map(\.termination) == [.exited(0), .signalled(SIGKILL), .exited(3)])
        #expect(outcomes.map(\.processIdentifier) == (0..<3).map { index in launched.withLock { $0[index] } })
        #expect(outcomes.map(\.termination.succeeded) == [true, false, false])
        #expect(outcomes[1].termination.description == "was killed by signal 9 (SIGKILL)")
        #expect(outcomes[2].termination.description == "exited with status 3")
    }

    /// A worker killed from outside while it runs (the way an OOM killer or an operator would).
    @Test func aWorkerKilledWhileRunningIsReported() async throws {
        let pool = WorkerPool(executable: "/bin/sh", arguments: [["-c", "exit 0"], ["-c", "exec sleep 60"]])
        let outcomes = try await pool.run { index, pid in
            if index == 1 { kill(pid, SIGKILL) }
        }
        #expect(outcomes.map(\.termination) == [.exited(0), .signalled(SIGKILL)])
    }

    @Test func anExecutableThatCannotStartIsAnError() async {
        let pool = WorkerPool(executable: "/nonexistent/pagebench", arguments: [["run"]])
        do {
            _ = try await pool.run()
            Issue.record("started a missing executable")
        } catch {
            #expect(error.kind == .workerFailed)
            #expect(error.message.contains("cannot start worker 0 (/nonexistent/pagebench)"), "\(error.message)")
        }
    }

    @Test func thisExecutableIsFound() throws {
        let path = try #require(WorkerPool.currentExecutable)
        #expect(FileManager.default.isExecutableFile(atPath: path))
    }
}

/// `--start-at`: ISO 8601 times, the grace for late workers, and waiting (no wall-clock
/// assertions: the clock is injected).
@Suite struct StartTimeTests {
    @Test func parsesUTCAndOffsetsWithAndWithoutFractions() throws {
        let whole = try StartTime(parsing: "2026-11-22T10:00:00Z")
        #expect(whole.date.timeIntervalSince1970 == 1_795_341_600)
        #expect(try StartTime(parsing: "2026-11-22T10:00:00.250Z").date.timeIntervalSince1970 == 1_795_341_600.25)
        #expect(try StartTime(parsing: "2026-11-22T11:00:00+01:00") == whole)
        #expect(whole.description == "2026-11-22T10:00:00.000Z")
        #expect(try StartTime(parsing: whole.description) == whole)
    }

    @Test(arguments: ["", "now", "2026-11-22", "2026-11-22T10:00:00", "10:00:00Z", "2026-13-22T10:00:00Z"])
    func rejectsOtherForms(text: String) {
        do {
            _ = try StartTime(parsing: text)
            Issue.record("parsed '\(text)'")
        } catch {
            #expect(error.kind == .invalidArgument)
            #expect(error.message.contains("ISO 8601"))
        }
    }

    @Test func lateStartsWithinTheGraceWarnLaterOnesFail() throws {
        let start = try StartTime(parsing: "2026-11-22T10:00:00Z")
        #expect(try start.check(now: start.date.addingTimeInterval(-30)) == nil)
        let warning = try start.check(now: start.date.addingTimeInterval(2))
        #expect(warning?.contains("passed 2.0 s ago; starting at once") == true)
        do {
            _ = try start.check(now: start.date.addingTimeInterval(StartTime.graceSeconds + 1))
            Issue.record("accepted a start 6 s in the past")
        } catch {
            #expect(error.kind == .invalidArgument)
            #expect(error.message.contains("6.0 s in the past"), "\(error.message)")
        }
    }

    @Test func waitingForAPassedTimeReturnsAtOnceAndAWaitIsCancellable() async throws {
        let start = try StartTime(parsing: "2026-11-22T10:00:00Z")
        try await start.wait(now: { start.date.addingTimeInterval(1) })
        let far = StartTime(date: Date().addingTimeInterval(3600))
        let task = Task { try await far.wait() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
