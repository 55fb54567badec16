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
            ]
        )
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
