import Foundation
import PagebenchScaleOut
import Testing

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
