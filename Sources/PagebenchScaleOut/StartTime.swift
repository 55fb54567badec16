import Foundation
import PagebenchHarness

/// The wall-clock instant independently launched workers begin their first phase at
/// (`--start-at`), so they start together without a coordinator.
///
/// Written in ISO 8601 with a UTC offset (`2026-11-22T10:00:00Z`, optionally with fractional
/// seconds, `…:00.250Z`, or another offset such as `+01:00`). A time up to ``graceSeconds``
/// in the past starts at once with a warning (a worker that was launched a little late); a
/// time further in the past is an error, because that worker would start out of step with
/// the others. Clocks of different machines must be synchronised (NTP) for the start to line up.
package struct StartTime: Sendable, Hashable, CustomStringConvertible {
    /// How far in the past a start time may be and still start (at once, with a warning).
    package static let graceSeconds = 5.0

    /// The instant.
    package let date: Date

    package init(date: Date) {
        self.date = date
    }

    /// Parses an ISO 8601 date and time with an offset.
    ///
    /// - Throws: ``HarnessError`` (`invalidArgument`) saying what is expected.
    package init(parsing text: String) throws(HarnessError) {
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds],
        ] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) {
                self.init(date: date)
                return
            }
        }
        throw HarnessError(
            .invalidArgument,
            "--start-at '\(text)': expected an ISO 8601 UTC time such as 2026-11-22T10:00:00Z "
                + "(e.g. $(date -u -d '+30 sec' +%Y-%m-%dT%H:%M:%SZ))"
        )
    }

    /// `2026-11-22T10:00:00.250Z`: UTC with milliseconds, the form passed to worker processes.
    package var description: String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Checks the start time against `now`.
    ///
    /// - Returns: a warning when the time has passed by at most ``graceSeconds`` (the run
    ///   starts at once), nil when it lies ahead.
    /// - Throws: ``HarnessError`` (`invalidArgument`) when it passed longer ago.
    package func check(now: Date = Date()) throws(HarnessError) -> String? {
        let late = now.timeIntervalSince(date)
        guard late > 0 else { return nil }
        let seconds = String(format: "%.1f", late)
        guard late <= Self.graceSeconds else {
            throw HarnessError(
                .invalidArgument,
                "--start-at \(self) is \(seconds) s in the past (more than the \(Int(Self.graceSeconds)) s grace); "
                    + "give a time far enough ahead for every worker to be running, e.g. "
                    + "$(date -u -d '+60 sec' +%Y-%m-%dT%H:%M:%SZ)"
            )
        }
        return "--start-at \(self) passed \(seconds) s ago; starting at once, \(seconds) s behind the other workers"
    }

    /// Sleeps until the start time (at once if it has passed), re-reading the wall clock at
    /// least every second so that clock adjustments while waiting are followed.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    package func wait(now: @Sendable () -> Date = { Date() }) async throws {
        while true {
            let remaining = date.timeIntervalSince(now())
            if remaining <= 0 { return }
            try await Task.sleep(nanoseconds: UInt64(min(remaining, 1) * 1e9))
        }
    }
}
