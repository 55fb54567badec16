import Dispatch
import PagebenchBase
import PagebenchEngine
import PagebenchHarness
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM during `pagebench run` (docs/contract.md H6): the first requests an
/// ``Interruption`` (the phase in progress stops partial, the rows so far are written, the
/// exit status is 128 + the signal); a second one exits at once with that status.
///
/// Signals within one second of the first count as the first: a terminal's Ctrl-C reaches
/// `run --workers` and its workers together, and the parent passes it on to them as well.
///
/// The signals are handled on a dispatch queue of their own, not by a task: a task is queued
/// behind every pager in the cooperative pool (with 100,000 pagers a signal task ran 21 s
/// after the signal, issue 38), while the queue's thread requests the interruption at once
/// and the pagers read it at their next checkpoint.
enum SignalTrap {
    /// How long after the first signal another one is taken as the same request.
    static let sameRequestNanoseconds: UInt64 = 1_000_000_000

    /// The signals trapped.
    static let trapped: [Int32] = [SIGINT, SIGTERM]

    /// When the first signal arrived (monotonic nanoseconds; 0 before).
    private final class FirstSignal: Sendable {
        let at = Atomic<UInt64>(0)
    }

    /// Runs `body` with SIGINT and SIGTERM trapped into `interruption`.
    /// - Parameter message: what happens now, printed after the signal's name (`run`'s by
    ///   default).
    static func run<Result>(
        _ interruption: Interruption,
        message: String = "the phase in progress ends partial and what was measured is written",
        _ body: () async throws -> Result
    ) async throws -> Result {
        let queue = DispatchQueue(label: "pagebench.signals")
        let first = FirstSignal()
        var sources: [any DispatchSourceSignal] = []
        defer { for source in sources { source.cancel() } }
        for number in trapped {
            #if canImport(Darwin)
            // Darwin's signal sources see a signal only when its own handling is ignored.
            signal(number, SIG_IGN)
            #endif
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                handle(number, first: first, interruption: interruption, message: message)
            }
            sources.append(source)
            // Registration is asynchronous: wait for it, so that no early signal is missed.
            await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
                source.setRegistrationHandler { registered.resume() }
                source.resume()
            }
        }
        return try await body()
    }

    /// One signal: the first requests the interruption, one a second or more later exits.
    private static func handle(_ number: Int32, first: FirstSignal, interruption: Interruption, message: String) {
        let now = MonotonicTime.nanoseconds()
        let firstAt = first.at.load(ordering: .relaxed)
        guard firstAt != 0 else {
            first.at.store(now, ordering: .relaxed)
            StandardError.write(
                "pagebench: \(SignalName.of(number)): stopping; \(message) (send it again to exit at once)\n"
            )
            interruption.request(signal: number)
            return
        }
        guard now - firstAt >= sameRequestNanoseconds else { return }
        StandardError.write("pagebench: \(SignalName.of(number)) again: exiting at once\n")
        exit(128 + number)
    }
}
