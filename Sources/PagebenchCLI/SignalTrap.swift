import PagebenchBase
import PagebenchEngine
import PagebenchHarness
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM during `pagebench run` (docs/contract.md H6): the first requests an
/// ``Interruption`` (the phase in progress stops partial, the rows so far are written, the
/// exit status is 128 + the signal); a second one exits at once with that status.
///
/// Signals within one second of the first count as the first: a terminal's Ctrl-C reaches
/// `run --workers` and its workers together, and the parent passes it on to them as well.
enum SignalTrap {
    /// How long after the first signal another one is taken as the same request.
    static let sameRequestNanoseconds: UInt64 = 1_000_000_000

    /// Runs `body` with SIGINT and SIGTERM trapped into `interruption`.
    /// - Parameter message: what happens now, printed after the signal's name (`run`'s by
    ///   default).
    static func run<Result>(
        _ interruption: Interruption,
        message: String = "the phase in progress ends partial and what was measured is written",
        _ body: () async throws -> Result
    ) async throws -> Result {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var first: UInt64?
                for await signal in signals {
                    let now = MonotonicTime.nanoseconds()
                    guard let firstAt = first else {
                        first = now
                        StandardError.write("pagebench: \(Self.name(signal)): stopping; \(message) (send it again to exit at once)\n")
                        interruption.request(signal: signal.rawValue)
                        continue
                    }
                    guard now - firstAt >= sameRequestNanoseconds else { continue }
                    StandardError.write("pagebench: \(Self.name(signal)) again: exiting at once\n")
                    exit(128 + signal.rawValue)
                }
            }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    static func name(_ signal: UnixSignal) -> String {
        SignalName.of(signal.rawValue)
    }
}
