import Foundation
import PagebenchBase
import PagebenchHarness
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Local worker processes of `pagebench run --workers N`: starts one process per argument
/// list (Foundation `Process`, standard output and error inherited), waits for every one,
/// and reports how each ended. Cancelling the waiting task sends SIGTERM to the workers
/// still running.
package struct WorkerPool: Sendable {
    /// How a worker process ended.
    package enum Termination: Sendable, Hashable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (e.g. 9, SIGKILL).
        case signalled(Int32)

        /// Exited with status 0.
        package var succeeded: Bool { self == .exited(0) }

        package var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "was killed by signal \(signal) (\(SignalName.of(signal)))"
            }
        }
    }

    /// One worker's end.
    package struct Outcome: Sendable, Hashable {
        /// The worker's position in the argument lists (its shard index).
        package var index: Int
        package var processIdentifier: Int32
        package var termination: Termination
    }

    /// The executable every worker runs.
    package let executable: String
    /// One argument list per worker.
    package let arguments: [[String]]
    /// Variables set in every worker's environment on top of this process's; nil for none.
    package let environment: [String: String]?

    package init(executable: String, arguments: [[String]], environment: [String: String]? = nil) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
    }

    /// The executable of this process (`/proc/self/exe`), for starting copies of it.
    package static var currentExecutable: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Starts every worker, calls `launched(index, pid)` for each once it runs, and waits
    /// until all have ended; returns their outcomes in index order. An `interruption`
    /// (H6) is passed on: its signal goes to every worker still running, which stops the
    /// same way.
    ///
    /// - Throws: ``HarnessError`` (`workerFailed`) when a process cannot be started (the
    ///   ones already started are sent SIGTERM and waited for).
    package func run(
        interruption: Interruption? = nil,
        launched: @Sendable (Int, Int32) -> Void = { _, _ in }
    ) async throws(HarnessError) -> [Outcome] {
        let running = RunningSet()
        var waits: [(index: Int, pid: Int32, ended: AsyncStream<Termination>)] = []
        for (index, arguments) in arguments.enumerated() {
            let (ended, continuation) = AsyncStream.makeStream(
                of: Termination.self,
                bufferingPolicy: .bufferingNewest(1)
            )
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            if let environment {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, set in set }
            }
            process.standardInput = FileHandle.nullDevice
            process.terminationHandler = { process in
                // Reaped: never signal this pid again (it may be reused).
                running.remove(process.processIdentifier)
                let status = process.terminationStatus
                continuation.yield(process.terminationReason == .uncaughtSignal ? .signalled(status) : .exited(status))
                continuation.finish()
            }
            do {
                try process.run()
            } catch {
                running.signalAll(SIGTERM)
                for wait in waits { for await _ in wait.ended {} }
                throw HarnessError(
                    .workerFailed,
                    "cannot start worker \(index) (\(executable)): \(error.localizedDescription)"
                )
            }
            let pid = process.processIdentifier
            running.add(pid)
            waits.append((index, pid, ended))
            launched(index, pid)
        }
        return await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                if let interruption {
                    group.addTask {
                        await interruption.wait()
                        if let signal = interruption.signal { running.signalAll(signal) }
                    }
                }
                var outcomes: [Outcome] = []
                for wait in waits {
                    var termination = Termination.signalled(0)
                    for await ended in wait.ended { termination = ended }
                    outcomes.append(Outcome(index: wait.index, processIdentifier: wait.pid, termination: termination))
                }
                group.cancelAll()
                return outcomes
            }
        } onCancel: {
            running.signalAll(SIGTERM)
        }
    }

    /// Process identifiers of workers still running, to signal on cancellation. A worker
    /// may end (and be reaped) before its launcher records it: then `add` finds it reaped.
    private final class RunningSet: Sendable {
        private struct State {
            var running: Set<Int32> = []
            var reapedEarly: Set<Int32> = []
        }

        private let state = Mutex(State())

        func add(_ pid: Int32) {
            state.withLock { state in
                if state.reapedEarly.remove(pid) == nil { state.running.insert(pid) }
            }
        }

        func remove(_ pid: Int32) {
            state.withLock { state in
                if state.running.remove(pid) == nil { state.reapedEarly.insert(pid) }
            }
        }

        func signalAll(_ signal: Int32) {
            state.withLock { state in
                for pid in state.running { kill(pid, signal) }
            }
        }
    }
}
